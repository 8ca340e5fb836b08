terraform {
  # The tests in tests/ use mock_provider and override_resource, which
  # `terraform test` has since 1.7. scripts/check-terraform runs with 1.11.
  required_version = ">= 1.7"

  required_providers {
    # The only provider. In particular no archive provider: scripts/deploy
    # builds the source zip, so what is uploaded is exactly what was built.
    #
    # Exactly the version the offline checks use (its schema is
    # ../shared/terraform/google-provider-7.45.0.schema.json) and the one
    # the tests were run against. No lock file is committed (see
    # .gitignore), so a range here would let `terraform init` pick a
    # provider nobody checked. Upgrade deliberately: the schema file, this
    # line and tools/tfstub/checks.go together.
    google = {
      source  = "hashicorp/google"
      version = "7.45.0"
    }
  }
}

provider "google" {
  project = var.project_id
  region  = var.region

  # Some APIs (Firebase Rules among them) refuse calls made with user
  # credentials, as from `gcloud auth application-default login`, unless the
  # call names a quota project. These two make every call name this
  # project. That in turn needs serviceusage and cloudresourcemanager
  # enabled in it (apis.tf, and the first step in docs/operations.md).
  user_project_override = true
  billing_project       = var.project_id
}
