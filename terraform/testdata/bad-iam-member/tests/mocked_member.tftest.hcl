# No defaults: the mocked service account's member is a random string.
mock_provider "google" {}

run "member_from_bare_mock" {}
