# The functions, their identities and invokers, the scheduler and alerting.

mock_provider "google" {
  source = "./tests/mocks"
}

variables {
  project_id     = "roomlease-test"
  source_archive = "tests/fixtures/empty-source.zip"

  # With no channel, the check alerts_notify_someone fails, and a failed
  # check fails a test run; the run that expects it is in functions.tftest.hcl.
  notification_channels = ["projects/roomlease-test/notificationChannels/123"]
}

# Computed attributes of a mock are random strings; pinning the service
# accounts' identities lets the runs below tell the accounts apart.
override_resource {
  target = google_service_account.presence
  values = {
    email  = "roomlease-presence@roomlease-test.iam.gserviceaccount.com"
    member = "serviceAccount:roomlease-presence@roomlease-test.iam.gserviceaccount.com"
  }
}

override_resource {
  target = google_service_account.sweep
  values = {
    email  = "roomlease-sweep@roomlease-test.iam.gserviceaccount.com"
    member = "serviceAccount:roomlease-sweep@roomlease-test.iam.gserviceaccount.com"
  }
}

override_resource {
  target = google_service_account.scheduler
  values = {
    email  = "roomlease-scheduler@roomlease-test.iam.gserviceaccount.com"
    member = "serviceAccount:roomlease-scheduler@roomlease-test.iam.gserviceaccount.com"
  }
}

override_resource {
  target = google_service_account.build
  values = {
    email  = "roomlease-build@roomlease-test.iam.gserviceaccount.com"
    member = "serviceAccount:roomlease-build@roomlease-test.iam.gserviceaccount.com"
    id     = "projects/roomlease-test/serviceAccounts/roomlease-build@roomlease-test.iam.gserviceaccount.com"
  }
}

override_resource {
  target = google_cloudfunctions2_function.sweep
  values = {
    url            = "https://us-central1-roomlease-test.cloudfunctions.net/roomlease-sweep"
    service_config = { uri = "https://roomlease-sweep-abc123-uc.a.run.app" }
  }
}

run "environment_from_variables" {
  assert {
    condition = google_cloudfunctions2_function.presence.service_config[0].environment_variables == tomap({
      ROOMLEASE_PROJECT_ID            = "roomlease-test"
      ROOMLEASE_DATABASE              = "roomlease"
      ROOMLEASE_HEARTBEAT_INTERVAL    = "5s"
      ROOMLEASE_LEASE                 = "15s"
      ROOMLEASE_EMPTY_ROOM_GRACE      = "30s"
      ROOMLEASE_MAX_PARTICIPANTS      = "1000"
      ROOMLEASE_LARGE_ROOM_THRESHOLD  = "500"
      ROOMLEASE_RECORD_HORIZON        = "720h"
      ROOMLEASE_SESSION_RETENTION     = "24h"
      ROOMLEASE_ALLOWED_ORIGINS       = "*"
      ROOMLEASE_CLEANUP_MODE          = "observe"
      ROOMLEASE_LOG_LEVEL             = "info"
      ROOMLEASE_APP_CHECK             = "monitor"
      ROOMLEASE_RATE_LIMIT            = "5"
      ROOMLEASE_RATE_BURST            = "30"
      ROOMLEASE_IP_RATE_LIMIT         = "100"
      ROOMLEASE_IP_RATE_BURST         = "200"
      ROOMLEASE_AUTH_LOOKUP_RATE      = "100"
      ROOMLEASE_AUTH_LOOKUP_BURST     = "200"
      ROOMLEASE_MAX_SESSIONS_PER_USER = "10"
      ROOMLEASE_MAX_ROOMS_PER_USER    = "20"
      # The rest of functions/config, at the functions' own defaults
      # (ROOMLEASE_RENEW_WHEN_LEFT unset: the server derives it).
      ROOMLEASE_REVISION_SHARDS        = "16"
      ROOMLEASE_MAX_STATE_BYTES        = "1024"
      ROOMLEASE_AWAY_LEASE             = "2m"
      ROOMLEASE_AWAY_HEARTBEAT         = "50s"
      ROOMLEASE_RECENTLY_LEFT          = "2m"
      ROOMLEASE_TYPING_EXPIRY          = "7s"
      ROOMLEASE_CLOSING_RETENTION      = "720h"
      ROOMLEASE_ARCHIVE_RECEIPTS       = "false"
      ROOMLEASE_CLIENT_NAMES           = "identity"
      ROOMLEASE_LEASE_INDEX            = "single"
      ROOMLEASE_POLICY_CACHE           = "2m"
      ROOMLEASE_REVOCATION_CHECK_EVERY = "30s"
      ROOMLEASE_STATE_RATE_LIMIT       = "1"
      ROOMLEASE_STATE_RATE_BURST       = "5"
      ROOMLEASE_SWEEP_MAX_PAUSE        = "5s"
      ROOMLEASE_SWEEP_BATCH            = "200"
      ROOMLEASE_SWEEP_CONCURRENCY      = "8"
    })
    error_message = "Presence environment: ${jsonencode(google_cloudfunctions2_function.presence.service_config[0].environment_variables)}"
  }

  assert {
    # Sweep sees the same settings as Presence, plus its budget, and logs
    # its per-room lines (debug) for the observe-mode review.
    condition = google_cloudfunctions2_function.sweep.service_config[0].environment_variables == tomap(merge(
      google_cloudfunctions2_function.presence.service_config[0].environment_variables,
      { ROOMLEASE_SWEEP_BUDGET = "55s", ROOMLEASE_LOG_LEVEL = "debug", ROOMLEASE_ENFORCE_SHARE = "100" },
    ))
    error_message = "Sweep environment must be Presence's plus ROOMLEASE_SWEEP_BUDGET, a debug log level and the enforced share: ${jsonencode(google_cloudfunctions2_function.sweep.service_config[0].environment_variables)}"
  }
}

run "first_deployment_observes" {
  assert {
    condition     = output.cleanup_mode == "observe"
    error_message = "A deployment with default variables must not delete rooms (cleanup_mode observe)."
  }
}

run "per_user_caps_reach_both_functions" {
  variables {
    max_sessions_per_user = 3
    max_rooms_per_user    = 50
  }

  assert {
    condition = alltrue([
      for f in [google_cloudfunctions2_function.presence, google_cloudfunctions2_function.sweep] :
      f.service_config[0].environment_variables["ROOMLEASE_MAX_SESSIONS_PER_USER"] == "3" &&
      f.service_config[0].environment_variables["ROOMLEASE_MAX_ROOMS_PER_USER"] == "50"
    ])
    error_message = "The per-user caps must reach both functions' environment."
  }
}

run "settings_reach_both_functions" {
  variables {
    heartbeat_interval = "2s"
    lease              = "6s"
    cleanup_mode       = "enforce"
    allowed_origins    = "https://app.example.com,https://admin.example.com"
    max_participants   = 50
  }

  assert {
    condition = alltrue([
      for f in [google_cloudfunctions2_function.presence, google_cloudfunctions2_function.sweep] :
      f.service_config[0].environment_variables["ROOMLEASE_HEARTBEAT_INTERVAL"] == "2s" &&
      f.service_config[0].environment_variables["ROOMLEASE_LEASE"] == "6s" &&
      f.service_config[0].environment_variables["ROOMLEASE_CLEANUP_MODE"] == "enforce" &&
      f.service_config[0].environment_variables["ROOMLEASE_MAX_PARTICIPANTS"] == "50" &&
      f.service_config[0].environment_variables["ROOMLEASE_ALLOWED_ORIGINS"] == "https://app.example.com,https://admin.example.com"
    ])
    error_message = "Variables must reach both functions' environment."
  }
}

run "build_from_uploaded_archive" {
  assert {
    condition     = google_storage_bucket_object.source.name == "roomlease-source-${filemd5("tests/fixtures/empty-source.zip")}.zip"
    error_message = "The source object's name must carry the archive's MD5, so that a new archive redeploys: got ${google_storage_bucket_object.source.name}."
  }

  assert {
    condition = alltrue([
      for f in [google_cloudfunctions2_function.presence, google_cloudfunctions2_function.sweep] :
      f.build_config[0].runtime == "go126" &&
      f.build_config[0].source[0].storage_source[0].object == google_storage_bucket_object.source.name &&
      f.build_config[0].source[0].storage_source[0].bucket == google_storage_bucket.source.name &&
      f.build_config[0].service_account == google_service_account.build.id &&
      f.build_config[0].docker_repository == google_artifact_registry_repository.functions.id
    ])
    error_message = "Both functions must be built with go126 from the uploaded archive by the build account, into roomlease's repository."
  }

  assert {
    condition = (
      google_cloudfunctions2_function.presence.build_config[0].entry_point == "Presence" &&
      google_cloudfunctions2_function.sweep.build_config[0].entry_point == "Sweep"
    )
    error_message = "Entry points must be Presence and Sweep."
  }
}

run "least_privilege_identities" {
  assert {
    condition = (
      google_cloudfunctions2_function.presence.service_config[0].service_account_email == "roomlease-presence@roomlease-test.iam.gserviceaccount.com" &&
      google_cloudfunctions2_function.sweep.service_config[0].service_account_email == "roomlease-sweep@roomlease-test.iam.gserviceaccount.com"
    )
    error_message = "Each function must run as its own service account."
  }

  assert {
    condition = (
      google_project_iam_member.presence_firestore.role == "roles/datastore.user" &&
      google_project_iam_member.presence_firestore.member == google_service_account.presence.member &&
      google_project_iam_member.sweep_firestore.role == "roles/datastore.user" &&
      google_project_iam_member.sweep_firestore.member == google_service_account.sweep.member
    )
    error_message = "Both runtime accounts need roles/datastore.user, and nothing here grants them more."
  }

  assert {
    # The revocation check looks users up (firebaseauth.users.get).
    condition = (
      google_project_iam_member.presence_auth_viewer.role == "roles/firebaseauth.viewer" &&
      google_project_iam_member.presence_auth_viewer.member == google_service_account.presence.member
    )
    error_message = "Presence needs roles/firebaseauth.viewer for the revocation check, and only Presence."
  }

  assert {
    # IAM conditions on Firestore can name a database, nothing finer.
    condition = alltrue([
      for g in [google_project_iam_member.presence_firestore, google_project_iam_member.sweep_firestore] :
      length(g.condition) == 1 && g.condition[0].expression == "resource.name == \"projects/roomlease-test/databases/roomlease\""
    ])
    error_message = "The runtime accounts' Firestore access must be conditioned on roomlease's database."
  }

  assert {
    # Every project-level grant to a roomlease account, by role.
    condition = {
      for g in [
        google_project_iam_member.presence_firestore,
        google_project_iam_member.presence_auth_viewer,
        google_project_iam_member.sweep_firestore,
        google_project_iam_member.build_logs,
        google_project_iam_member.build_sources,
      ] : "${g.member} ${g.role}" => length(g.condition)
      } == {
      "serviceAccount:roomlease-presence@roomlease-test.iam.gserviceaccount.com roles/datastore.user"      = 1
      "serviceAccount:roomlease-presence@roomlease-test.iam.gserviceaccount.com roles/firebaseauth.viewer" = 0
      "serviceAccount:roomlease-sweep@roomlease-test.iam.gserviceaccount.com roles/datastore.user"         = 1
      "serviceAccount:roomlease-build@roomlease-test.iam.gserviceaccount.com roles/logging.logWriter"      = 0
      "serviceAccount:roomlease-build@roomlease-test.iam.gserviceaccount.com roles/storage.objectAdmin"    = 1
    }
    error_message = "Unexpected project-level grants (or conditions) for the roomlease accounts."
  }
}

run "build_account_scoped_to_its_resources" {
  assert {
    condition = (
      google_artifact_registry_repository_iam_member.build_push.role == "roles/artifactregistry.writer" &&
      google_artifact_registry_repository_iam_member.build_push.member == google_service_account.build.member &&
      google_artifact_registry_repository_iam_member.build_push.repository == google_artifact_registry_repository.functions.name
    )
    error_message = "The build account may push to roomlease's repository only."
  }

  assert {
    condition = (
      strcontains(google_project_iam_member.build_sources.condition[0].expression, "resource.name == \"projects/_/buckets/roomlease-test-roomlease-source\"") &&
      strcontains(google_project_iam_member.build_sources.condition[0].expression, "resource.name.startsWith(\"projects/_/buckets/roomlease-test-roomlease-source/\")") &&
      strcontains(google_project_iam_member.build_sources.condition[0].expression, "resource.name.startsWith(\"projects/_/buckets/gcf-v2-sources-\")")
    )
    error_message = "The build account's storage access must be limited to the source buckets: ${google_project_iam_member.build_sources.condition[0].expression}"
  }
}

run "presence_is_public_sweep_is_not" {
  assert {
    condition = (
      google_cloud_run_service_iam_member.presence_public.service == "roomlease-presence" &&
      google_cloud_run_service_iam_member.presence_public.member == "allUsers" &&
      google_cloud_run_service_iam_member.presence_public.role == "roles/run.invoker" &&
      google_cloudfunctions2_function.presence.service_config[0].ingress_settings == "ALLOW_ALL"
    )
    error_message = "Presence must be invokable by anyone: authentication is in the app."
  }

  assert {
    condition = (
      [for m in [google_cloud_run_service_iam_member.presence_public, google_cloud_run_service_iam_member.sweep_scheduler] : m.member if m.service == "roomlease-sweep"]
      == ["serviceAccount:roomlease-scheduler@roomlease-test.iam.gserviceaccount.com"]
    )
    error_message = "Sweep's only invoker must be the scheduler's service account."
  }

  assert {
    condition     = google_cloudfunctions2_function.sweep.service_config[0].ingress_settings == "ALLOW_INTERNAL_ONLY"
    error_message = "Sweep must not be reachable from outside the project."
  }
}

run "scheduler_runs_sweep_every_minute" {
  assert {
    condition     = google_cloud_scheduler_job.sweep.schedule == "* * * * *"
    error_message = "The sweeper must be scheduled every minute, got ${google_cloud_scheduler_job.sweep.schedule}."
  }

  assert {
    condition = (
      google_cloud_scheduler_job.sweep.http_target[0].uri == "https://roomlease-sweep-abc123-uc.a.run.app" &&
      google_cloud_scheduler_job.sweep.http_target[0].oidc_token[0].service_account_email == "roomlease-scheduler@roomlease-test.iam.gserviceaccount.com" &&
      google_cloud_scheduler_job.sweep.http_target[0].oidc_token[0].audience == "https://roomlease-sweep-abc123-uc.a.run.app"
    )
    error_message = "The job must call Sweep's URL with an OIDC token of the scheduler's account."
  }

  assert {
    # attempt_deadline >= budget; the Sweep precondition keeps budget + 10s <= timeout.
    condition = (
      google_cloud_scheduler_job.sweep.attempt_deadline == "70s" &&
      google_cloudfunctions2_function.sweep.service_config[0].timeout_seconds == 70 &&
      google_cloudfunctions2_function.sweep.service_config[0].max_instance_count <= 5
    )
    error_message = "Scheduler must wait as long as a run may take (70s), and Sweep must scale to a few instances at most."
  }
}

run "alerts_on_sweeper_metrics" {
  variables {
    notification_channels = ["projects/roomlease-test/notificationChannels/123"]
  }

  assert {
    condition = toset(keys(google_logging_metric.sweep)) == toset(["cleanup_lag", "oldest_eligible_room_age", "generation_conflicts", "failed_steps", "rooms_purged", "skipped_documents",
      "candidates_observed", "candidates_enforced", "confirmed_observed", "confirmed_enforced",
    "reconnects_after_candidate_observed", "reconnects_after_candidate_enforced", "violations_observed", "violations_enforced"])
    error_message = "Expected distribution metrics for cleanup lag, oldest eligible room age, generation conflicts, failed steps, purged rooms and the rollout's counts by slice."
  }

  assert {
    # The rollout's counts come from the report line's per-slice fields.
    condition = (
      google_logging_metric.sweep["reconnects_after_candidate_observed"].value_extractor == "EXTRACT(jsonPayload.reconnectsAfterCandidateObserved)" &&
      google_logging_metric.sweep["confirmed_enforced"].value_extractor == "EXTRACT(jsonPayload.confirmedEnforced)" &&
      google_logging_metric.sweep["violations_enforced"].value_extractor == "EXTRACT(jsonPayload.violationsEnforced)"
    )
    error_message = "The rollout's metrics must extract the report line's per-slice counts."
  }

  assert {
    # One violation pages: the alert counts runs whose report counted any.
    condition = (
      strcontains(google_logging_metric.sweep_violation_runs.filter, "jsonPayload.violations>0") &&
      strcontains(google_logging_metric.sweep_violation_runs.filter, "jsonPayload.message=\"sweep run\"") &&
      google_monitoring_alert_policy.teardown_violation.conditions[0].condition_threshold[0].threshold_value == 0 &&
      google_monitoring_alert_policy.teardown_violation.conditions[0].condition_threshold[0].duration == "0s" &&
      strcontains(google_monitoring_alert_policy.teardown_violation.conditions[0].condition_threshold[0].filter, "roomlease/sweep_violation_runs") &&
      google_monitoring_alert_policy.teardown_violation.notification_channels == tolist(["projects/roomlease-test/notificationChannels/123"])
    )
    error_message = "A run that counted a violation must fire the teardown-violation alert at once, to the configured channels."
  }

  assert {
    condition = (
      google_logging_metric.sweep["failed_steps"].name == "roomlease/sweep_failed_steps" &&
      google_logging_metric.sweep["failed_steps"].value_extractor == "EXTRACT(jsonPayload.failedSteps)" &&
      google_logging_metric.sweep["rooms_purged"].value_extractor == "EXTRACT(jsonPayload.roomsPurged)"
    )
    error_message = "The failed-steps metric must be roomlease/sweep_failed_steps from failedSteps; purged rooms come from roomsPurged."
  }

  assert {
    condition = alltrue([
      for m in concat(values(google_logging_metric.sweep), [google_logging_metric.sweep_runs]) :
      strcontains(m.filter, "jsonPayload.message=\"sweep run\"") && strcontains(m.filter, "resource.labels.service_name=\"roomlease-sweep\"")
    ])
    error_message = "Every sweeper metric must read the sweeper's report line."
  }

  assert {
    condition     = google_logging_metric.sweep["cleanup_lag"].value_extractor == "EXTRACT(jsonPayload.cleanupLagMaxSeconds)"
    error_message = "The cleanup-lag metric must extract cleanupLagMaxSeconds."
  }

  assert {
    condition = alltrue([
      for p in [
        google_monitoring_alert_policy.cleanup_lag,
        google_monitoring_alert_policy.oldest_eligible_room,
        google_monitoring_alert_policy.failed_steps,
        google_monitoring_alert_policy.generation_conflicts,
        google_monitoring_alert_policy.sweeper_silent,
      ] : p.notification_channels == tolist(["projects/roomlease-test/notificationChannels/123"])
    ])
    error_message = "Every alert must notify the configured channels."
  }

  assert {
    # Lag counts from the last departure: 30s grace + 30s target.
    condition     = google_monitoring_alert_policy.cleanup_lag.conditions[0].condition_threshold[0].threshold_value == 60
    error_message = "The cleanup-lag alert must fire above empty_room_grace + cleanup_lag_target_seconds."
  }
}

run "outputs" {
  assert {
    condition = (
      output.api_url == google_cloudfunctions2_function.presence.url &&
      output.sweep_url == "https://roomlease-sweep-abc123-uc.a.run.app" &&
      output.service_accounts.scheduler == "roomlease-scheduler@roomlease-test.iam.gserviceaccount.com"
    )
    error_message = "Outputs must expose the function URLs and the service accounts."
  }
}

run "app_check_and_rate_limit_reach_the_api" {
  variables {
    app_check_mode    = "enforce"
    rate_limit        = 0.5
    rate_burst        = 4
    ip_rate_limit     = 0
    ip_rate_burst     = 9
    auth_lookup_rate  = 2.5
    auth_lookup_burst = 7
  }

  assert {
    condition = (
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_APP_CHECK"] == "enforce" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_RATE_LIMIT"] == "0.5" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_RATE_BURST"] == "4" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_IP_RATE_LIMIT"] == "0" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_IP_RATE_BURST"] == "9" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_AUTH_LOOKUP_RATE"] == "2.5" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_AUTH_LOOKUP_BURST"] == "7"
    )
    error_message = "app_check_mode, the rate limits and the lookup budget must reach the API's environment: ${jsonencode(google_cloudfunctions2_function.presence.service_config[0].environment_variables)}"
  }
}

run "app_check_failures_counted" {
  assert {
    condition = (
      google_logging_metric.app_check_failures.name == "roomlease/app_check_failures" &&
      strcontains(google_logging_metric.app_check_failures.filter, "resource.labels.service_name=\"roomlease-presence\"") &&
      strcontains(google_logging_metric.app_check_failures.filter, "jsonPayload.appCheck:*") &&
      google_logging_metric.app_check_failures.label_extractors["reason"] == "EXTRACT(jsonPayload.appCheck)" &&
      google_logging_metric.app_check_failures.label_extractors["mode"] == "EXTRACT(jsonPayload.appCheckMode)" &&
      google_logging_metric.app_check_failures.metric_descriptor[0].value_type == "INT64"
    )
    error_message = "roomlease/app_check_failures must count the API's lines with an appCheck field, by reason and mode."
  }
}

run "every_setting_reaches_both_functions" {
  variables {
    renew_when_left        = 0.8
    revision_shards        = 32
    max_state_bytes        = 2048
    away_lease             = "3m"
    away_heartbeat         = "1m"
    recently_left          = "0s"
    typing_expiry          = "5s"
    closing_retention      = "48h"
    archive_receipts       = true
    client_names           = "allow"
    policy_cache           = "0s"
    revocation_check_every = "45s"
    state_rate_limit       = 0
    state_rate_burst       = 9
    sweep_max_pause        = "2s"
    sweep_batch            = 50
    sweep_concurrency      = 3
    min_client_versions    = "js/0.2.0,go/0.1.0"
  }

  assert {
    condition = alltrue([
      for f in [google_cloudfunctions2_function.presence, google_cloudfunctions2_function.sweep] :
      f.service_config[0].environment_variables["ROOMLEASE_RENEW_WHEN_LEFT"] == "0.8" &&
      f.service_config[0].environment_variables["ROOMLEASE_REVISION_SHARDS"] == "32" &&
      f.service_config[0].environment_variables["ROOMLEASE_MAX_STATE_BYTES"] == "2048" &&
      f.service_config[0].environment_variables["ROOMLEASE_AWAY_LEASE"] == "3m" &&
      f.service_config[0].environment_variables["ROOMLEASE_AWAY_HEARTBEAT"] == "1m" &&
      f.service_config[0].environment_variables["ROOMLEASE_RECENTLY_LEFT"] == "0s" &&
      f.service_config[0].environment_variables["ROOMLEASE_TYPING_EXPIRY"] == "5s" &&
      f.service_config[0].environment_variables["ROOMLEASE_CLOSING_RETENTION"] == "48h" &&
      f.service_config[0].environment_variables["ROOMLEASE_ARCHIVE_RECEIPTS"] == "true" &&
      f.service_config[0].environment_variables["ROOMLEASE_CLIENT_NAMES"] == "allow" &&
      f.service_config[0].environment_variables["ROOMLEASE_POLICY_CACHE"] == "0s" &&
      f.service_config[0].environment_variables["ROOMLEASE_REVOCATION_CHECK_EVERY"] == "45s" &&
      f.service_config[0].environment_variables["ROOMLEASE_STATE_RATE_LIMIT"] == "0" &&
      f.service_config[0].environment_variables["ROOMLEASE_STATE_RATE_BURST"] == "9" &&
      f.service_config[0].environment_variables["ROOMLEASE_SWEEP_MAX_PAUSE"] == "2s" &&
      f.service_config[0].environment_variables["ROOMLEASE_SWEEP_BATCH"] == "50" &&
      f.service_config[0].environment_variables["ROOMLEASE_SWEEP_CONCURRENCY"] == "3" &&
      f.service_config[0].environment_variables["ROOMLEASE_MIN_CLIENT_VERSION"] == "js/0.2.0,go/0.1.0"
    ])
    error_message = "Every setting must reach both functions: ${jsonencode(google_cloudfunctions2_function.presence.service_config[0].environment_variables)}"
  }
}

# --- The source archive ------------------------------------------------------

run "first_deploy_uploads_the_archive" {
  assert {
    condition     = output.source_object_name == "roomlease-source-${filemd5("tests/fixtures/empty-source.zip")}.zip"
    error_message = "The uploaded object must be named after the archive's MD5: ${output.source_object_name}"
  }
}

# The deployed object's name, without the archive: nothing is uploaded, and
# the functions' source stays what it was, so nothing is rebuilt.
run "plan_without_archive_keeps_the_deployed_source" {
  command = plan

  variables {
    source_archive = null
    source_object  = run.first_deploy_uploads_the_archive.source_object_name
  }

  assert {
    condition = alltrue([
      for f in [google_cloudfunctions2_function.presence, google_cloudfunctions2_function.sweep] :
      f.build_config[0].source[0].storage_source[0].object == run.first_deploy_uploads_the_archive.source_object_name
    ])
    error_message = "Without an archive, both functions must build from source_object."
  }

  assert {
    # ignore_changes keeps the recorded source path instead of planning a
    # change to null: the plan leaves the object exactly as it is.
    condition     = google_storage_bucket_object.source.name == run.first_deploy_uploads_the_archive.source_object_name && google_storage_bucket_object.source.source == "tests/fixtures/empty-source.zip"
    error_message = "Without an archive, the object must stay as deployed (same name, no change planned to its source)."
  }
}

run "no_source_at_all_is_refused_at_plan" {
  command = plan

  variables {
    source_archive = null
  }

  expect_failures = [google_storage_bucket_object.source]
}

# --- The lease-token key -----------------------------------------------------

run "no_lease_token_key_no_secret" {
  command = plan

  assert {
    condition = (
      length(google_secret_manager_secret.lease_token_key) == 0 &&
      length(google_secret_manager_secret_iam_member.lease_token_key) == 0 &&
      length(google_project_service.secretmanager) == 0 &&
      length(google_cloudfunctions2_function.presence.service_config[0].secret_environment_variables) == 0
    )
    error_message = "Without lease_token_key, nothing of Secret Manager is deployed."
  }
}

run "lease_token_key_shared_by_both_functions" {
  variables {
    lease_token_key = "0123456789abcdef0123456789abcdef-test-key"
  }

  assert {
    condition = (
      google_secret_manager_secret.lease_token_key[0].secret_id == "roomlease-lease-token-key" &&
      google_secret_manager_secret_version.lease_token_key[0].secret == google_secret_manager_secret.lease_token_key[0].id &&
      google_project_service.secretmanager[0].service == "secretmanager.googleapis.com"
    )
    error_message = "The key must be a secret named after the prefix, with a version, and the Secret Manager API enabled."
  }

  assert {
    condition = alltrue([
      for f in [google_cloudfunctions2_function.presence, google_cloudfunctions2_function.sweep] :
      length(f.service_config[0].secret_environment_variables) == 1 &&
      f.service_config[0].secret_environment_variables[0].key == "ROOMLEASE_LEASE_TOKEN_KEY" &&
      f.service_config[0].secret_environment_variables[0].secret == "roomlease-lease-token-key" &&
      f.service_config[0].secret_environment_variables[0].version == "latest" &&
      !contains(keys(f.service_config[0].environment_variables), "ROOMLEASE_LEASE_TOKEN_KEY")
    ])
    error_message = "Both functions must read the key from the secret, never from a plain environment variable."
  }

  assert {
    condition = {
      for k, m in google_secret_manager_secret_iam_member.lease_token_key : m.member => m.role
      } == {
      "serviceAccount:roomlease-presence@roomlease-test.iam.gserviceaccount.com" = "roles/secretmanager.secretAccessor"
      "serviceAccount:roomlease-sweep@roomlease-test.iam.gserviceaccount.com"    = "roles/secretmanager.secretAccessor"
    }
    error_message = "Exactly the two runtime accounts may read the key."
  }
}

# --- Notifications -----------------------------------------------------------

run "alerts_without_channels_warn" {
  command = plan

  variables {
    notification_channels = []
  }

  # A warning at plan and apply; under terraform test a failed check fails
  # the run unless it is expected, which is how this asserts it fires.
  expect_failures = [check.alerts_notify_someone]
}

# --- Instances -----------------------------------------------------------------

run "every_name_derives_from_the_prefix" {
  command = plan

  variables {
    name_prefix = "staging"
  }

  assert {
    condition = alltrue(flatten([
      for kind, names in output.names : [for n in names : startswith(n, "staging") || startswith(n, "roomlease-test-staging-") || n == "cloud.firestore/staging"]
    ]))
    error_message = "Every name must start with the prefix: ${jsonencode(output.names)}"
  }
}

run "rollout_settings_reach_the_sweeper" {
  variables {
    enforce_share_percent = 0.5
    reconnect_window      = "2m"
  }

  assert {
    condition = (
      google_cloudfunctions2_function.sweep.service_config[0].environment_variables["ROOMLEASE_ENFORCE_SHARE"] == "0.5" &&
      google_cloudfunctions2_function.sweep.service_config[0].environment_variables["ROOMLEASE_RECONNECT_WINDOW"] == "2m" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_RECONNECT_WINDOW"] == "2m"
    )
    error_message = "enforce_share_percent must reach the Sweep function's environment, and reconnect_window both functions'."
  }
}
