# Bad inputs fail at plan time, with the same rules the functions apply at
# start-up, instead of deploying a function that cannot start.

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

run "defaults_plan" {
  command = plan
}

run "rejects_project_name" {
  command = plan
  variables { project_id = "My Project" }
  expect_failures = [var.project_id]
}

run "rejects_zone_as_region" {
  command = plan
  variables { region = "us-central1-a" }
  expect_failures = [var.region]
}

run "rejects_bad_database_id" {
  command = plan
  variables { database_id = "Default" }
  expect_failures = [var.database_id]
}

run "rejects_missing_archive" {
  command = plan
  variables { source_archive = "tests/fixtures/no-such-archive.zip" }
  expect_failures = [var.source_archive]
}

run "rejects_unknown_cleanup_mode" {
  command = plan
  variables { cleanup_mode = "dry-run" }
  expect_failures = [var.cleanup_mode]
}

run "rejects_non_go_duration" {
  command = plan
  variables { lease = "15 seconds" }
  expect_failures = [var.lease]
}

run "rejects_negative_duration" {
  command = plan
  variables { empty_room_grace = "-30s" }
  expect_failures = [var.empty_room_grace]
}

run "rejects_fractional_participants" {
  command = plan
  variables { max_participants = 10.5 }
  expect_failures = [var.max_participants]
}

run "rejects_zero_sessions_per_user" {
  command = plan
  variables { max_sessions_per_user = 0 }
  expect_failures = [var.max_sessions_per_user]
}

run "rejects_fractional_rooms_per_user" {
  command = plan
  variables { max_rooms_per_user = 2.5 }
  expect_failures = [var.max_rooms_per_user]
}

run "rejects_origin_with_path" {
  command = plan
  variables { allowed_origins = "https://app.example.com/index.html" }
  expect_failures = [var.allowed_origins]
}

run "rejects_short_notification_channel" {
  command = plan
  variables { notification_channels = ["123"] }
  expect_failures = [var.notification_channels]
}

run "accepts_compound_durations" {
  command = plan
  variables {
    heartbeat_interval = "1500ms"
    lease              = "1m30s"
    record_horizon     = "1000h"
    sweep_budget       = "50.5s"
  }
}

run "rejects_lease_shorter_than_two_heartbeats" {
  command = plan
  variables {
    heartbeat_interval = "10s"
    lease              = "15s"
  }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "rejects_heartbeat_below_500ms" {
  command = plan
  variables { heartbeat_interval = "400ms" }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "rejects_short_record_horizon" {
  command = plan
  variables { record_horizon = "24h" }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "rejects_sweep_budget_near_timeout" {
  command = plan
  variables {
    sweep_budget          = "65s"
    sweep_timeout_seconds = 70
  }
  expect_failures = [google_cloudfunctions2_function.sweep]
}

run "rejects_unknown_app_check_mode" {
  command = plan
  variables { app_check_mode = "strict" }
  expect_failures = [var.app_check_mode]
}

run "rejects_negative_rate_limit" {
  command = plan
  variables { rate_limit = -1 }
  expect_failures = [var.rate_limit]
}

run "rejects_fractional_rate_burst" {
  command = plan
  variables { rate_burst = 2.5 }
  expect_failures = [var.rate_burst]
}

run "rejects_negative_ip_rate_limit" {
  command = plan
  variables { ip_rate_limit = -1 }
  expect_failures = [var.ip_rate_limit]
}

run "rejects_zero_ip_rate_burst" {
  command = plan
  variables { ip_rate_burst = 0 }
  expect_failures = [var.ip_rate_burst]
}

run "rejects_a_lookup_budget_of_nothing" {
  command = plan
  variables { auth_lookup_rate = 0 }
  expect_failures = [var.auth_lookup_rate]
}

run "rejects_fractional_auth_lookup_burst" {
  command = plan
  variables { auth_lookup_burst = 1.5 }
  expect_failures = [var.auth_lookup_burst]
}

run "rejects_a_prefix_too_long_for_service_accounts" {
  command = plan
  # "-scheduler" would make a 31-character service account id.
  variables { name_prefix = "roomlease-staging-eu1" }
  expect_failures = [var.name_prefix]
}

run "rejects_a_prefix_too_short_for_a_database" {
  command = plan
  variables { name_prefix = "rl" }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "accepts_a_short_prefix_with_a_database_id" {
  command = plan
  variables {
    name_prefix = "rl"
    database_id = "rl-presence"
  }
}

run "rejects_renewal_share_of_zero" {
  command = plan
  variables { renew_when_left = 0 }
  expect_failures = [var.renew_when_left]
}

run "rejects_renewal_shorter_than_a_heartbeat" {
  command = plan
  # 0.2 * 15s = 3s, less than the 5s heartbeat.
  variables { renew_when_left = 0.2 }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "rejects_away_lease_shorter_than_lease" {
  command = plan
  variables { away_lease = "10s" }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "rejects_typing_expiry_over_a_minute" {
  command = plan
  variables { typing_expiry = "2m" }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "rejects_policy_cache_over_ten_minutes" {
  command = plan
  variables { policy_cache = "11m" }
  expect_failures = [google_cloudfunctions2_function.presence]
}

run "rejects_sweep_batch_over_500" {
  command = plan
  variables { sweep_batch = 501 }
  expect_failures = [var.sweep_batch]
}

run "rejects_sweep_concurrency_over_64" {
  command = plan
  variables { sweep_concurrency = 65 }
  expect_failures = [var.sweep_concurrency]
}

run "rejects_unknown_client_names" {
  command = plan
  variables { client_names = "client" }
  expect_failures = [var.client_names]
}

run "rejects_unknown_lease_index" {
  command = plan
  variables { lease_index = "both" }
  expect_failures = [var.lease_index]
}

run "rejects_min_client_version_without_kind" {
  command = plan
  variables { min_client_versions = "0.2.0" }
  expect_failures = [var.min_client_versions]
}

run "rejects_short_lease_token_key" {
  command = plan
  variables { lease_token_key = "short" }
  expect_failures = [var.lease_token_key]
}

run "rejects_source_object_of_another_shape" {
  command = plan
  variables {
    source_archive = null
    source_object  = "latest.zip"
  }
  expect_failures = [var.source_object]
}

run "rejects_enforce_share_above_100" {
  command = plan
  variables { enforce_share_percent = 101 }
  expect_failures = [var.enforce_share_percent]
}

run "rejects_negative_enforce_share" {
  command = plan
  variables { enforce_share_percent = -1 }
  expect_failures = [var.enforce_share_percent]
}

run "rejects_reconnect_window_not_a_duration" {
  command = plan
  variables { reconnect_window = "three leases" }
  expect_failures = [var.reconnect_window]
}
