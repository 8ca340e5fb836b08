# The function source: the zip that scripts/deploy builds, uploaded to a
# bucket that Cloud Build reads when it builds both functions.

resource "google_storage_bucket" "source" {
  project  = var.project_id
  name     = "${var.project_id}-roomlease-source"
  location = var.region

  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  # The bucket holds nothing but build inputs that scripts/deploy can
  # recreate, so destroying the stack may empty it.
  force_destroy = true

  depends_on = [google_project_service.enabled]
}

resource "google_storage_bucket_object" "source" {
  bucket = google_storage_bucket.source.name

  # The content hash is part of the name: a changed archive is a new object,
  # the functions' storage_source changes with it, and that change is what
  # makes Cloud Functions rebuild and redeploy. Terraform deletes the
  # previous object when it replaces this one, so archives do not pile up.
  name         = "roomlease-source-${filemd5(var.source_archive)}.zip"
  source       = var.source_archive
  content_type = "application/zip"
}
