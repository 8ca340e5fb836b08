# A root that deploys one roomlease instance with the module in
# ../../modules/roomlease. scripts/deploy runs Terraform here. Copy it for a
# deployment of your own: point the module's source at this repository,
# pinned to a commit until releases are tagged (docs/releasing.md):
# git::https://…/roomlease.git//terraform/modules/roomlease?ref=COMMIT. Then
# copy backend.tf.example to backend.tf, and terraform.tfvars.example to
# terraform.tfvars.

terraform {
  required_version = ">= 1.7"

  required_providers {
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
  # enabled in it (the module enables them, and the first step in
  # docs/deploy.md does so by hand before the first apply).
  user_project_override = true
  billing_project       = var.project_id
}

module "roomlease" {
  source = "../../modules/roomlease"

  project_id  = var.project_id
  region      = var.region
  name_prefix = var.name_prefix

  source_archive = var.source_archive
  source_object  = var.source_object
  go_runtime     = var.go_runtime

  cleanup_mode          = var.cleanup_mode
  app_check_mode        = var.app_check_mode
  allowed_origins       = var.allowed_origins
  notification_channels = var.notification_channels
  lease_token_key       = var.lease_token_key
  min_client_versions   = var.min_client_versions

  # The presence events and their delivery (docs/events.md).
  events_enabled      = var.events_enabled
  event_push_endpoint = var.event_push_endpoint
  service_accounts    = var.service_accounts

  # Every other setting of the module (variables.tf there: lease, grace,
  # rate limits, scaling, ...) keeps its default here. To change one, add
  # it to this block (and, to set it from terraform.tfvars, a variable in
  # variables.tf beside this file).
}
