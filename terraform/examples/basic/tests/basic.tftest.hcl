# The example root: what scripts/deploy plans and applies.

mock_provider "google" {
  source = "../../modules/roomlease/tests/mocks"
}

variables {
  project_id            = "roomlease-test"
  source_archive        = "../../modules/roomlease/tests/fixtures/empty-source.zip"
  notification_channels = ["projects/roomlease-test/notificationChannels/123"]
}

# With the default prefix the example names everything as the root module
# did before the module existed, which is what lets moved.tf carry an
# existing deployment over without replacing anything.
run "default_names_are_the_pre_module_names" {
  command = plan

  assert {
    condition = (
      output.names.functions == ["roomlease-presence", "roomlease-sweep"] &&
      output.names.service_accounts == ["roomlease-presence", "roomlease-sweep", "roomlease-scheduler", "roomlease-build"] &&
      output.names.buckets == ["roomlease-test-roomlease-source"] &&
      output.names.repositories == ["roomlease-functions"] &&
      output.names.scheduler_jobs == ["roomlease-sweep"] &&
      output.names.databases == ["roomlease"] &&
      contains(output.names.metrics, "roomlease/sweep_runs") &&
      contains(output.names.alert_policies, "roomlease: sweeper not reporting")
    )
    error_message = "The example's default names must be the pre-module root's: ${jsonencode(output.names)}"
  }

  assert {
    condition     = output.cleanup_mode == "observe"
    error_message = "A first deployment must observe, not enforce."
  }
}

run "settings_pass_through_to_the_module" {
  command = plan

  variables {
    name_prefix         = "prod"
    cleanup_mode        = "enforce"
    min_client_versions = "js/0.2.0"
  }

  assert {
    condition     = output.cleanup_mode == "enforce" && output.database == "prod" && output.names.functions == ["prod-presence", "prod-sweep"]
    error_message = "name_prefix and cleanup_mode must reach the module."
  }
}
