output "api_url" {
  description = "Base URL of the client API."
  value       = module.roomlease.api_url
}

output "sweep_url" {
  description = "URL of the Sweep function (Cloud Scheduler calls it)."
  value       = module.roomlease.sweep_url
}

output "database" {
  description = "Firestore database the functions use, and clients listen to."
  value       = module.roomlease.database
}

output "cleanup_mode" {
  description = "Cleanup mode deployed as the functions' default."
  value       = module.roomlease.cleanup_mode
}

output "source_object_name" {
  description = "Source object the functions were built from; pass it as source_object to plan without an archive."
  value       = module.roomlease.source_object_name
}

output "source_object" {
  description = "gs:// URL of that source object."
  value       = module.roomlease.source_object
}

output "service_accounts" {
  description = "Service accounts by role."
  value       = module.roomlease.service_accounts
}

output "names" {
  description = "Every name the instance takes in the project."
  value       = module.roomlease.names
}

output "events_topic" {
  description = "The presence events' topic, or null with events off."
  value       = module.roomlease.events_topic
}

output "event_push_service_account" {
  description = "The email on the push requests' OIDC tokens, or null without a push subscription."
  value       = module.roomlease.event_push_service_account
}
