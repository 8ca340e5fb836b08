# Inputs. Only project_id has no default. The presence settings mirror
# functions/config (docs/settings.md names each variable's environment
# variable) and are checked here with the same rules the functions apply at
# start-up (format in the validations below, relations between settings in
# the preconditions in functions.tf), so a bad value fails `terraform plan`
# instead of crash-looping a deployed function.
#
# Durations are Go duration strings ("5s", "1m30s", "720h"), because that is
# what the functions parse.

# --- Which instance --------------------------------------------------------

variable "name_prefix" {
  description = "Prefix of every name this module gives a resource: functions, service accounts, buckets, the scheduler job, the artifact repository, metrics, alert policies, the lease-token secret and (unless database_id is set) the Firestore database. Two instances in one project need two prefixes (\"staging\", \"prod\"). The default reproduces the names of a deployment made before the module existed."
  type        = string
  default     = "roomlease"

  validation {
    # Service account ids are 6-30 characters and "-scheduler" is the
    # longest suffix: 20 characters are left for the prefix. Bucket names
    # add the project id (at most 30) and "-source": 58 of 63.
    condition     = can(regex("^[a-z]([a-z0-9-]{0,18}[a-z0-9])?$", var.name_prefix))
    error_message = "name_prefix must be 1-20 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen (service account ids derived from it are limited to 30 characters)."
  }
}

# --- Where ----------------------------------------------------------------

variable "project_id" {
  description = "Google Cloud project to deploy into. It must have Firebase enabled (see docs/deploy.md)."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", var.project_id))
    error_message = "project_id must be a project ID (6-30 lowercase letters, digits and hyphens, starting with a letter), not a project name or number."
  }
}

variable "region" {
  description = "Region of the functions, the scheduler job and the source bucket. Keep it close to the Firestore database's location."
  type        = string
  default     = "us-central1"

  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]+$", var.region))
    error_message = "region must be a Google Cloud region such as \"us-central1\" or \"europe-west1\", not a zone."
  }
}

# --- Firestore ------------------------------------------------------------

# By default roomlease gets a database of its own. Adding Firebase to a
# project does not create a Firestore database, so a fresh project has none;
# and a dedicated database keeps roomlease's collection groups, TTL policies,
# indexes and rules apart from other apps' data, and lets IAM confine the
# functions to it (functions.tf). To use an existing database instead, such
# as "(default)", set create_database = false and database_id to its name
# ("Choosing the database" in docs/deploy.md).

variable "create_database" {
  description = "Create the Firestore database database_id (the default). Set false to use an existing database of that name instead, such as \"(default)\"."
  type        = bool
  default     = true
}

variable "database_id" {
  description = "Firestore database the functions use (ROOMLEASE_DATABASE), and that the TTL policies, indexes, rules and the functions' IAM grants apply to. Default (null): name_prefix, so that every instance has a database of its own."
  type        = string
  default     = null

  validation {
    condition     = var.database_id == null || var.database_id == "(default)" || can(regex("^[a-z][a-z0-9-]{2,61}[a-z0-9]$", coalesce(var.database_id, "x")))
    error_message = "database_id must be \"(default)\" or 4-63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen."
  }
}

variable "firestore_location" {
  description = "Location of the Firestore database; used only when create_database is true. A multi-region (nam5, eur3) or a region, close to region; it cannot be changed later."
  type        = string
  default     = "nam5"

  validation {
    condition     = can(regex("^[a-z0-9-]+$", var.firestore_location))
    error_message = "firestore_location must be a Firestore location ID such as \"nam5\", \"eur3\" or \"us-central1\"."
  }
}

# --- Build ----------------------------------------------------------------

# The source. Plan and apply of new code take source_archive; everything
# else (destroy, import, a plan or apply of settings with the code as
# deployed) works with source_object, the name already in the bucket
# (`terraform output -raw source_object_name`), and no archive at all. The
# object's name is the archive's MD5, so the same code gives the same name
# and a deploy of unchanged code uploads and rebuilds nothing
# (docs/deploy.md, "The source archive").

variable "source_archive" {
  description = "Path of a zip that scripts/deploy builds (the root package, functions/, go.mod and go.sum), to upload and build the functions from. Null: build from source_object, which is already in the bucket."
  type        = string
  default     = null

  validation {
    condition     = var.source_archive == null || (endswith(coalesce(var.source_archive, "x"), ".zip") && fileexists(coalesce(var.source_archive, "/nonexistent")))
    error_message = "source_archive must name an existing .zip file; scripts/deploy builds it."
  }
}

variable "source_object" {
  description = "Name of the source object the functions run now (`terraform output -raw source_object_name`), used when source_archive is null: to plan or apply settings without building an archive. It must be the object already in this state; an earlier archive is redeployed by building it again (docs/upgrades.md, \"Rolling back\")."
  type        = string
  default     = null

  validation {
    condition     = var.source_object == null || can(regex("^[a-z0-9-]+-source-[0-9a-f]{32}\\.zip$", coalesce(var.source_object, "x")))
    error_message = "source_object must be the name of a source object the module uploaded, PREFIX-source-MD5.zip (terraform output -raw source_object_name)."
  }
}

variable "go_runtime" {
  description = "Cloud Run functions runtime. It must match the go directive in go.mod."
  type        = string
  default     = "go126"

  validation {
    condition     = can(regex("^go1[0-9]{2}$", var.go_runtime))
    error_message = "go_runtime must be a Go runtime ID such as \"go126\"."
  }
}

# --- Presence settings (both functions) ------------------------------------

variable "heartbeat_interval" {
  description = "ROOMLEASE_HEARTBEAT_INTERVAL: how often clients are told to heartbeat. At least 500ms, and at most half of lease."
  type        = string
  default     = "5s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.heartbeat_interval))
    error_message = "heartbeat_interval must be a positive Go duration such as \"5s\"."
  }
}

variable "lease" {
  description = "ROOMLEASE_LEASE: how long one heartbeat keeps a session alive. At least twice heartbeat_interval, at most 1h."
  type        = string
  default     = "15s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.lease))
    error_message = "lease must be a positive Go duration such as \"15s\"."
  }
}

variable "empty_room_grace" {
  description = "ROOMLEASE_EMPTY_ROOM_GRACE: how long an empty room waits for someone to come back before it may be torn down."
  type        = string
  default     = "30s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.empty_room_grace))
    error_message = "empty_room_grace must be a Go duration such as \"30s\" (\"0s\" for none)."
  }
}

variable "large_room_threshold" {
  description = "ROOMLEASE_LARGE_ROOM_THRESHOLD: roster size from which a room gets a summary, refreshed at most once a second, that its listeners follow instead of every entry (a room's policy may set its own: largeRoomThreshold)."
  type        = number
  default     = 500

  validation {
    condition     = var.large_room_threshold >= 2 && floor(var.large_room_threshold) == var.large_room_threshold
    error_message = "large_room_threshold must be a whole number of at least 2."
  }
}

variable "max_participants" {
  description = "ROOMLEASE_MAX_PARTICIPANTS: roster entries per room; joins beyond it are refused."
  type        = number
  default     = 1000

  validation {
    condition     = var.max_participants >= 1 && floor(var.max_participants) == var.max_participants
    error_message = "max_participants must be a whole number of at least 1."
  }
}

variable "max_sessions_per_user" {
  description = "ROOMLEASE_MAX_SESSIONS_PER_USER: sessions with a live lease one user may hold in one room; further joins get 409 too_many_sessions."
  type        = number
  default     = 10

  validation {
    condition     = var.max_sessions_per_user >= 1 && floor(var.max_sessions_per_user) == var.max_sessions_per_user
    error_message = "max_sessions_per_user must be a whole number of at least 1."
  }
}

variable "max_rooms_per_user" {
  description = "ROOMLEASE_MAX_ROOMS_PER_USER: rooms one user may be on the roster of at once; further joins get 409 too_many_rooms."
  type        = number
  default     = 20

  validation {
    condition     = var.max_rooms_per_user >= 1 && floor(var.max_rooms_per_user) == var.max_rooms_per_user
    error_message = "max_rooms_per_user must be a whole number of at least 1."
  }
}

variable "record_horizon" {
  description = "ROOMLEASE_RECORD_HORIZON: how far ahead rooms and roster entries set expireAt, the TTL backstop. At least 48h, because heartbeats refresh it only in its last day."
  type        = string
  default     = "720h"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.record_horizon))
    error_message = "record_horizon must be a Go duration such as \"720h\"."
  }
}

variable "session_retention" {
  description = "ROOMLEASE_SESSION_RETENTION: how long an ended session document may remain before TTL removes it. At least 1h."
  type        = string
  default     = "24h"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.session_retention))
    error_message = "session_retention must be a Go duration such as \"24h\"."
  }
}

variable "allowed_origins" {
  description = "ROOMLEASE_ALLOWED_ORIGINS: browser origins allowed by CORS, comma-separated (\"https://app.example.com,https://admin.example.com\"), or \"*\" for any. Requests are authenticated by ID token either way."
  type        = string
  default     = "*"

  validation {
    condition     = var.allowed_origins == "*" || alltrue([for o in split(",", var.allowed_origins) : can(regex("^https?://[^/\\s,]+$", trimspace(o)))])
    error_message = "allowed_origins must be \"*\" or a comma-separated list of origins like \"https://app.example.com\" (scheme and host, no path)."
  }
}

variable "cleanup_mode" {
  description = <<-EOT
    ROOMLEASE_CLEANUP_MODE: what the sweeper does with rooms it may tear down.
    "enforce" deletes them, "observe" only records them, "off" does neither
    (lease bookkeeping and reporting continue in every mode). The document
    roomlease/config in Firestore (field cleanupMode) overrides this at run
    time. The default here is "observe", unlike the functions' own default,
    so that a first deployment deletes nothing until an operator has compared
    its candidates with real reconnects (docs/cleanup.md); set "enforce"
    once that is done.
  EOT
  type        = string
  default     = "observe"

  validation {
    condition     = contains(["enforce", "observe", "off"], var.cleanup_mode)
    error_message = "cleanup_mode must be one of \"enforce\", \"observe\", \"off\"."
  }
}

variable "enforce_share_percent" {
  description = <<-EOT
    ROOMLEASE_ENFORCE_SHARE: in enforce mode, the share of rooms (0 to 100,
    in percent, to a hundredth) that the sweeper tears down; it observes the
    rest. Rooms are chosen by a hash of their id, so a room's treatment never
    flips at a fixed share and raising the share only adds rooms. The field
    enforceSharePercent of roomlease/config overrides this at run time; walk
    it through 1, 10, 50 and 100 (docs/cleanup.md, "First deployment").
  EOT
  type        = number
  default     = 100

  validation {
    condition     = var.enforce_share_percent >= 0 && var.enforce_share_percent <= 100
    error_message = "enforce_share_percent must be a number from 0 to 100."
  }
}

variable "reconnect_window" {
  description = "ROOMLEASE_RECONNECT_WINDOW: how long after a teardown candidate a join to its room counts as a reconnect that enforcement breaks (the rollout's false positives). Null (the default): three leases. More than 0, at most 24h."
  type        = string
  default     = null

  validation {
    condition     = var.reconnect_window == null || can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", coalesce(var.reconnect_window, "1s")))
    error_message = "reconnect_window must be null or a positive Go duration such as \"45s\"."
  }
}

variable "log_level" {
  description = "ROOMLEASE_LOG_LEVEL of the Presence function: debug, info, warning or error."
  type        = string
  default     = "info"

  validation {
    condition     = contains(["debug", "info", "warning", "warn", "error"], var.log_level)
    error_message = "log_level must be one of debug, info, warning, error."
  }
}

variable "sweep_log_level" {
  description = "ROOMLEASE_LOG_LEVEL of the Sweep function. The sweeper logs each room it would tear down (or does) at debug level; those lines are what the observe-mode review in docs/cleanup.md compares with reconnects, hence the default. Lower it to info once enforcing if their volume matters."
  type        = string
  default     = "debug"

  validation {
    condition     = contains(["debug", "info", "warning", "warn", "error"], var.sweep_log_level)
    error_message = "sweep_log_level must be one of debug, info, warning, error."
  }
}

# --- Scaling --------------------------------------------------------------

variable "presence_min_instances" {
  description = "Instances of the Presence function kept warm. 0 saves money; 1 removes cold starts from the first join after a quiet spell."
  type        = number
  default     = 0

  validation {
    condition     = var.presence_min_instances >= 0 && floor(var.presence_min_instances) == var.presence_min_instances
    error_message = "presence_min_instances must be a whole number, 0 or more."
  }
}

variable "presence_max_instances" {
  description = "Upper bound on Presence instances: a cost ceiling, and a cap on Firestore load from a traffic spike."
  type        = number
  default     = 20

  validation {
    condition     = var.presence_max_instances >= 1 && var.presence_max_instances <= 1000 && floor(var.presence_max_instances) == var.presence_max_instances
    error_message = "presence_max_instances must be a whole number from 1 to 1000."
  }
}

variable "presence_concurrency" {
  description = "Requests one Presence instance serves at once."
  type        = number
  default     = 80

  validation {
    condition     = var.presence_concurrency >= 1 && var.presence_concurrency <= 1000 && floor(var.presence_concurrency) == var.presence_concurrency
    error_message = "presence_concurrency must be a whole number from 1 to 1000."
  }
}

# --- Sweeper --------------------------------------------------------------

variable "sweep_budget" {
  description = "ROOMLEASE_SWEEP_BUDGET: how long one scheduled Sweep run keeps sweeping before it reports and returns. Just under the one-minute schedule, and at least 10s below sweep_timeout_seconds."
  type        = string
  default     = "55s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.sweep_budget))
    error_message = "sweep_budget must be a positive Go duration such as \"55s\"."
  }
}

variable "sweep_timeout_seconds" {
  description = "Request timeout of the Sweep function, and how long Cloud Scheduler waits for a run."
  type        = number
  default     = 70

  validation {
    # 15s is the shortest attempt deadline Cloud Scheduler accepts; beyond
    # 10 minutes a run would overlap many scheduled ticks.
    condition     = var.sweep_timeout_seconds >= 15 && var.sweep_timeout_seconds <= 600 && floor(var.sweep_timeout_seconds) == var.sweep_timeout_seconds
    error_message = "sweep_timeout_seconds must be a whole number from 15 to 600."
  }
}

variable "sweep_max_instances" {
  description = "Upper bound on concurrent Sweep runs. Small on purpose: one run at a time is normal, two are harmless."
  type        = number
  default     = 2

  validation {
    condition     = var.sweep_max_instances >= 1 && var.sweep_max_instances <= 5 && floor(var.sweep_max_instances) == var.sweep_max_instances
    error_message = "sweep_max_instances must be a whole number from 1 to 5."
  }
}

# --- Alerting -------------------------------------------------------------

variable "cleanup_lag_target_seconds" {
  description = "Cleanup-lag objective: how long after its grace ends an empty room may wait to be deleted. The sweeper's cleanup lag counts from the last departure, so the cleanup-lag alert fires when the 95th percentile of the per-run maximum exceeds empty_room_grace plus this, for 15 minutes."
  type        = number
  default     = 30

  validation {
    condition     = var.cleanup_lag_target_seconds > 0
    error_message = "cleanup_lag_target_seconds must be positive."
  }
}

variable "oldest_eligible_room_age_limit_seconds" {
  description = "Alert when, in enforce mode, a room has been eligible for teardown for longer than this: teardown is stuck for that room."
  type        = number
  default     = 300

  validation {
    condition     = var.oldest_eligible_room_age_limit_seconds >= 60
    error_message = "oldest_eligible_room_age_limit_seconds must be at least 60: the sweeper reports once a minute."
  }
}

variable "generation_conflict_spike_threshold" {
  description = "Alert when one sweep run meets more generation conflicts than this (teardowns that lost to a concurrent join or sweep)."
  type        = number
  default     = 20

  validation {
    condition     = var.generation_conflict_spike_threshold >= 1
    error_message = "generation_conflict_spike_threshold must be at least 1."
  }
}

variable "notification_channels" {
  description = "Cloud Monitoring notification channels the alerts notify, as full IDs (projects/PROJECT/notificationChannels/ID). Empty: alerts open incidents but notify no one."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for c in var.notification_channels : can(regex("^projects/[^/]+/notificationChannels/[^/]+$", c))])
    error_message = "notification_channels must be full IDs of the form projects/PROJECT/notificationChannels/ID."
  }
}

# --- App Check and rate limits ----------------------------------------------

variable "app_check_mode" {
  description = "ROOMLEASE_APP_CHECK: what the API does with requests that carry no valid Firebase App Check token. monitor (the default) serves them and logs and counts them (metric roomlease/app_check_failures); enforce refuses them with 401 app_check_failed; off ignores App Check. Move to enforce once the metric shows that your clients send tokens (docs/abuse.md, \"App Check and rate limits\")."
  type        = string
  default     = "monitor"

  validation {
    condition     = contains(["off", "monitor", "enforce"], var.app_check_mode)
    error_message = "app_check_mode must be off, monitor or enforce."
  }
}

variable "rate_limit" {
  description = "ROOMLEASE_RATE_LIMIT: requests per second each user may make, sustained, per instance (N instances admit up to N times this). 0 turns the limit off."
  type        = number
  default     = 5

  validation {
    condition     = var.rate_limit >= 0
    error_message = "rate_limit must be a number of requests per second, 0 or more."
  }
}

variable "rate_burst" {
  description = "ROOMLEASE_RATE_BURST: how many requests a user may make at once, per instance, before rate_limit applies."
  type        = number
  default     = 30

  validation {
    condition     = var.rate_burst >= 1 && floor(var.rate_burst) == var.rate_burst
    error_message = "rate_burst must be a whole number of at least 1."
  }
}

variable "ip_rate_limit" {
  description = "ROOMLEASE_IP_RATE_LIMIT: requests per second each client address (IPv4, or IPv6 /64) may make, sustained, per instance, checked before the ID token. Many users can share an address (offices, carrier NAT); raise it for such crowds. 0 turns the limit off, which you must do behind a load balancer of your own (every request would seem to come from it)."
  type        = number
  default     = 100

  validation {
    condition     = var.ip_rate_limit >= 0
    error_message = "ip_rate_limit must be a number of requests per second, 0 or more."
  }
}

variable "ip_rate_burst" {
  description = "ROOMLEASE_IP_RATE_BURST: how many requests an address may make at once, per instance, before ip_rate_limit applies."
  type        = number
  default     = 200

  validation {
    condition     = var.ip_rate_burst >= 1 && floor(var.ip_rate_burst) == var.ip_rate_burst
    error_message = "ip_rate_burst must be a whole number of at least 1."
  }
}

variable "auth_lookup_rate" {
  description = "ROOMLEASE_AUTH_LOOKUP_RATE: Firebase Auth user lookups (accounts:lookup, the revocation check) each Presence instance may make per second, sustained. Keep auth_lookup_rate times presence_max_instances below the project's Identity Toolkit quota. While it is spent, users new to an instance get 429 rate_limited and known users are served from their last answer."
  type        = number
  default     = 100

  validation {
    condition     = var.auth_lookup_rate > 0
    error_message = "auth_lookup_rate must be a number of lookups per second, more than 0."
  }
}

variable "auth_lookup_burst" {
  description = "ROOMLEASE_AUTH_LOOKUP_BURST: lookups an instance may make at once before auth_lookup_rate applies; half of it is kept for refreshing users the instance already knows."
  type        = number
  default     = 200

  validation {
    condition     = var.auth_lookup_burst >= 1 && floor(var.auth_lookup_burst) == var.auth_lookup_burst
    error_message = "auth_lookup_burst must be a whole number of at least 1."
  }
}

# --- More presence settings (both functions) --------------------------------
#
# The rest of functions/config, so that no setting needs an edit of
# functions.tf. Relations between them (away lease against lease, renewal
# share against heartbeat) are preconditions in functions.tf.

variable "renew_when_left" {
  description = "ROOMLEASE_RENEW_WHEN_LEFT: the share of the lease left at which the server asks clients to renew (renewAt). Null (the default): one heartbeat interval's share of the lease, heartbeat_interval / lease (1/3 at 5s / 15s). More than 0, at most 1 (1: every heartbeat renews); renew_when_left times lease must be at least heartbeat_interval."
  type        = number
  default     = null

  validation {
    condition     = var.renew_when_left == null || (coalesce(var.renew_when_left, 1) > 0 && coalesce(var.renew_when_left, 1) <= 1)
    error_message = "renew_when_left must be more than 0 and at most 1 (a share of the lease)."
  }
}

variable "revision_shards" {
  description = "ROOMLEASE_REVISION_SHARDS: documents a room's revision is spread over (1-64)."
  type        = number
  default     = 16

  validation {
    condition     = var.revision_shards >= 1 && var.revision_shards <= 64 && floor(var.revision_shards) == var.revision_shards
    error_message = "revision_shards must be a whole number from 1 to 64."
  }
}

variable "max_state_bytes" {
  description = "ROOMLEASE_MAX_STATE_BYTES: a participant's state as compact JSON (2 to 3072)."
  type        = number
  default     = 1024

  validation {
    condition     = var.max_state_bytes >= 2 && var.max_state_bytes <= 3072 && floor(var.max_state_bytes) == var.max_state_bytes
    error_message = "max_state_bytes must be a whole number from 2 to 3072."
  }
}

variable "away_lease" {
  description = "ROOMLEASE_AWAY_LEASE: the lease of a session that is away. At least lease and twice away_heartbeat, at most 1h."
  type        = string
  default     = "2m"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.away_lease))
    error_message = "away_lease must be a positive Go duration such as \"2m\"."
  }
}

variable "away_heartbeat" {
  description = "ROOMLEASE_AWAY_HEARTBEAT: the heartbeat interval told to a session that is away. At least heartbeat_interval."
  type        = string
  default     = "50s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.away_heartbeat))
    error_message = "away_heartbeat must be a positive Go duration such as \"50s\"."
  }
}

variable "recently_left" {
  description = "ROOMLEASE_RECENTLY_LEFT: how long a user whose roster entry went is shown in recentlyLeft (0s to 1h; 0s records none)."
  type        = string
  default     = "2m"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.recently_left))
    error_message = "recently_left must be a Go duration such as \"2m\" (\"0s\" for none)."
  }
}

variable "typing_expiry" {
  description = "ROOMLEASE_TYPING_EXPIRY: how long a typing signal shows without renewal (1s to 1m)."
  type        = string
  default     = "7s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.typing_expiry))
    error_message = "typing_expiry must be a Go duration such as \"7s\"."
  }
}

variable "closing_retention" {
  description = "ROOMLEASE_CLOSING_RETENTION: how long closing records (and archived receipts) are kept. At least 1h."
  type        = string
  default     = "720h"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.closing_retention))
    error_message = "closing_retention must be a Go duration such as \"720h\"."
  }
}

variable "archive_receipts" {
  description = "ROOMLEASE_ARCHIVE_RECEIPTS: at teardown, copy read receipts under the closing record instead of deleting them."
  type        = bool
  default     = false
}

variable "client_names" {
  description = "ROOMLEASE_CLIENT_NAMES: identity (the ID token's name is shown when it has one) or allow (a client's displayName wins)."
  type        = string
  default     = "identity"

  validation {
    condition     = contains(["identity", "allow"], var.client_names)
    error_message = "client_names must be identity or allow."
  }
}

variable "lease_index" {
  description = "ROOMLEASE_LEASE_INDEX: single (the sweeper finds expired sessions in the single-field index on leaseExpiresAt, one range for the whole deployment) or sharded (in the composite indexes by lease shard, as are a room's live sessions and expired typing signals, and the indexes that are one rising range each are dropped: the sessions' and typing signals' single-field collection-group indexes and sessions (roomId, leaseExpiresAt)). Switch to sharded only once every session written before lease shards has renewed or expired: a lease of time after the upgrade, plus the sweeper's lag (docs/upgrades.md)."
  type        = string
  default     = "single"

  validation {
    condition     = contains(["single", "sharded"], var.lease_index)
    error_message = "lease_index must be single or sharded."
  }
}

variable "policy_cache" {
  description = "ROOMLEASE_POLICY_CACHE: how long an instance keeps a room's policy for heartbeats, typing and receipts (0s to 10m; 0s reads it every time). A user removed from a policy written without updatedAt is refused within this time; one with updatedAt is evicted by the sweeper within a pass."
  type        = string
  default     = "2m"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.policy_cache))
    error_message = "policy_cache must be a Go duration such as \"10s\" (\"0s\" to read the policy every time)."
  }
}

variable "revocation_check_every" {
  description = "ROOMLEASE_REVOCATION_CHECK_EVERY: how long an instance trusts a user's Firebase Auth record (more than 0, at most 1m)."
  type        = string
  default     = "30s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.revocation_check_every))
    error_message = "revocation_check_every must be a positive Go duration such as \"30s\"."
  }
}

variable "state_rate_limit" {
  description = "ROOMLEASE_STATE_RATE_LIMIT: visible changes per second a user may make at will, per instance: state updates, a join's new state or name, away toggles that change the roster (0: only rate_limit applies). Over it a state update gets 429; a join or heartbeat keeps its lease and the stored state, name and mode (docs/api.md, \"The state budget\")."
  type        = number
  default     = 1

  validation {
    condition     = var.state_rate_limit >= 0
    error_message = "state_rate_limit must be a number of updates per second, 0 or more."
  }
}

variable "state_rate_burst" {
  description = "ROOMLEASE_STATE_RATE_BURST: such changes a user may make at once, per instance, before state_rate_limit applies."
  type        = number
  default     = 5

  validation {
    condition     = var.state_rate_burst >= 1 && floor(var.state_rate_burst) == var.state_rate_burst
    error_message = "state_rate_burst must be a whole number of at least 1."
  }
}

variable "sweep_max_pause" {
  description = "ROOMLEASE_SWEEP_MAX_PAUSE: the longest pause between the sweeper's passes when no deadline is due sooner."
  type        = string
  default     = "5s"

  validation {
    condition     = can(regex("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", var.sweep_max_pause))
    error_message = "sweep_max_pause must be a positive Go duration such as \"5s\"."
  }
}

variable "sweep_batch" {
  description = "ROOMLEASE_SWEEP_BATCH: rows per step of a sweep pass (1-500)."
  type        = number
  default     = 200

  validation {
    condition     = var.sweep_batch >= 1 && var.sweep_batch <= 500 && floor(var.sweep_batch) == var.sweep_batch
    error_message = "sweep_batch must be a whole number from 1 to 500."
  }
}

variable "sweep_concurrency" {
  description = "ROOMLEASE_SWEEP_CONCURRENCY: how many candidates of one step (sessions to expire, rooms to check) a sweep pass acts on at once (1-64)."
  type        = number
  default     = 8

  validation {
    condition     = var.sweep_concurrency >= 1 && var.sweep_concurrency <= 64 && floor(var.sweep_concurrency) == var.sweep_concurrency
    error_message = "sweep_concurrency must be a whole number from 1 to 64."
  }
}

# --- Releases ----------------------------------------------------------------

variable "min_client_versions" {
  description = "ROOMLEASE_MIN_CLIENT_VERSION: the oldest client versions the API serves, comma-separated KIND/VERSION (\"js/0.2.0,go/0.1.0\"). Older clients that send Roomlease-Client get 426 client_too_old; empty (the default) serves every version. docs/upgrades.md, \"Client compatibility\"."
  type        = string
  default     = ""

  validation {
    condition     = var.min_client_versions == "" || alltrue([for e in split(",", var.min_client_versions) : can(regex("^[a-z][a-z0-9-]{0,15}/[0-9]+\\.[0-9]+\\.[0-9]+$", trimspace(e)))])
    error_message = "min_client_versions must be empty or a comma-separated list of KIND/MAJOR.MINOR.PATCH, such as \"js/0.2.0,go/0.1.0\"."
  }
}

# --- The lease-token key -------------------------------------------------------

variable "lease_token_key" {
  description = "ROOMLEASE_LEASE_TOKEN_KEY: the HMAC key every instance of both functions signs and checks lease tokens with, at least 32 bytes (e.g. `openssl rand -base64 48`). Stored as a Secret Manager secret and given to both functions as a secret environment variable. Null: no secret, and the functions take the slower path that reads the session. Changing it invalidates the tokens clients hold (docs/deploy.md, \"The lease-token key\")."
  type        = string
  default     = null
  sensitive   = true

  validation {
    condition     = var.lease_token_key == null || length(coalesce(var.lease_token_key, "x")) >= 32
    error_message = "lease_token_key must be at least 32 characters (openssl rand -base64 48 gives 64)."
  }
}

# --- Service reads of rosters --------------------------------------------------

variable "service_accounts" {
  description = "ROOMLEASE_SERVICE_ACCOUNTS: emails of the service accounts (an app's backend) that may read any room's roster with a Google-signed ID token, to repair a gap in the presence events. Empty (the default): nobody. docs/events.md, \"Reading a roster as a service\"."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for a in var.service_accounts : can(regex("^[^@\\s,\"<>]+@[^@\\s,\"<>]+$", a))])
    error_message = "service_accounts must be emails such as backend@my-project.iam.gserviceaccount.com."
  }
}

variable "service_audience" {
  description = "ROOMLEASE_SERVICE_AUDIENCE: the audience the services' ID tokens must carry. Null (the default): the API's URL (the api_url output)."
  type        = string
  default     = null

  validation {
    condition     = var.service_audience == null || can(regex("^\\S+$", coalesce(var.service_audience, "x")))
    error_message = "service_audience must be a non-empty string without spaces, such as the API's URL."
  }
}

# --- Presence events (events.tf) ------------------------------------------------

variable "events_enabled" {
  description = "Publish presence events (docs/events.md): creates the topic, its dead-letter topic and the functions' publisher grants, and sets ROOMLEASE_EVENTS_TOPIC. False (the default): no topic, no outbox, no cost."
  type        = bool
  default     = false
}

variable "events_topic" {
  description = "ROOMLEASE_EVENTS_TOPIC: the events topic's id, in project_id. Null (the default): NAME_PREFIX-events."
  type        = string
  default     = null

  validation {
    # Pub/Sub's rule, as functions/config checks it.
    condition     = var.events_topic == null || can(regex("^[A-Za-z][A-Za-z0-9._~+%-]{2,254}$", coalesce(var.events_topic, "xxx"))) && !startswith(lower(coalesce(var.events_topic, "x")), "goog")
    error_message = "events_topic must be a Pub/Sub topic id: 3-255 letters, digits and - _ . ~ + %, starting with a letter and not with \"goog\" (the id, not projects/.../topics/...)."
  }
}

variable "event_push_endpoint" {
  description = "The app backend's HTTPS URL that a push subscription delivers the events to, with an OIDC token of the NAME_PREFIX-event-push service account (the event_push_service_account output). Null (the default): no push subscription."
  type        = string
  default     = null

  validation {
    condition     = var.event_push_endpoint == null || can(regex("^https://[^\\s/]+(/\\S*)?$", coalesce(var.event_push_endpoint, "x")))
    error_message = "event_push_endpoint must be an https:// URL."
  }
}

variable "event_push_audience" {
  description = "The audience of the push requests' OIDC tokens, which the backend checks. Null (the default): event_push_endpoint."
  type        = string
  default     = null

  validation {
    condition     = var.event_push_audience == null || can(regex("^\\S+$", coalesce(var.event_push_audience, "x")))
    error_message = "event_push_audience must be a non-empty string without spaces."
  }
}

variable "event_pull_subscription" {
  description = "Also create a pull subscription NAME_PREFIX-events-pull (ordered, dead-lettered), for a backend that pulls."
  type        = bool
  default     = false
}

variable "event_max_delivery_attempts" {
  description = "Deliveries of one event to the backend before it goes to the dead-letter topic (Pub/Sub allows 5-100)."
  type        = number
  default     = 10

  validation {
    condition     = var.event_max_delivery_attempts >= 5 && var.event_max_delivery_attempts <= 100 && floor(var.event_max_delivery_attempts) == var.event_max_delivery_attempts
    error_message = "event_max_delivery_attempts must be a whole number from 5 to 100."
  }
}

variable "event_retry_minimum_backoff" {
  description = "The backoff after a failed delivery, at first (Pub/Sub duration, \"10s\"; 0-600s)."
  type        = string
  default     = "10s"

  validation {
    condition     = can(regex("^[0-9]+(\\.[0-9]{1,9})?s$", var.event_retry_minimum_backoff)) && try(tonumber(trimsuffix(var.event_retry_minimum_backoff, "s")) <= 600, false)
    error_message = "event_retry_minimum_backoff must be seconds such as \"10s\", at most \"600s\"."
  }
}

variable "event_retry_maximum_backoff" {
  description = "The longest backoff between deliveries of one event (Pub/Sub duration, \"600s\"; 0-600s)."
  type        = string
  default     = "600s"

  validation {
    condition     = can(regex("^[0-9]+(\\.[0-9]{1,9})?s$", var.event_retry_maximum_backoff)) && try(tonumber(trimsuffix(var.event_retry_maximum_backoff, "s")) <= 600, false)
    error_message = "event_retry_maximum_backoff must be seconds such as \"600s\", at most \"600s\"."
  }
}

variable "events_outbox_age_limit_seconds" {
  description = "Alert when the oldest event not yet published has waited longer than this. Instances publish within milliseconds and the relay takes what is over 10 s old on its next pass."
  type        = number
  default     = 300

  validation {
    condition     = var.events_outbox_age_limit_seconds >= 60
    error_message = "events_outbox_age_limit_seconds must be at least 60: the relay leaves records younger than 10 s to their instance, and runs once a pass."
  }
}
