# A deliberately broken configuration. scripts/check-terraform expects
# `terraform validate` to reject it, which shows that validation runs against
# the real google provider schema: "schedual" is not an argument of
# google_cloud_scheduler_job, and nothing but the schema knows that.
#
# Not part of the deployment: Terraform reads only the top level of
# terraform/, never its subdirectories.

terraform {
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 7.45"
    }
  }
}

resource "google_cloud_scheduler_job" "misspelled" {
  name     = "roomlease-sweep"
  schedual = "* * * * *"

  http_target {
    uri = "https://example.com/"
  }
}
