terraform {
  # The tests in tests/ use mock_provider and override_resource, which
  # `terraform test` has since 1.7. scripts/check-terraform runs with 1.11.
  required_version = ">= 1.7"

  required_providers {
    # The only provider. In particular no archive provider: scripts/deploy
    # builds the source zip, so what is uploaded is exactly what was built.
    google = {
      source  = "hashicorp/google"
      version = "~> 7.45"
    }
  }
}

provider "google" {
  project = var.project_id
  region  = var.region
}
