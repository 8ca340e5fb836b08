# The functions, their identities and invokers, the scheduler and alerting.

mock_provider "google" {
  source = "./tests/mocks"
}

variables {
  project_id     = "roomlease-test"
  source_archive = "tests/fixtures/empty-source.zip"
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
    })
    error_message = "Presence environment: ${jsonencode(google_cloudfunctions2_function.presence.service_config[0].environment_variables)}"
  }

  assert {
    # Sweep sees the same settings as Presence, plus its budget, and logs
    # its per-room lines (debug) for the observe-mode review.
    condition = google_cloudfunctions2_function.sweep.service_config[0].environment_variables == tomap(merge(
      google_cloudfunctions2_function.presence.service_config[0].environment_variables,
      { ROOMLEASE_SWEEP_BUDGET = "55s", ROOMLEASE_LOG_LEVEL = "debug" },
    ))
    error_message = "Sweep environment must be Presence's plus ROOMLEASE_SWEEP_BUDGET and a debug log level: ${jsonencode(google_cloudfunctions2_function.sweep.service_config[0].environment_variables)}"
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
    condition     = toset(keys(google_logging_metric.sweep)) == toset(["cleanup_lag", "oldest_eligible_room_age", "generation_conflicts", "failed_steps", "rooms_purged", "skipped_documents"])
    error_message = "Expected distribution metrics for cleanup lag, oldest eligible room age, generation conflicts, failed steps and purged rooms."
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
