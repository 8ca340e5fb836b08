mock_provider "google" {}

run "member_is_a_bare_email" {
  command = plan

  variables {
    member = "roomlease-presence@roomlease-test.iam.gserviceaccount.com"
  }
}
