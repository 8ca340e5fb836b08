# Metrics from the API's per-request lines.
#
# The sweeper's metrics (monitoring.tf) read one report line a minute. This
# one reads the lines the Presence function writes per request without a
# valid App Check token (functions/httpapi, checkAppCheck): severity
# WARNING, jsonPayload.message "request without a valid App Check token",
# jsonPayload.appCheck = missing | invalid | unverified and
# jsonPayload.appCheckMode = monitor | enforce. In off mode there are none.
# It has points only in minutes with such requests, so it is not part of the
# fixed cost BENCHMARKS.md computes from monitoring.tf.

resource "google_logging_metric" "app_check_failures" {
  project     = var.project_id
  name        = "${var.name_prefix}/app_check_failures"
  description = "API requests without a valid App Check token: served in monitor mode, refused in enforce mode. Watch it fall to near zero before moving app_check_mode from monitor to enforce."
  filter = join(" AND ", [
    "resource.type=\"cloud_run_revision\"",
    "resource.labels.service_name=\"${local.presence_name}\"",
    "jsonPayload.component=\"api\"",
    "jsonPayload.appCheck:*",
  ])

  label_extractors = {
    reason = "EXTRACT(jsonPayload.appCheck)"
    mode   = "EXTRACT(jsonPayload.appCheckMode)"
  }

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    unit         = "1"
    display_name = "${var.name_prefix} API: requests without a valid App Check token"

    labels {
      key         = "reason"
      value_type  = "STRING"
      description = "missing (no X-Firebase-AppCheck header), invalid (the token did not verify) or unverified (App Check's keys could not be fetched)."
    }
    labels {
      key         = "mode"
      value_type  = "STRING"
      description = "ROOMLEASE_APP_CHECK when the request was served: monitor or enforce."
    }
  }

  depends_on = [google_project_service.enabled]
}
