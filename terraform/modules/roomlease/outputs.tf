output "api_url" {
  description = "Base URL of the client API (the Presence function). Clients call <api_url>/v1/rooms/{roomId}/join and so on."
  value       = google_cloudfunctions2_function.presence.url
}

output "sweep_url" {
  description = "URL (run.app) of the Sweep function, which Cloud Scheduler calls. Reachable only from inside the project and only by the scheduler's account; run it by hand with `gcloud scheduler jobs run roomlease-sweep`."
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
