# Values the mocked google provider gives computed attributes, shared by the
# tests in tests/ (mock_provider "google" { source = "./tests/mocks" }).
#
# Without these, every computed string is random ("pw9xzu9t"), and the real
# provider refuses a random string where it expects an IAM member: that is
# how the tests once passed against the stub and failed against
# hashicorp/google. So each value here has the shape the real API returns.
# Tests that must tell two resources apart still pin their values with
# override_resource.

mock_resource "google_service_account" {
  defaults = {
    email     = "roomlease-mock@roomlease-test.iam.gserviceaccount.com"
    member    = "serviceAccount:roomlease-mock@roomlease-test.iam.gserviceaccount.com"
    id        = "projects/roomlease-test/serviceAccounts/roomlease-mock@roomlease-test.iam.gserviceaccount.com"
    name      = "projects/roomlease-test/serviceAccounts/roomlease-mock@roomlease-test.iam.gserviceaccount.com"
    unique_id = "100000000000000000001"
  }
}

mock_resource "google_cloudfunctions2_function" {
  defaults = {
    url            = "https://us-central1-roomlease-test.cloudfunctions.net/roomlease-mock"
    service_config = { uri = "https://roomlease-mock-abc123-uc.a.run.app" }
  }
}

mock_resource "google_firebaserules_ruleset" {
  defaults = {
    # Ruleset IDs are UUIDs.
    name = "6b1a3c52-0d7e-4f19-9a4b-2f8e5d7c1a90"
  }
}

mock_resource "google_storage_bucket" {
  defaults = {
    url       = "gs://roomlease-test-roomlease-source"
    self_link = "https://www.googleapis.com/storage/v1/b/roomlease-test-roomlease-source"
  }
}

mock_resource "google_artifact_registry_repository" {
  defaults = {
    id   = "projects/roomlease-test/locations/us-central1/repositories/roomlease-functions"
    name = "roomlease-functions"
  }
}

# The presence events (events.tf).
mock_data "google_project" {
  defaults = {
    number = "123456789012"
  }
}

mock_resource "google_pubsub_topic" {
  defaults = {
    id = "projects/roomlease-test/topics/roomlease-events"
  }
}

mock_resource "google_pubsub_subscription" {
  defaults = {
    id = "projects/roomlease-test/subscriptions/roomlease-events-push"
  }
}
