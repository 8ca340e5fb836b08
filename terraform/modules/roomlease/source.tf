# The function source: the zip that scripts/deploy builds, uploaded to a
# bucket that Cloud Build reads when it builds both functions.

resource "google_storage_bucket" "source" {
  project  = var.project_id
  name     = "${var.project_id}-${var.name_prefix}-source"
  location = var.region

  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  # The bucket holds nothing but build inputs that scripts/deploy can
  # recreate, so destroying the stack may empty it.
  force_destroy = true

  depends_on = [google_project_service.enabled]
}

locals {
  # The object the functions are built from. Its name carries the archive's
  # MD5: the same code gives the same name, so nothing changes, nothing is
  # uploaded and nothing is rebuilt; new code gives a new name, which
  # replaces the object, changes the functions' storage_source and so
  # rebuilds and redeploys them. Without an archive, the name comes from
  # source_object.
  source_object_name = var.source_archive != null ? "${var.name_prefix}-source-${filemd5(var.source_archive)}.zip" : var.source_object
}

resource "google_storage_bucket_object" "source" {
  bucket       = google_storage_bucket.source.name
  name         = local.source_object_name
  source       = var.source_archive
  content_type = "application/zip"

  # The provider needs exactly one of source and content in the
  # configuration, even when both are ignored below. Without an archive the
  # object must already be in the state (the deployed one), and this text is
  # never uploaded; a plan that shows this object being created without an
  # archive would upload it in place of the real archive: stop and see
  # docs/deploy.md, "The source archive".
  content = var.source_archive == null ? "not an archive: placeholder of a roomlease plan without source_archive" : null

  lifecycle {
    # The object is immutable once uploaded and found by its name, so the
    # local file matters only when the name is new (which replaces the
    # object, uploading the file). Ignoring the path otherwise matters
    # twice: scripts/deploy builds the archive in a new temporary directory
    # each time, and source forces replacement, so without this every
    # deploy would upload the same archive again; and a plan without an
    # archive, naming the deployed object, changes nothing. Terraform
    # deletes the previous object when it replaces this one, so archives do
    # not pile up; a rollback rebuilds the earlier archive from its tag
    # (docs/upgrades.md, "Rolling back").
    ignore_changes = [source, content, detect_md5hash]

    precondition {
      condition     = local.source_object_name != null
      error_message = "No source: set source_archive (scripts/deploy builds it) or, to keep the code as deployed, source_object = the output source_object_name. destroy needs neither."
    }
  }
}
