# Staging and prod in one project: every name one instance takes (read back
# from its resources, not from the prefix) must differ from every name the
# other takes, kind by kind, or the second apply would fail on a name
# already in use, or worse, both would manage one resource.

mock_provider "google" {
  source = "../../modules/roomlease/tests/mocks"
}

variables {
  project_id     = "roomlease-test"
  source_archive = "../../modules/roomlease/tests/fixtures/empty-source.zip"

  notification_channels = ["projects/roomlease-test/notificationChannels/123"]
}

run "no_name_in_common" {
  command = plan

  assert {
    condition = alltrue([
      for kind, names in output.names.staging :
      length(setintersection(toset(names), toset(output.names.prod[kind]))) == 0
    ])
    error_message = "Staging and prod share names: ${jsonencode({ for kind, names in output.names.staging : kind => setintersection(toset(names), toset(output.names.prod[kind])) })}"
  }

  assert {
    # The check above is only worth something if it compared real names.
    condition = alltrue([
      for kind in ["functions", "service_accounts", "buckets", "repositories", "scheduler_jobs", "metrics", "alert_policies", "databases", "rules_releases"] :
      length(output.names.staging[kind]) > 0 && length(output.names.prod[kind]) == length(output.names.staging[kind])
    ])
    error_message = "Every kind of name must be present in both instances: ${jsonencode(output.names)}"
  }

  assert {
    condition = (
      contains(output.names.staging.functions, "staging-presence") &&
      contains(output.names.prod.service_accounts, "prod-scheduler") &&
      output.names.staging.databases == ["staging"] &&
      output.names.prod.rules_releases == ["cloud.firestore/prod"] &&
      output.names.prod.buckets == ["roomlease-test-prod-source"]
    )
    error_message = "Names must derive from name_prefix: ${jsonencode(output.names)}"
  }
}
