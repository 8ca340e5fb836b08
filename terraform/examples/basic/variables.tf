# The settings an operator usually sets per deployment. They are passed to
# the module as they are; the module validates them (its variables.tf says
# what each one means).

variable "project_id" {
  description = "Google Cloud project to deploy into. It must have Firebase enabled (docs/deploy.md)."
  type        = string
}

variable "region" {
  description = "Region of the functions, the scheduler job and the source bucket."
  type        = string
  default     = "us-central1"
}

variable "name_prefix" {
  description = "Prefix of every resource name, and the Firestore database's name. Keep \"roomlease\" for a deployment made before the module existed."
  type        = string
  default     = "roomlease"
}

variable "source_archive" {
  description = "The zip scripts/deploy builds. Null: build from source_object."
  type        = string
  default     = null
}

variable "source_object" {
  description = "An object already in the source bucket (terraform output -raw source_object_name), for plans and applies without an archive."
  type        = string
  default     = null
}

variable "go_runtime" {
  description = "Cloud Run functions runtime; scripts/deploy takes it from go.mod."
  type        = string
  default     = "go126"
}

variable "cleanup_mode" {
  description = "enforce, observe (the first deployment's default) or off."
  type        = string
  default     = "observe"
}

variable "app_check_mode" {
  description = "off, monitor or enforce."
  type        = string
  default     = "monitor"
}

variable "allowed_origins" {
  description = "Browser origins allowed by CORS, comma-separated, or \"*\"."
  type        = string
  default     = "*"
}

variable "notification_channels" {
  description = "Cloud Monitoring notification channels the alerts notify. Empty: a plan-time warning says alerts notify nobody."
  type        = list(string)
  default     = []
}

variable "lease_token_key" {
  description = "The lease-token HMAC key (at least 32 characters). Set it with TF_VAR_lease_token_key, not in a file."
  type        = string
  default     = null
  sensitive   = true
}

variable "min_client_versions" {
  description = "Oldest client versions served, e.g. \"js/0.2.0,go/0.1.0\"; empty serves all."
  type        = string
  default     = ""
}

variable "events_enabled" {
  description = "Publish presence events on NAME_PREFIX-events (the module's events_enabled)."
  type        = bool
  default     = false
}

variable "event_push_endpoint" {
  description = "Your backend's https:// URL the events are pushed to (the module's event_push_endpoint); null: none."
  type        = string
  default     = null
}

variable "service_accounts" {
  description = "Service accounts that may read any room's roster (the module's service_accounts)."
  type        = list(string)
  default     = []
}
