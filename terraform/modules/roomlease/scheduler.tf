# Cloud Scheduler runs the sweeper once a minute. Each run sweeps repeatedly
# for sweep_budget (about a minute), so the sweeper is effectively always on,
# while Scheduler guarantees that it is restarted even after a crash.

resource "google_service_account" "scheduler" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-scheduler"
  display_name = "${var.name_prefix} sweep scheduler"
  description  = "Identity Cloud Scheduler presents to the Sweep function; it holds no other permission."

  depends_on = [google_project_service.enabled]
}

resource "google_cloud_scheduler_job" "sweep" {
  project     = var.project_id
  region      = var.region
  name        = "${var.name_prefix}-sweep"
  description = "Runs the roomlease sweeper (lease expiry, room teardown)."
  schedule    = "* * * * *"
  time_zone   = "Etc/UTC"

  # Scheduler waits as long as the function may run, so a normal run is never
  # reported as failed; this is above the sweep budget by construction (see
  # the precondition on the Sweep function).
  attempt_deadline = "${var.sweep_timeout_seconds}s"

  # No retries: the next tick, a minute later, is the retry, and retrying
  # a timed-out run would only overlap it with the next one.
  retry_config {
    retry_count = 0
  }

  # The service's run.app URL, not the function's cloudfunctions.net one:
  # Cloud Run treats Scheduler's requests as internal (as Sweep's ingress
  # setting requires) when they use the run.app URL, and that URL is the
  # audience Cloud Run expects in the OIDC token.
  http_target {
    http_method = "POST"
    uri         = google_cloudfunctions2_function.sweep.service_config[0].uri

    oidc_token {
      service_account_email = google_service_account.scheduler.email
      audience              = google_cloudfunctions2_function.sweep.service_config[0].uri
    }
  }

  depends_on = [google_cloud_run_service_iam_member.sweep_scheduler]
}
