# Metrics and alerts from the sweeper's report line.
#
# Once per run the sweeper prints one structured log line (Cloud Logging's
# JSON format on stdout), with jsonPayload.message = "sweep run" and its
# counters and timings as numeric jsonPayload fields. Log-based metrics turn
# those fields into time series; the alerts below watch them.
#
# Log-based metrics come in two kinds: counters, which count matching
# entries, and distributions, which collect one extracted number per entry.
# Every per-run number is therefore a distribution, labelled with the run's
# cleanup mode. The metrics are per run, not per room: cleanup lag is the
# run's maximum, which bounds every room the run deleted.

locals {
  # Gen 2 functions run as Cloud Run services and log as their revisions.
  sweep_report_filter = join(" AND ", [
    "resource.type=\"cloud_run_revision\"",
    "resource.labels.service_name=\"${local.sweep_name}\"",
    "jsonPayload.component=\"sweeper\"",
    "jsonPayload.message=\"sweep run\"",
  ])

  # Per-run values, one distribution metric each.
  sweep_distributions = {
    cleanup_lag = {
      field        = "cleanupLagMaxSeconds"
      unit         = "s"
      display_name = "${var.name_prefix} sweep: cleanup lag (max per run)"
      description  = "Per sweep run, the longest time between a deleted room's last departure and its deletion (the empty-room grace included)."
    }
    oldest_eligible_room_age = {
      field        = "oldestEligibleRoomAgeSeconds"
      unit         = "s"
      display_name = "${var.name_prefix} sweep: oldest eligible room age"
      description  = "Per sweep run, how long the oldest room that may be torn down has been waiting, measured after the run."
    }
    generation_conflicts = {
      field        = "generationConflicts"
      unit         = "1"
      display_name = "${var.name_prefix} sweep: generation conflicts per run"
      description  = "Per sweep run, teardown or expiry steps that found a newer generation and did nothing."
    }
    failed_steps = {
      field        = "failedSteps"
      unit         = "1"
      display_name = "${var.name_prefix} sweep: failed steps per run"
      description  = "Per sweep run, steps of a pass that failed to read or write (a failed step ends its pass; nothing is deleted without proof)."
    }
    rooms_purged = {
      field        = "roomsPurged"
      unit         = "1"
      display_name = "${var.name_prefix} sweep: rooms purged per run"
      description  = "Per sweep run, teardowns whose documents under the room were all deleted."
    }
    skipped_documents = {
      field        = "skippedDocuments"
      unit         = "1"
      display_name = "${var.name_prefix} sweep: skipped documents per run"
      description  = "Per sweep run, listed documents that are not presence data (another app's data in a shared collection group, a hand edit); each is logged with its path."
    }
  }

  # The rollout's evidence (docs/cleanup.md, "First deployment"): teardown
  # candidates and what became of them, one metric per slice, since a
  # log-based metric extracts one field. No room id is a label.
  rollout_counts = {
    candidates                 = "teardown candidates recorded"
    confirmed                  = "candidates whose room stayed empty through the reconnect window"
    reconnects_after_candidate = "candidates whose room was joined within the reconnect window"
    violations                 = "candidates whose room held a live lease at the check (must stay 0)"
  }
  rollout_fields = {
    candidates                 = "candidates"
    confirmed                  = "confirmed"
    reconnects_after_candidate = "reconnectsAfterCandidate"
    violations                 = "violations"
  }
  rollout_distributions = merge([
    for name, what in local.rollout_counts : {
      for slice in ["observed", "enforced"] : "${name}_${slice}" => {
        field        = "${local.rollout_fields[name]}${title(slice)}"
        unit         = "1"
        display_name = "${var.name_prefix} sweep: ${replace(name, "_", " ")} per run (${slice} slice)"
        description  = "Per sweep run, ${what}, in the ${slice} slice of rooms."
      }
    }
  ]...)

  metric_type_prefix = "logging.googleapis.com/user/"
}

resource "google_logging_metric" "sweep" {
  for_each = merge(local.sweep_distributions, local.rollout_distributions)

  project     = var.project_id
  name        = "${var.name_prefix}/sweep_${each.key}"
  description = each.value.description
  filter      = local.sweep_report_filter

  value_extractor = "EXTRACT(jsonPayload.${each.value.field})"
  label_extractors = {
    mode = "EXTRACT(jsonPayload.mode)"
  }

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = each.value.unit
    display_name = each.value.display_name

    labels {
      key         = "mode"
      value_type  = "STRING"
      description = "Cleanup mode of the run: enforce, observe or off."
    }
  }

  # 1, 2, 4 ... 8192: sub-second precision is not interesting, and
  # anything beyond two hours is simply "stuck".
  bucket_options {
    exponential_buckets {
      num_finite_buckets = 14
      growth_factor      = 2
      scale              = 1
    }
  }

  depends_on = [google_project_service.enabled]
}

# Counts runs, so that silence (no runs at all) can be alerted on.
resource "google_logging_metric" "sweep_runs" {
  project     = var.project_id
  name        = "${var.name_prefix}/sweep_runs"
  description = "Sweep runs that completed and reported."
  filter      = local.sweep_report_filter

  label_extractors = {
    mode = "EXTRACT(jsonPayload.mode)"
  }

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    unit         = "1"
    display_name = "${var.name_prefix} sweep: runs"

    labels {
      key         = "mode"
      value_type  = "STRING"
      description = "Cleanup mode of the run: enforce, observe or off."
    }
  }

  depends_on = [google_project_service.enabled]
}

# Counts runs that classified a candidate as a violation (a live lease in a
# room the check called empty), both slices together: what the alert below
# watches. A counter of runs, not a distribution, so that one violation among
# many runs is never averaged away.
resource "google_logging_metric" "sweep_violation_runs" {
  project     = var.project_id
  name        = "${var.name_prefix}/sweep_violation_runs"
  description = "Sweep runs that counted at least one teardown-candidate violation."
  filter      = "${local.sweep_report_filter} AND jsonPayload.violations>0"

  label_extractors = {
    mode = "EXTRACT(jsonPayload.mode)"
  }

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    unit         = "1"
    display_name = "${var.name_prefix} sweep: runs that counted a violation"

    labels {
      key         = "mode"
      value_type  = "STRING"
      description = "Cleanup mode of the run: enforce, observe or off."
    }
  }

  depends_on = [google_project_service.enabled]
}

locals {
  # Each alert names the runbook section that says what to do.
  runbook = "docs/runbook.md in the roomlease repository"

  # The sweeper measures cleanup lag from a room's last departure, so every
  # deleted room's lag includes the whole grace; the target is what may come
  # on top of it. Alerting on the target alone would fire on every teardown.
  cleanup_lag_limit_seconds = local.duration_seconds.empty_room_grace + var.cleanup_lag_target_seconds
}

# In observe and off modes nothing is deleted, so lag and eligible-room age
# grow by design; these two alerts look at enforce-mode runs only.
resource "google_monitoring_alert_policy" "cleanup_lag" {
  project               = var.project_id
  display_name          = "${var.name_prefix}: cleanup lag above target"
  combiner              = "OR"
  severity              = "WARNING"
  notification_channels = var.notification_channels

  conditions {
    display_name = "p95 of per-run max cleanup lag > ${local.cleanup_lag_limit_seconds}s (grace + target) for 15 min"
    condition_threshold {
      filter          = "metric.type=\"${local.metric_type_prefix}${google_logging_metric.sweep["cleanup_lag"].name}\" AND resource.type=\"cloud_run_revision\" AND metric.label.mode=\"enforce\""
      comparison      = "COMPARISON_GT"
      threshold_value = local.cleanup_lag_limit_seconds
      duration        = "900s"

      aggregations {
        alignment_period     = "900s"
        per_series_aligner   = "ALIGN_PERCENTILE_95"
        cross_series_reducer = "REDUCE_MAX"
      }

      # No runs in enforce mode is not lag; the sweeper-silent alert covers
      # runs stopping altogether.
      evaluation_missing_data = "EVALUATION_MISSING_DATA_INACTIVE"
    }
  }

  documentation {
    subject   = "${var.name_prefix}: empty rooms are deleted late"
    mime_type = "text/markdown"
    content   = "Empty rooms wait more than ${var.cleanup_lag_target_seconds}s after their grace before the sweeper deletes them. See \"Rising cleanup lag\" in ${local.runbook}."
  }
}

resource "google_monitoring_alert_policy" "oldest_eligible_room" {
  project               = var.project_id
  display_name          = "${var.name_prefix}: eligible room not torn down"
  combiner              = "OR"
  severity              = "ERROR"
  notification_channels = var.notification_channels

  conditions {
    display_name = "oldest eligible room older than ${var.oldest_eligible_room_age_limit_seconds}s"
    condition_threshold {
      filter          = "metric.type=\"${local.metric_type_prefix}${google_logging_metric.sweep["oldest_eligible_room_age"].name}\" AND resource.type=\"cloud_run_revision\" AND metric.label.mode=\"enforce\""
      comparison      = "COMPARISON_GT"
      threshold_value = var.oldest_eligible_room_age_limit_seconds
      duration        = "300s"

      # The 99th percentile of a handful of runs is their maximum.
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }

      evaluation_missing_data = "EVALUATION_MISSING_DATA_INACTIVE"
    }
  }

  documentation {
    subject   = "${var.name_prefix}: a room eligible for teardown is not being deleted"
    mime_type = "text/markdown"
    content   = "A room has been eligible for teardown for more than ${var.oldest_eligible_room_age_limit_seconds}s in enforce mode. See \"Rising cleanup lag\" and \"Failing sweep steps\" in ${local.runbook}."
  }
}

resource "google_monitoring_alert_policy" "failed_steps" {
  project               = var.project_id
  display_name          = "${var.name_prefix}: sweep steps failing"
  combiner              = "OR"
  severity              = "ERROR"
  notification_channels = var.notification_channels

  conditions {
    display_name = "failed sweep steps in every 5-minute window for 10 min"
    condition_threshold {
      filter          = "metric.type=\"${local.metric_type_prefix}${google_logging_metric.sweep["failed_steps"].name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "600s"

      # Failures are never negative, so the mean over a window is above zero
      # exactly when some run in it had a failed step. A single failing run
      # is noise; failures in every window for ten minutes are not.
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_MEAN"
        cross_series_reducer = "REDUCE_MAX"
      }

      evaluation_missing_data = "EVALUATION_MISSING_DATA_INACTIVE"
    }
  }

  documentation {
    subject   = "${var.name_prefix}: the sweeper keeps failing steps"
    mime_type = "text/markdown"
    content   = "Sweep runs keep failing to read or write Firestore (failedSteps). Nothing is deleted without proof while this lasts (teardown fails closed), so expired leases and empty rooms accumulate. See \"Failing sweep steps\" in ${local.runbook}."
  }
}

resource "google_monitoring_alert_policy" "generation_conflicts" {
  project               = var.project_id
  display_name          = "${var.name_prefix}: generation-conflict spike"
  combiner              = "OR"
  severity              = "WARNING"
  notification_channels = var.notification_channels

  conditions {
    display_name = "a sweep run met more than ${var.generation_conflict_spike_threshold} generation conflicts"
    condition_threshold {
      filter          = "metric.type=\"${local.metric_type_prefix}${google_logging_metric.sweep["generation_conflicts"].name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = var.generation_conflict_spike_threshold
      duration        = "0s"

      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }

      evaluation_missing_data = "EVALUATION_MISSING_DATA_INACTIVE"
    }
  }

  documentation {
    subject   = "${var.name_prefix}: many sweeper steps lose to concurrent changes"
    mime_type = "text/markdown"
    content   = "A sweep run found more than ${var.generation_conflict_spike_threshold} rooms or sessions whose generation changed under it. See \"A spike in generation conflicts\" in ${local.runbook}."
  }
}

resource "google_monitoring_alert_policy" "sweeper_silent" {
  project               = var.project_id
  display_name          = "${var.name_prefix}: sweeper not reporting"
  combiner              = "OR"
  severity              = "ERROR"
  notification_channels = var.notification_channels

  conditions {
    display_name = "no sweep run reported for 10 min"
    condition_absent {
      filter   = "metric.type=\"${local.metric_type_prefix}${google_logging_metric.sweep_runs.name}\" AND resource.type=\"cloud_run_revision\""
      duration = "600s"

      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  documentation {
    subject   = "${var.name_prefix}: the sweeper has stopped"
    mime_type = "text/markdown"
    content   = "No sweep run has reported for 10 minutes: leases are not expired and rooms are not torn down. Check the Cloud Scheduler job ${google_cloud_scheduler_job.sweep.name} and the ${local.sweep_name} function's logs. See ${local.runbook}."
  }
}

# A violation is a room the authoritative check called empty while a
# session of it held a live lease: the proof of absence was wrong. It must
# never happen, in any mode or slice, so one is enough to page.
resource "google_monitoring_alert_policy" "teardown_violation" {
  project               = var.project_id
  display_name          = "${var.name_prefix}: teardown candidate held a live lease"
  combiner              = "OR"
  severity              = "CRITICAL"
  notification_channels = var.notification_channels

  conditions {
    display_name = "a sweep run counted a teardown-candidate violation"
    condition_threshold {
      filter          = "metric.type=\"${local.metric_type_prefix}${google_logging_metric.sweep_violation_runs.name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"

      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }

      evaluation_missing_data = "EVALUATION_MISSING_DATA_INACTIVE"
    }
  }

  documentation {
    subject   = "${var.name_prefix}: a room was (or would have been) torn down while someone held a live lease"
    mime_type = "text/markdown"
    content   = "A sweep run classified a teardown candidate as a violation. Set roomlease/config cleanupMode to \"off\" now, keep the candidate record and the room's documents, and see \"A violation was counted\" in ${local.runbook}."
  }
}

# Alerts without channels open incidents in the console and tell nobody. That
# is the default (there is no channel to default to), so say it at every plan
# and apply rather than let an operator find out during an outage. A check
# only warns: a staging instance may want no notifications.
check "alerts_notify_someone" {
  assert {
    condition     = length(var.notification_channels) > 0
    error_message = "notification_channels is empty: the ${var.name_prefix} alert policies will open incidents but notify nobody. Set notification_channels (docs/runbook.md, \"Alerts\")."
  }
}
