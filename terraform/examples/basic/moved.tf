# Moving a deployment made before the module existed (Terraform ran in
# terraform/, with every resource at the top level) into this root without
# destroying anything. Each block tells Terraform that a resource in the old
# state is now inside module.roomlease; with name_prefix "roomlease" (the
# default) the module gives every resource the name it had, so the plan
# after the move changes nothing that forces a replacement.
#
# Steps (docs/deploy.md, "Moving to the module"): move the state file
# (terraform/terraform.tfstate to terraform/examples/basic/, or point
# backend.tf at the old backend), run scripts/deploy --plan, check that it
# says "0 to destroy", then apply. The blocks are harmless for a new
# deployment and for one already moved; drop them once every deployment has
# applied them.
#
# terraform/testdata/pre-module-state/ proves the moves offline:
# scripts/check-terraform plans this root against a state file of the old
# layout and fails if anything would be destroyed.

moved {
  from = google_project_service.enabled
  to   = module.roomlease.google_project_service.enabled
}

moved {
  from = google_storage_bucket.source
  to   = module.roomlease.google_storage_bucket.source
}

moved {
  from = google_service_account.presence
  to   = module.roomlease.google_service_account.presence
}

moved {
  from = google_service_account.sweep
  to   = module.roomlease.google_service_account.sweep
}

moved {
  from = google_service_account.build
  to   = module.roomlease.google_service_account.build
}

moved {
  from = google_service_account.scheduler
  to   = module.roomlease.google_service_account.scheduler
}

moved {
  from = google_project_iam_member.presence_firestore
  to   = module.roomlease.google_project_iam_member.presence_firestore
}

moved {
  from = google_project_iam_member.presence_auth_viewer
  to   = module.roomlease.google_project_iam_member.presence_auth_viewer
}

moved {
  from = google_project_iam_member.sweep_firestore
  to   = module.roomlease.google_project_iam_member.sweep_firestore
}

moved {
  from = google_project_iam_member.build_logs
  to   = module.roomlease.google_project_iam_member.build_logs
}

moved {
  from = google_project_iam_member.build_sources
  to   = module.roomlease.google_project_iam_member.build_sources
}

moved {
  from = google_artifact_registry_repository.functions
  to   = module.roomlease.google_artifact_registry_repository.functions
}

moved {
  from = google_artifact_registry_repository_iam_member.build_push
  to   = module.roomlease.google_artifact_registry_repository_iam_member.build_push
}

moved {
  from = google_cloudfunctions2_function.presence
  to   = module.roomlease.google_cloudfunctions2_function.presence
}

moved {
  from = google_cloudfunctions2_function.sweep
  to   = module.roomlease.google_cloudfunctions2_function.sweep
}

moved {
  from = google_cloud_run_service_iam_member.presence_public
  to   = module.roomlease.google_cloud_run_service_iam_member.presence_public
}

moved {
  from = google_cloud_run_service_iam_member.sweep_scheduler
  to   = module.roomlease.google_cloud_run_service_iam_member.sweep_scheduler
}

moved {
  from = google_cloud_scheduler_job.sweep
  to   = module.roomlease.google_cloud_scheduler_job.sweep
}

moved {
  from = google_logging_metric.app_check_failures
  to   = module.roomlease.google_logging_metric.app_check_failures
}

moved {
  from = google_logging_metric.sweep
  to   = module.roomlease.google_logging_metric.sweep
}

moved {
  from = google_logging_metric.sweep_runs
  to   = module.roomlease.google_logging_metric.sweep_runs
}

moved {
  from = google_monitoring_alert_policy.cleanup_lag
  to   = module.roomlease.google_monitoring_alert_policy.cleanup_lag
}

moved {
  from = google_monitoring_alert_policy.oldest_eligible_room
  to   = module.roomlease.google_monitoring_alert_policy.oldest_eligible_room
}

moved {
  from = google_monitoring_alert_policy.failed_steps
  to   = module.roomlease.google_monitoring_alert_policy.failed_steps
}

moved {
  from = google_monitoring_alert_policy.generation_conflicts
  to   = module.roomlease.google_monitoring_alert_policy.generation_conflicts
}

moved {
  from = google_monitoring_alert_policy.sweeper_silent
  to   = module.roomlease.google_monitoring_alert_policy.sweeper_silent
}

moved {
  from = google_firestore_database.this
  to   = module.roomlease.google_firestore_database.this
}

moved {
  from = google_firestore_field.ttl
  to   = module.roomlease.google_firestore_field.ttl
}

moved {
  from = google_firestore_field.index_override
  to   = module.roomlease.google_firestore_field.index_override
}

moved {
  from = google_firestore_index.composite
  to   = module.roomlease.google_firestore_index.composite
}

moved {
  from = google_firebaserules_ruleset.firestore
  to   = module.roomlease.google_firebaserules_ruleset.firestore
}

moved {
  from = google_firebaserules_release.firestore
  to   = module.roomlease.google_firebaserules_release.firestore
}

moved {
  from = google_storage_bucket_object.source
  to   = module.roomlease.google_storage_bucket_object.source
}
