locals {
  # Every API the deployment touches, and only those. eventarc is absent on
  # purpose: both functions are HTTP functions, and Eventarc is only needed
  # for event-triggered ones.
  services = concat([
    "artifactregistry.googleapis.com", # Cloud Build stores the function images here
    "cloudbuild.googleapis.com",       # builds the Go source with the buildpack
    "cloudfunctions.googleapis.com",
    "cloudresourcemanager.googleapis.com", # project IAM; needed by user_project_override (versions.tf)
    "cloudscheduler.googleapis.com",       # triggers Sweep once a minute
    "firebaserules.googleapis.com",        # Firestore security rules
    "firestore.googleapis.com",
    "iam.googleapis.com", # the service accounts
    "logging.googleapis.com",
    "monitoring.googleapis.com",
    "run.googleapis.com",          # 2nd gen functions are Cloud Run services
    "serviceusage.googleapis.com", # enabling APIs with a quota project (versions.tf)
    "storage.googleapis.com",
  ], var.events_enabled ? ["pubsub.googleapis.com"] : []) # the presence events (events.tf)
}

resource "google_project_service" "enabled" {
  for_each = toset(local.services)

  project = var.project_id
  service = each.key

  # Other workloads in the project may use the same APIs; destroying this
  # stack must not switch them off underneath them.
  disable_on_destroy = false
}
