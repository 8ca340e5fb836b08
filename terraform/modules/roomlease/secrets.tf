# The lease-token key (ROOMLEASE_LEASE_TOKEN_KEY): an HMAC key with which the
# API signs the lease tokens it hands out and checks the ones clients send
# back, so that a heartbeat with a valid token need not read the session.
# Every instance of both functions must hold the same key, whichever
# instance issued a token. Without it the functions fall back to the slower
# path, which is correct, only dearer.
#
# The key's value comes from the sensitive variable lease_token_key (no
# random provider is available where this is developed, and a key Terraform
# generated would sit in its state anyway; so does this one: protect the
# state, docs/deploy.md). It lives in Secret Manager and reaches the
# functions as a secret environment variable, version "latest", which each
# new instance reads at start: a changed key takes effect as instances are
# replaced, and invalidates the tokens clients hold (they rejoin).

locals {
  # Whether a key is set is no secret; its value is.
  lease_token = nonsensitive(var.lease_token_key != null)

  # Env var name => secret id, for the functions' secret_environment_variables.
  lease_token_secrets = local.lease_token ? { ROOMLEASE_LEASE_TOKEN_KEY = google_secret_manager_secret.lease_token_key[0].secret_id } : {}
}

resource "google_project_service" "secretmanager" {
  # Enabled with the rest only when a key is deployed: a deployment without
  # one has no business with Secret Manager.
  count = local.lease_token ? 1 : 0

  project            = var.project_id
  service            = "secretmanager.googleapis.com"
  disable_on_destroy = false
}

resource "google_secret_manager_secret" "lease_token_key" {
  count = local.lease_token ? 1 : 0

  project   = var.project_id
  secret_id = "${var.name_prefix}-lease-token-key"
  labels    = { app = "roomlease" }

  replication {
    auto {}
  }

  depends_on = [google_project_service.secretmanager]
}

resource "google_secret_manager_secret_version" "lease_token_key" {
  count = local.lease_token ? 1 : 0

  secret      = google_secret_manager_secret.lease_token_key[0].id
  secret_data = var.lease_token_key
}

# Both runtime accounts read the key, and nothing else in Secret Manager:
# the grant is on this secret only.
resource "google_secret_manager_secret_iam_member" "lease_token_key" {
  for_each = local.lease_token ? {
    presence = google_service_account.presence.member
    sweep    = google_service_account.sweep.member
  } : {}

  project   = var.project_id
  secret_id = google_secret_manager_secret.lease_token_key[0].secret_id
  role      = "roles/secretmanager.secretAccessor"
  member    = each.value
}
