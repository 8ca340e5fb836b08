# One deliberately invalid value per value check of the stub provider
# (tools/tfstub/checks.go), on the resource types the deployment uses.
# scripts/check-terraform expects `terraform validate` to fail here with
# exactly the diagnostics in expected-errors.txt, which is what the real
# hashicorp/google 7.45.0 reported for this file (docs/deploy.md, "What
# the offline checks cannot see", says how to compare again).
#
# Not part of the deployment: Terraform reads only the top level of
# terraform/, never its subdirectories.

terraform {
  required_providers {
    google = { source = "hashicorp/google" }
  }
}
resource "google_project_service" "s" {
  service = "firestore" # not a service name: no domain
}
resource "google_service_account" "a" {
  account_id  = "short"                               # 5 characters; 6 to 30
  description = join("", [for i in range(300) : "x"]) # over 256 characters
}
resource "google_cloudfunctions2_function" "f" {
  name     = "f"
  location = "us-central1"
  service_config { ingress_settings = "ALLOW_EVERYONE" } # ALLOW_ALL
}
resource "google_firestore_database" "d" {
  name        = "db"
  location_id = "nam5"
  type        = "NATIVE" # FIRESTORE_NATIVE
}
resource "google_firestore_field" "f" {
  collection = "c"
  field      = "x"
  index_config {
    indexes {
      order       = "ASC" # ASCENDING
      query_scope = "COLLECTION"
    }
  }
}
resource "google_firestore_index" "i" {
  collection  = "c"
  query_scope = "GROUP" # COLLECTION_GROUP
  fields {
    field_path = "a"
    order      = "ASCENDING"
  }
  fields {
    field_path = "b"
    order      = "ASCENDING"
  }
}
resource "google_logging_metric" "m" {
  name   = "m"
  filter = "x"
  metric_descriptor {
    metric_kind = "COUNTER" # DELTA, GAUGE or CUMULATIVE
    value_type  = "INT64"
  }
}
resource "google_monitoring_alert_policy" "p" {
  display_name = "p"
  combiner     = "ANY"  # OR
  severity     = "INFO" # not a severity
  conditions {
    display_name = "c"
    condition_threshold {
      filter     = "x"
      comparison = "COMPARISON_GT"
      duration   = "60s"
      aggregations {
        alignment_period   = "60s"
        per_series_aligner = "ALIGN_AVERAGE" # ALIGN_MEAN
      }
    }
  }
}
resource "google_cloud_run_service_iam_member" "r" {
  location = "us-central1"
  service  = "s"
  role     = "roles/run.invoker"
  member   = "everyone" # allUsers
}
resource "google_artifact_registry_repository_iam_member" "r" {
  location   = "us-central1"
  repository = "r"
  role       = "roles/artifactregistry.writer"
  member     = "roomlease@p.iam.gserviceaccount.com" # no serviceAccount: type
}
