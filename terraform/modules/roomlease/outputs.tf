output "api_url" {
  description = "Base URL of the client API (the Presence function). Clients call <api_url>/v1/rooms/{roomId}/join and so on."
  value       = google_cloudfunctions2_function.presence.url
}

output "sweep_url" {
  description = "URL (run.app) of the Sweep function, which Cloud Scheduler calls. Reachable only from inside the project and only by the scheduler's account; run it by hand with `gcloud scheduler jobs run NAME_PREFIX-sweep`."
  value       = google_cloudfunctions2_function.sweep.service_config[0].uri
}

output "database" {
  description = "Firestore database the functions use (ROOMLEASE_DATABASE), and so the one clients listen to; the API names it in GET /v1/config and in every join reply."
  value       = local.database_id
}

output "cleanup_mode" {
  description = "Cleanup mode deployed as the functions' default (ROOMLEASE_CLEANUP_MODE). The Firestore document roomlease/config overrides it at run time."
  value       = var.cleanup_mode
}

output "source_object_name" {
  description = "Name of the source object in the bucket the functions were built from. Pass it back as source_object to plan or apply without building an archive."
  value       = google_storage_bucket_object.source.name
}

output "source_object" {
  description = "gs:// URL of the source archive the functions were built from."
  value       = "gs://${google_storage_bucket.source.name}/${google_storage_bucket_object.source.name}"
}

output "service_accounts" {
  description = "Service accounts by role: presence and sweep run the functions, scheduler invokes Sweep, build builds both."
  value = {
    presence  = google_service_account.presence.email
    sweep     = google_service_account.sweep.email
    scheduler = google_service_account.scheduler.email
    build     = google_service_account.build.email
  }
}

output "names" {
  description = "Every name this instance takes in the project, from the resources themselves: what must differ between two instances in one project (tests/side_by_side checks that it does)."
  value = {
    functions        = [google_cloudfunctions2_function.presence.name, google_cloudfunctions2_function.sweep.name]
    service_accounts = [for a in [google_service_account.presence, google_service_account.sweep, google_service_account.scheduler, google_service_account.build] : a.account_id]
    buckets          = [google_storage_bucket.source.name]
    repositories     = [google_artifact_registry_repository.functions.repository_id]
    scheduler_jobs   = [google_cloud_scheduler_job.sweep.name]
    metrics          = concat([for m in google_logging_metric.sweep : m.name], [google_logging_metric.sweep_runs.name, google_logging_metric.app_check_failures.name])
    alert_policies = [for p in [
      google_monitoring_alert_policy.cleanup_lag,
      google_monitoring_alert_policy.oldest_eligible_room,
      google_monitoring_alert_policy.failed_steps,
      google_monitoring_alert_policy.generation_conflicts,
      google_monitoring_alert_policy.sweeper_silent,
    ] : p.display_name]
    databases      = [local.database_id]
    rules_releases = [google_firebaserules_release.firestore.name]
    secrets        = [for s in google_secret_manager_secret.lease_token_key : s.secret_id]
  }
}

output "events_topic" {
  description = "The presence events' topic id (ROOMLEASE_EVENTS_TOPIC), or null with events off."
  value       = one(google_pubsub_topic.events[*].name)
}

output "events_dead_letter_subscription" {
  description = "The subscription that keeps the events the backend did not take (docs/runbook.md, \"Presence events: delivery\"), or null with events off."
  value       = one(google_pubsub_subscription.events_dead_letter[*].name)
}

output "event_push_service_account" {
  description = "The email the push requests' OIDC tokens carry, which the backend checks (clients/go/events.PushVerifier.Email), or null without a push subscription."
  value       = one(google_service_account.event_push[*].email)
}
