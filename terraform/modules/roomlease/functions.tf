# The two Cloud Run functions (2nd gen) and the identities they run as.
#
# Presence serves the client API; Sweep is the one authority for lease expiry
# and room teardown and is called only by Cloud Scheduler (scheduler.tf).
# Both are built from the same source archive: the root package registers
# both entry points, and each function selects one.

locals {
  presence_name = "${var.name_prefix}-presence"
  sweep_name    = "${var.name_prefix}-sweep"

  # The Firestore database: one per instance unless database_id says
  # otherwise.
  database_name = coalesce(var.database_id, var.name_prefix)

  # Settings both functions read. They share one configuration so that the
  # API and the sweeper can never disagree about the lease length or the
  # grace period; functions/config validates all of it at start-up.
  common_env = merge({
    ROOMLEASE_PROJECT_ID           = var.project_id
    ROOMLEASE_DATABASE             = local.database_id
    ROOMLEASE_HEARTBEAT_INTERVAL   = var.heartbeat_interval
    ROOMLEASE_LEASE                = var.lease
    ROOMLEASE_EMPTY_ROOM_GRACE     = var.empty_room_grace
    ROOMLEASE_MAX_PARTICIPANTS     = tostring(var.max_participants)
    ROOMLEASE_LARGE_ROOM_THRESHOLD = tostring(var.large_room_threshold)
    ROOMLEASE_RECORD_HORIZON       = var.record_horizon
    ROOMLEASE_SESSION_RETENTION    = var.session_retention
    ROOMLEASE_ALLOWED_ORIGINS      = var.allowed_origins
    ROOMLEASE_CLEANUP_MODE         = var.cleanup_mode
    ROOMLEASE_LOG_LEVEL            = var.log_level
    # Read by the API only; the sweeper validates them like the rest.
    ROOMLEASE_APP_CHECK         = var.app_check_mode
    ROOMLEASE_RATE_LIMIT        = tostring(var.rate_limit)
    ROOMLEASE_RATE_BURST        = tostring(var.rate_burst)
    ROOMLEASE_IP_RATE_LIMIT     = tostring(var.ip_rate_limit)
    ROOMLEASE_IP_RATE_BURST     = tostring(var.ip_rate_burst)
    ROOMLEASE_AUTH_LOOKUP_RATE  = tostring(var.auth_lookup_rate)
    ROOMLEASE_AUTH_LOOKUP_BURST = tostring(var.auth_lookup_burst)

    # The per-user caps (abuse limits).
    ROOMLEASE_MAX_SESSIONS_PER_USER = tostring(var.max_sessions_per_user)
    ROOMLEASE_MAX_ROOMS_PER_USER    = tostring(var.max_rooms_per_user)

    # The rest of functions/config; every setting is a variable.
    ROOMLEASE_REVISION_SHARDS        = tostring(var.revision_shards)
    ROOMLEASE_MAX_STATE_BYTES        = tostring(var.max_state_bytes)
    ROOMLEASE_AWAY_LEASE             = var.away_lease
    ROOMLEASE_AWAY_HEARTBEAT         = var.away_heartbeat
    ROOMLEASE_RECENTLY_LEFT          = var.recently_left
    ROOMLEASE_TYPING_EXPIRY          = var.typing_expiry
    ROOMLEASE_CLOSING_RETENTION      = var.closing_retention
    ROOMLEASE_ARCHIVE_RECEIPTS       = tostring(var.archive_receipts)
    ROOMLEASE_CLIENT_NAMES           = var.client_names
    ROOMLEASE_LEASE_INDEX            = var.lease_index
    ROOMLEASE_POLICY_CACHE           = var.policy_cache
    ROOMLEASE_REVOCATION_CHECK_EVERY = var.revocation_check_every
    ROOMLEASE_STATE_RATE_LIMIT       = tostring(var.state_rate_limit)
    ROOMLEASE_STATE_RATE_BURST       = tostring(var.state_rate_burst)
    ROOMLEASE_SWEEP_MAX_PAUSE        = var.sweep_max_pause
    ROOMLEASE_SWEEP_BATCH            = tostring(var.sweep_batch)
    ROOMLEASE_SWEEP_CONCURRENCY      = tostring(var.sweep_concurrency)
    }, var.renew_when_left == null ? {} : {
    # Unset means the server's default: one heartbeat interval's share.
    ROOMLEASE_RENEW_WHEN_LEFT = tostring(var.renew_when_left)
    }, var.reconnect_window == null ? {} : {
    # Unset means the server's default: three leases.
    ROOMLEASE_RECONNECT_WINDOW = var.reconnect_window
    }, var.min_client_versions == "" ? {} : {
    # Unset means "serve every client version", which is the default.
    ROOMLEASE_MIN_CLIENT_VERSION = var.min_client_versions
    }, length(var.service_accounts) == 0 ? {} : {
    # Backend services that may read any roster (docs/events.md); none by
    # default.
    ROOMLEASE_SERVICE_ACCOUNTS = join(",", var.service_accounts)
    ROOMLEASE_SERVICE_AUDIENCE = local.service_audience
    }, var.events_enabled ? {
    # Unset means no events (events.tf).
    ROOMLEASE_EVENTS_TOPIC = local.events_topic_id
  } : {})

  # The presence function's url, which the function cannot read from its
  # own resource (a cycle): 2nd-gen functions keep this cloudfunctions.net
  # form, the api_url output.
  service_audience = coalesce(var.service_audience, "https://${var.region}-${var.project_id}.cloudfunctions.net/${local.presence_name}")

  sweep_env = merge(local.common_env, {
    ROOMLEASE_SWEEP_BUDGET = var.sweep_budget
    ROOMLEASE_LOG_LEVEL    = var.sweep_log_level
    # The rollout's share: only the sweeper tears rooms down.
    ROOMLEASE_ENFORCE_SHARE = tostring(var.enforce_share_percent)
  })

  # Go duration strings converted to seconds, for the preconditions below.
  # The variables' validations guarantee the format, so every string has at
  # least one number-unit pair. Units are tried longest first ("ms" before
  # "m"), which RE2's leftmost-first alternation honours.
  duration_unit_seconds = { ns = 1e-9, us = 1e-6, "µs" = 1e-6, ms = 1e-3, s = 1, m = 60, h = 3600 }
  duration_seconds = {
    for name, d in {
      heartbeat_interval = var.heartbeat_interval
      lease              = var.lease
      empty_room_grace   = var.empty_room_grace
      record_horizon     = var.record_horizon
      session_retention  = var.session_retention
      sweep_budget       = var.sweep_budget
      away_lease         = var.away_lease
      away_heartbeat     = var.away_heartbeat
      recently_left      = var.recently_left
      typing_expiry      = var.typing_expiry
      closing_retention  = var.closing_retention
      policy_cache       = var.policy_cache
      revocation_check   = var.revocation_check_every
      sweep_max_pause    = var.sweep_max_pause
    } :
    name => sum([
      for part in regexall("([0-9]+(?:\\.[0-9]+)?)(ns|us|µs|ms|s|m|h)", d) :
      tonumber(part[0]) * local.duration_unit_seconds[part[1]]
    ])
  }
}

# --- Identities -----------------------------------------------------------
#
# One service account per role, each granted only what it uses, so that a
# compromised or buggy API instance cannot do what only the sweeper should.
# Neither runtime account needs roles/logging.logWriter: a Cloud Run function's
# stdout and stderr are collected by the platform, not written with the
# function's own credentials.

resource "google_service_account" "presence" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-presence"
  display_name = "${var.name_prefix} Presence function"
  description  = "Runs the client API: reads and writes presence documents in Firestore."

  depends_on = [google_project_service.enabled]
}

resource "google_service_account" "sweep" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-sweep"
  display_name = "${var.name_prefix} Sweep function"
  description  = "Runs the sweeper: expires leases and tears down empty rooms in Firestore."

  depends_on = [google_project_service.enabled]
}

resource "google_service_account" "build" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-build"
  display_name = "${var.name_prefix} function builds"
  description  = "Cloud Build identity that turns the source archive into the functions' images."

  depends_on = [google_project_service.enabled]
}

# --- Firestore access -----------------------------------------------------
#
# roles/datastore.user is the narrowest predefined role that can run
# Firestore transactions (read, write, delete documents). It is granted on
# the project, because Firestore takes grants nowhere else, with an IAM
# condition that limits it to roomlease's database: neither function can
# read or write any other database in the project.
#
# What the condition cannot do: Firestore checks IAM per database, not per
# collection or document, so inside roomlease's database both accounts can
# write every document, the operator's roomlease/config (the kill switch) and
# roomPolicies included. The code never does (Presence only reads
# roomPolicies; the sweeper only reads roomlease/config and writes
# roomlease/sweepStatus), and Firestore security rules do not apply to IAM
# callers. Only a separate database for the operator's documents, which the
# functions would be granted read-only, would enforce it; see "Least
# privilege" in docs/deploy.md.
#
# A custom role with only the datastore.entities.* and
# datastore.databases.get permissions would drop the read-only metadata
# permissions datastore.user also carries, but not the write access that
# matters here, and custom role IDs stay reserved for weeks after a destroy,
# which breaks destroy-and-redeploy; so the predefined role it is.
#
# Presence verifies Firebase ID tokens against Google's public signing keys,
# which needs no IAM permission; see presence_auth_viewer for the revocation
# check.

locals {
  firestore_database_resource = "projects/${var.project_id}/databases/${local.database_id}"

  firestore_condition = {
    title       = "${var.name_prefix} database only"
    description = "Firestore access limited to the database roomlease uses."
    expression  = "resource.name == \"${local.firestore_database_resource}\""
  }
}

resource "google_project_iam_member" "presence_firestore" {
  project = var.project_id
  role    = "roles/datastore.user"
  member  = google_service_account.presence.member

  condition {
    title       = local.firestore_condition.title
    description = local.firestore_condition.description
    expression  = local.firestore_condition.expression
  }

  # A changed condition replaces the grant. A conditional binding is a
  # binding of its own, so the new one can be added before the old one is
  # removed, and the function never runs without access.
  lifecycle {
    create_before_destroy = true
  }

  # Granting a role goes through the Resource Manager API; the service
  # account's own dependency on the APIs orders only the account.
  depends_on = [google_project_service.enabled]
}

# --- Firebase Auth access ---------------------------------------------------
#
# Presence looks up the user behind a token (at most once per
# ROOMLEASE_REVOCATION_CHECK_EVERY per user and instance) to refuse disabled
# users and revoked tokens: accounts:lookup, which needs the permission
# firebaseauth.users.get. roles/firebaseauth.viewer is the narrowest
# predefined role with it (read-only: users, the Auth configuration, and the
# project's Firebase apps); a custom role with only that permission would be
# narrower still, but custom role IDs stay reserved for weeks after a
# destroy (see above). Firebase Auth takes grants on the project only. The
# sweeper verifies no tokens and gets nothing here.
resource "google_project_iam_member" "presence_auth_viewer" {
  project = var.project_id
  role    = "roles/firebaseauth.viewer"
  member  = google_service_account.presence.member

  depends_on = [google_project_service.enabled]
}

# The sweeper reads and writes the same documents as Presence, plus its
# status document roomlease/sweepStatus, and reads roomlease/config.
resource "google_project_iam_member" "sweep_firestore" {
  project = var.project_id
  role    = "roles/datastore.user"
  member  = google_service_account.sweep.member

  condition {
    title       = local.firestore_condition.title
    description = local.firestore_condition.description
    expression  = local.firestore_condition.expression
  }

  lifecycle {
    create_before_destroy = true
  }

  depends_on = [google_project_service.enabled]
}

# --- Builds -----------------------------------------------------------------
#
# A dedicated build account instead of the project's default: in projects
# created since 2024 the default build identity is the Compute Engine default
# account, which organisations commonly strip of all roles (so builds fail)
# or leave as Editor (far too much). A build writes its logs, reads the
# source and pushes the image; Google's guide for a build service account
# grants roles/logging.logWriter, roles/artifactregistry.writer and
# roles/storage.objectAdmin for that. Here each is narrowed as far as the
# resource allows.

# The functions' images, in a repository of roomlease's own rather than the
# gcf-artifacts repository Cloud Functions would create on first deploy, so
# that the build account's write access covers this repository only.
resource "google_artifact_registry_repository" "functions" {
  project       = var.project_id
  location      = var.region
  repository_id = "${var.name_prefix}-functions"
  format        = "DOCKER"
  description   = "Images of the roomlease functions, built by Cloud Build."
  labels        = { app = "roomlease" }

  depends_on = [google_project_service.enabled]
}

resource "google_artifact_registry_repository_iam_member" "build_push" {
  project    = google_artifact_registry_repository.functions.project
  location   = google_artifact_registry_repository.functions.location
  repository = google_artifact_registry_repository.functions.name
  role       = "roles/artifactregistry.writer"
  member     = google_service_account.build.member
}

# Build logs cannot be scoped below the project.
resource "google_project_iam_member" "build_logs" {
  project = var.project_id
  role    = "roles/logging.logWriter"
  member  = google_service_account.build.member

  depends_on = [google_project_service.enabled]
}

# This grant used to be build["roles/logging.logWriter"]. Without the move,
# an existing deployment would create it anew and then destroy the old one,
# and destroying an IAM member removes the very binding both describe.
moved {
  from = google_project_iam_member.build["roles/logging.logWriter"]
  to   = google_project_iam_member.build_logs
}

# The source. Cloud Functions copies the uploaded archive into a bucket of
# its own, gcf-v2-sources-PROJECT_NUMBER-REGION, and the build reads it from
# there (a build account without access to that bucket fails with "Access
# to bucket gcf-v2-sources-… denied"). That bucket is created by Cloud
# Functions, so it cannot be granted on directly; the grant is on the
# project, conditioned to Cloud Functions' source buckets and roomlease's
# own source bucket.
resource "google_project_iam_member" "build_sources" {
  project = var.project_id
  role    = "roles/storage.objectAdmin"
  member  = google_service_account.build.member

  condition {
    title       = "${var.name_prefix} build sources only"
    description = "Objects in roomlease's source bucket and Cloud Functions' source buckets."
    expression = join(" || ", [
      "resource.name == \"projects/_/buckets/${google_storage_bucket.source.name}\"",
      "resource.name.startsWith(\"projects/_/buckets/${google_storage_bucket.source.name}/\")",
      "resource.name.startsWith(\"projects/_/buckets/gcf-v2-sources-\")",
    ])
  }

  depends_on = [google_project_service.enabled]
}

# --- Functions ------------------------------------------------------------

resource "google_cloudfunctions2_function" "presence" {
  project     = var.project_id
  location    = var.region
  name        = local.presence_name
  description = "roomlease client API: join, heartbeat, leave, roster, typing, receipts."
  labels      = { app = "roomlease" }

  build_config {
    runtime           = var.go_runtime
    entry_point       = "Presence"
    service_account   = google_service_account.build.id
    docker_repository = google_artifact_registry_repository.functions.id

    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }

  service_config {
    service_account_email = google_service_account.presence.email

    # Clients call from browsers and apps anywhere; authentication happens in
    # the function (Firebase ID tokens), not at the ingress.
    ingress_settings               = "ALLOW_ALL"
    all_traffic_on_latest_revision = true

    # Heartbeats are small and I/O-bound, so one instance serves many at
    # once. Concurrency above 1 needs at least one whole vCPU.
    available_cpu                    = "1"
    available_memory                 = "512Mi"
    max_instance_request_concurrency = var.presence_concurrency
    min_instance_count               = var.presence_min_instances
    max_instance_count               = var.presence_max_instances
    timeout_seconds                  = 30

    environment_variables = local.common_env

    dynamic "secret_environment_variables" {
      for_each = local.lease_token_secrets
      content {
        key        = secret_environment_variables.key
        project_id = var.project_id
        secret     = secret_environment_variables.value
        version    = "latest"
      }
    }
  }

  # The rules of presence.Settings.Validate, checked at plan time. They sit
  # on Presence, but the settings are shared: Sweep reads the same values.
  lifecycle {
    precondition {
      condition     = local.duration_seconds.heartbeat_interval >= 0.5
      error_message = "heartbeat_interval (${var.heartbeat_interval}) must be at least 500ms."
    }
    precondition {
      # One lost or late heartbeat must not end a lease.
      condition     = local.duration_seconds.lease >= 2 * local.duration_seconds.heartbeat_interval
      error_message = "lease (${var.lease}) must be at least twice heartbeat_interval (${var.heartbeat_interval}), so that one lost heartbeat does not end a lease."
    }
    precondition {
      condition     = local.duration_seconds.lease <= 3600
      error_message = "lease (${var.lease}) must be at most 1h."
    }
    precondition {
      # Heartbeats refresh expireAt only within its last day.
      condition     = local.duration_seconds.record_horizon >= 48 * 3600
      error_message = "record_horizon (${var.record_horizon}) must be at least 48h."
    }
    precondition {
      condition     = local.duration_seconds.session_retention >= 3600
      error_message = "session_retention (${var.session_retention}) must be at least 1h."
    }
    precondition {
      # A client heartbeating on schedule must never see its lease end.
      condition     = var.renew_when_left == null || coalesce(var.renew_when_left, 1) * local.duration_seconds.lease >= local.duration_seconds.heartbeat_interval
      error_message = "renew_when_left (${coalesce(var.renew_when_left, 0)}) times lease (${var.lease}) must be at least heartbeat_interval (${var.heartbeat_interval})."
    }
    precondition {
      condition     = local.duration_seconds.away_heartbeat >= local.duration_seconds.heartbeat_interval
      error_message = "away_heartbeat (${var.away_heartbeat}) must be at least heartbeat_interval (${var.heartbeat_interval})."
    }
    precondition {
      condition = (
        local.duration_seconds.away_lease >= local.duration_seconds.lease &&
        local.duration_seconds.away_lease >= 2 * local.duration_seconds.away_heartbeat &&
        local.duration_seconds.away_lease <= 3600
      )
      error_message = "away_lease (${var.away_lease}) must be at least lease (${var.lease}) and twice away_heartbeat (${var.away_heartbeat}), and at most 1h."
    }
    precondition {
      condition     = local.duration_seconds.recently_left <= 3600
      error_message = "recently_left (${var.recently_left}) must be at most 1h."
    }
    precondition {
      condition     = local.duration_seconds.typing_expiry >= 1 && local.duration_seconds.typing_expiry <= 60
      error_message = "typing_expiry (${var.typing_expiry}) must be between 1s and 1m."
    }
    precondition {
      condition     = local.duration_seconds.closing_retention >= 3600
      error_message = "closing_retention (${var.closing_retention}) must be at least 1h."
    }
    precondition {
      condition     = local.duration_seconds.policy_cache <= 600
      error_message = "policy_cache (${var.policy_cache}) must be at most 10m."
    }
    precondition {
      condition     = local.duration_seconds.revocation_check > 0 && local.duration_seconds.revocation_check <= 60
      error_message = "revocation_check_every (${var.revocation_check_every}) must be more than 0 and at most 1m."
    }
    precondition {
      # The database name defaults to name_prefix, whose rules are looser.
      condition     = local.database_name == "(default)" || can(regex("^[a-z][a-z0-9-]{2,61}[a-z0-9]$", local.database_name))
      error_message = "The Firestore database id \"${local.database_name}\" (database_id, or name_prefix when database_id is unset) must be 4-63 lowercase letters, digits and hyphens; set database_id for a name_prefix shorter than 4."
    }
  }

  # The build needs its grants, and the sweeper's queries need their
  # indexes. Creating an index waits until it is built, which takes minutes
  # on a fresh database; ordering the functions after the Firestore
  # resources also gives the build account's new grants that time to
  # propagate (IAM changes take up to a few minutes), in place of a timed
  # wait, which would need the time provider. If a first build still fails
  # with a permission error on gcf-v2-sources-… or the repository, running
  # the apply again succeeds (docs/deploy.md).
  depends_on = [
    google_project_service.enabled,
    google_project_iam_member.presence_firestore,
    google_project_iam_member.presence_auth_viewer,
    google_secret_manager_secret_iam_member.lease_token_key,
    google_secret_manager_secret_version.lease_token_key,
    google_project_iam_member.build_logs,
    google_project_iam_member.build_sources,
    google_artifact_registry_repository_iam_member.build_push,
    google_firestore_index.composite,
    google_firestore_field.ttl,
    google_firestore_field.index_override,
  ]
}

resource "google_cloudfunctions2_function" "sweep" {
  project     = var.project_id
  location    = var.region
  name        = local.sweep_name
  description = "roomlease sweeper: lease expiry and room teardown, run by Cloud Scheduler."
  labels      = { app = "roomlease" }

  build_config {
    runtime           = var.go_runtime
    entry_point       = "Sweep"
    service_account   = google_service_account.build.id
    docker_repository = google_artifact_registry_repository.functions.id

    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }

  service_config {
    service_account_email = google_service_account.sweep.email

    # Requests from Cloud Scheduler in the same project count as internal
    # traffic for Cloud Run, so nothing outside the project can even reach
    # the sweeper; IAM (below) then admits only the scheduler's account.
    ingress_settings               = "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision = true

    available_memory = "256Mi"

    # One run per request: a run sweeps repeatedly for sweep_budget and must
    # not share its instance with another run.
    max_instance_request_concurrency = 1

    # Runs do not normally overlap (the budget is shorter than the one-minute
    # schedule). A second instance lets an overrunning run coexist with the
    # next one instead of failing that tick; two sweepers at once are safe,
    # because every teardown step is a compare-and-set on generations.
    max_instance_count = var.sweep_max_instances
    timeout_seconds    = var.sweep_timeout_seconds

    environment_variables = local.sweep_env

    dynamic "secret_environment_variables" {
      for_each = local.lease_token_secrets
      content {
        key        = secret_environment_variables.key
        project_id = var.project_id
        secret     = secret_environment_variables.value
        version    = "latest"
      }
    }
  }

  lifecycle {
    precondition {
      # The sweeper stops starting passes when its budget is spent; the
      # margin lets the last pass and the report finish before the platform
      # kills the request.
      condition     = local.duration_seconds.sweep_budget > 0 && local.duration_seconds.sweep_budget + 10 <= var.sweep_timeout_seconds
      error_message = "sweep_budget (${var.sweep_budget}) must be positive and at least 10 seconds shorter than sweep_timeout_seconds (${var.sweep_timeout_seconds})."
    }
  }

  # As for Presence.
  depends_on = [
    google_project_service.enabled,
    google_project_iam_member.sweep_firestore,
    google_secret_manager_secret_iam_member.lease_token_key,
    google_secret_manager_secret_version.lease_token_key,
    google_project_iam_member.build_logs,
    google_project_iam_member.build_sources,
    google_artifact_registry_repository_iam_member.build_push,
    google_firestore_index.composite,
    google_firestore_field.ttl,
    google_firestore_field.index_override,
  ]
}

# --- Invokers -------------------------------------------------------------
#
# A 2nd gen function is invoked through its Cloud Run service, so invocation
# is roles/run.invoker on that service (which has the function's name).

# Anyone may reach the API; every request except /healthz must carry a valid
# Firebase ID token, which the function checks.
resource "google_cloud_run_service_iam_member" "presence_public" {
  project  = var.project_id
  location = var.region
  service  = google_cloudfunctions2_function.presence.name
  role     = "roles/run.invoker"
  member   = "allUsers"
}

# Only the scheduler may run the sweeper.
resource "google_cloud_run_service_iam_member" "sweep_scheduler" {
  project  = var.project_id
  location = var.region
  service  = google_cloudfunctions2_function.sweep.name
  role     = "roles/run.invoker"
  member   = google_service_account.scheduler.member
}
