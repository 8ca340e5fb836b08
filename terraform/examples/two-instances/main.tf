# Two instances of roomlease, staging and prod, side by side in one project:
# each has its own functions, service accounts, buckets, scheduler job,
# metrics, alerts and Firestore database, named after its name_prefix.
# tests/side_by_side.tftest.hcl plans this root and checks that the two
# share no name. A real deployment would more often keep staging in a
# project of its own; this shows that it does not have to.

terraform {
  required_version = ">= 1.7"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "7.45.0"
    }
  }
}

variable "project_id" {
  description = "The one project both instances live in."
  type        = string
}

variable "source_archive" {
  description = "The zip scripts/deploy builds; both instances may run different code, this example gives them the same."
  type        = string
  default     = null
}

variable "notification_channels" {
  description = "Channels both instances' alerts notify (a real setup would give staging its own)."
  type        = list(string)
  default     = []
}

provider "google" {
  project               = var.project_id
  user_project_override = true
  billing_project       = var.project_id
}

module "staging" {
  source = "../../modules/roomlease"

  project_id     = var.project_id
  name_prefix    = "staging"
  source_archive = var.source_archive

  notification_channels = var.notification_channels

  # Staging tears rooms down for real, so that it exercises what prod will.
  cleanup_mode = "enforce"
}

module "prod" {
  source = "../../modules/roomlease"

  project_id     = var.project_id
  name_prefix    = "prod"
  source_archive = var.source_archive

  notification_channels = var.notification_channels
}

output "names" {
  description = "Every name each instance takes in the project."
  value       = { staging = module.staging.names, prod = module.prod.names }
}

output "api_urls" {
  description = "The two client APIs."
  value       = { staging = module.staging.api_url, prod = module.prod.api_url }
}
