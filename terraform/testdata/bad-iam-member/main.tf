# Deliberately wrong IAM members. scripts/check-terraform expects
# `terraform test` here to FAIL, with the stub provider refusing both
# members. That shows the offline check catches what the real provider
# (hashicorp/google 7.45.0) refuses in code, not only what its schema says:
#
#   - from_mock takes its member from a mocked service account. A bare
#     mock_provider makes that a random string, which is how roomlease's own
#     tests once passed offline and failed against the real provider.
#   - by_hand names a service account by its email alone, without the
#     "serviceAccount:" type every IAM member needs.
#
# Not part of the deployment: Terraform reads only the top level of
# terraform/, never its subdirectories.

terraform {
  required_providers {
    google = {
      source = "hashicorp/google"
    }
  }
}

variable "member" {
  type    = string
  default = null
}

resource "google_service_account" "fixture" {
  project    = "roomlease-test"
  account_id = "roomlease-fixture"
}

resource "google_project_iam_member" "from_mock" {
  project = "roomlease-test"
  role    = "roles/datastore.user"
  member  = google_service_account.fixture.member
}

resource "google_project_iam_member" "by_hand" {
  count = var.member == null ? 0 : 1

  project = "roomlease-test"
  role    = "roles/datastore.user"
  member  = var.member
}
