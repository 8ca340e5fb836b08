# Firestore: the database (unless an existing one is used), TTL policies,
# indexes and rules.
#
# Names here are the contract with functions/firestoredb/schema.go and
# firestore/firestore.indexes.json (used by the emulator). config_test.go in
# this directory fails if the three disagree, so edit them together.

locals {
  # The collection groups whose documents carry the TTL field. A TTL policy
  # belongs to one collection group, and Firestore TTL does not delete a
  # document's subcollections, so every level that can be orphaned needs its
  # own policy. Adding a collection group is one line here, one in
  # firestoredb.TTLCollectionGroups and one in the indexes JSON.
  ttl_collection_groups = ["rooms", "participants", "sessions", "typing", "receipts", "roomClosings", "rosterRevisions", "roomleaseUsers", "recentlyLeft", "teardownCandidates", "roomleaseOutbox", "eventCursors", "summary", "largeRooms", "joinClaims"]

  # firestoredb.FieldExpireAt.
  ttl_field = "expireAt"

  # Composite indexes, as in the "indexes" list of firestore.indexes.json.
  composite_indexes = [
    {
      # One room's sessions by lease deadline (the roster read, a service's
      # roster read, a teardown candidate's evidence). Its range is one
      # room's, hot in a room of more than about 5 000 participants online,
      # so it is dropped once lease_index is "sharded" and the next index
      # takes over.
      collection           = "sessions"
      query_scope          = "COLLECTION_GROUP"
      dropped_when_sharded = true
      fields = [
        { field_path = "roomId", order = "ASCENDING" },
        { field_path = "leaseExpiresAt", order = "ASCENDING" },
      ]
    },
    {
      # The same by lease shard, all shards in one query ("in"): read once
      # lease_index is "sharded".
      collection  = "sessions"
      query_scope = "COLLECTION_GROUP"
      fields = [
        { field_path = "roomId", order = "ASCENDING" },
        { field_path = "leaseShard", order = "ASCENDING" },
        { field_path = "leaseExpiresAt", order = "ASCENDING" },
      ]
    },
    {
      # The sweeper's collection-group query for expired leases by lease
      # shard, all shards in one query (firestoredb/leaseshards.go): 16
      # ranges that rise apart, where the single-field index below is one
      # for the whole deployment. Read once lease_index is "sharded".
      collection  = "sessions"
      query_scope = "COLLECTION_GROUP"
      fields = [
        { field_path = "leaseShard", order = "ASCENDING" },
        { field_path = "leaseExpiresAt", order = "ASCENDING" },
      ]
    },
    {
      # The sweeper's collection-group query for expired typing signals by
      # shard, all shards in one query: every signal writes about now plus
      # 5 s, one rising range in the single-field index below. Read once
      # lease_index is "sharded".
      collection  = "typing"
      query_scope = "COLLECTION_GROUP"
      fields = [
        { field_path = "expiryShard", order = "ASCENDING" },
        { field_path = "expiresAt", order = "ASCENDING" },
      ]
    },
    {
      # The sweeper's repair marks by shard, all shards in one query:
      # every departure that removes an entry marks about now, one rising
      # range in the single-field index on mayBeEmptyAt. Read once
      # lease_index is "sharded".
      collection  = "rosterRevisions"
      query_scope = "COLLECTION_GROUP"
      fields = [
        { field_path = "markShard", order = "ASCENDING" },
        { field_path = "mayBeEmptyAt", order = "ASCENDING" },
      ]
    },
    {
      # The departure records to fold, by shard, all shards in one query:
      # every such departure writes leftAt at about now too. Read once
      # lease_index is "sharded".
      collection  = "recentlyLeft"
      query_scope = "COLLECTION_GROUP"
      fields = [
        { field_path = "leftShard", order = "ASCENDING" },
        { field_path = "leftAt", order = "ASCENDING" },
      ]
    },
    {
      # The sweeper's query for rooms in a teardown state whose grace ended.
      collection  = "rooms"
      query_scope = "COLLECTION"
      fields = [
        { field_path = "state", order = "ASCENDING" },
        { field_path = "cleanupAfter", order = "ASCENDING" },
      ]
    },
    {
      # The same for a sweeper in observe or off mode: only rooms it has
      # not reported yet.
      collection  = "rooms"
      query_scope = "COLLECTION"
      fields = [
        { field_path = "state", order = "ASCENDING" },
        { field_path = "teardownReported", order = "ASCENDING" },
        { field_path = "cleanupAfter", order = "ASCENDING" },
      ]
    },
  ]

  # Single-field index overrides other than the TTL fields, as in the
  # "fieldOverrides" list of firestore.indexes.json. Single-field indexes are
  # collection scoped by default; these deadlines also get a collection-group
  # scoped index so that the sweeper finds what ran out, in all rooms, with
  # one query each.
  field_index_overrides = [
    {
      # Expired leases, in one range for the whole deployment: a hot index
      # past about 5 000 participants online. Its collection-group index
      # is dropped once lease_index is "sharded" (the composite index by
      # lease shard above takes over).
      collection           = "sessions"
      field                = "leaseExpiresAt"
      dropped_when_sharded = "COLLECTION_GROUP"
      indexes = [
        { order = "ASCENDING", query_scope = "COLLECTION" },
        { order = "ASCENDING", query_scope = "COLLECTION_GROUP" },
      ]
    },
    {
      # Expired typing signals; the collection-group index goes once
      # lease_index is "sharded", as the leases' does.
      collection           = "typing"
      field                = "expiresAt"
      dropped_when_sharded = "COLLECTION_GROUP"
      indexes = [
        { order = "ASCENDING", query_scope = "COLLECTION" },
        { order = "ASCENDING", query_scope = "COLLECTION_GROUP" },
      ]
    },
    {
      # Rooms whose roster may have emptied unnoticed (the sweeper's
      # repair); the collection-group index goes once lease_index is
      # "sharded" (the composite index by markShard takes over).
      collection           = "rosterRevisions"
      field                = "mayBeEmptyAt"
      dropped_when_sharded = "COLLECTION_GROUP"
      indexes = [
        { order = "ASCENDING", query_scope = "COLLECTION" },
        { order = "ASCENDING", query_scope = "COLLECTION_GROUP" },
      ]
    },
    {
      # Departure records nobody shows any more, which the sweeper folds
      # into their rooms' retired counts; the collection-group index goes
      # once lease_index is "sharded" (by leftShard). The collection
      # index stays: a roster read lists one room's recent departures.
      collection           = "recentlyLeft"
      field                = "leftAt"
      dropped_when_sharded = "COLLECTION_GROUP"
      indexes = [
        { order = "ASCENDING", query_scope = "COLLECTION" },
        { order = "ASCENDING", query_scope = "COLLECTION_GROUP" },
      ]
    },
    {
      # The events outbox's time rises with every write: indexed, it would
      # be a hot index range, capped at about 500 writes a second across
      # the database. Nothing queries it.
      collection = "roomleaseOutbox"
      field      = "time"
      indexes    = []
    },
  ]

  # The database every Firestore resource and both functions use. Reading the
  # name from the resource when we create it orders the resources after it.
  database_id = var.create_database ? google_firestore_database.this[0].name : local.database_name

  # Firebase names the rules release of the default database "cloud.firestore"
  # and that of a named database "cloud.firestore/<database>".
  rules_release_name = local.database_name == "(default)" ? "cloud.firestore" : "cloud.firestore/${local.database_name}"
}

resource "google_firestore_database" "this" {
  count = var.create_database ? 1 : 0

  project     = var.project_id
  name        = local.database_name
  location_id = var.firestore_location
  type        = "FIRESTORE_NATIVE"

  # Presence data is short-lived, but the database may hold other data
  # later; a `terraform destroy` of the functions should never take the
  # database with it. Deleting it is a deliberate act outside Terraform.
  delete_protection_state = "DELETE_PROTECTION_ENABLED"
  deletion_policy         = "ABANDON"

  depends_on = [google_project_service.enabled]
}

# One TTL policy per collection group. The empty index_config turns off
# single-field indexing of expireAt: nothing queries it, and an index on a
# monotonically increasing timestamp only costs writes and creates a hotspot.
resource "google_firestore_field" "ttl" {
  # The events' collection groups only with events on (events.tf).
  for_each = toset([for g in local.ttl_collection_groups : g if var.events_enabled || !contains(local.events_collection_groups, g)])

  project    = var.project_id
  database   = local.database_id
  collection = each.key
  field      = local.ttl_field

  ttl_config {}
  index_config {}

  depends_on = [google_project_service.enabled]
}

resource "google_firestore_field" "index_override" {
  for_each = {
    for o in local.field_index_overrides : "${o.collection}.${o.field}" => o
    if var.events_enabled || !contains(local.events_collection_groups, o.collection)
  }

  project    = var.project_id
  database   = local.database_id
  collection = each.value.collection
  field      = each.value.field

  index_config {
    dynamic "indexes" {
      for_each = [
        for i in each.value.indexes : i
        if !(var.lease_index == "sharded" && try(each.value.dropped_when_sharded, "") == i.query_scope)
      ]
      content {
        order       = indexes.value.order
        query_scope = indexes.value.query_scope
      }
    }
  }

  depends_on = [google_project_service.enabled]
}

resource "google_firestore_index" "composite" {
  for_each = {
    for i in local.composite_indexes :
    "${i.collection}:${join(",", [for f in i.fields : f.field_path])}" => i
    if !(var.lease_index == "sharded" && try(i.dropped_when_sharded, false))
  }

  project     = var.project_id
  database    = local.database_id
  collection  = each.value.collection
  query_scope = each.value.query_scope

  # Firestore appends __name__ to every composite index; the provider accounts
  # for that, so it is not listed here (nor in the JSON).
  dynamic "fields" {
    for_each = each.value.fields
    content {
      field_path = fields.value.field_path
      order      = fields.value.order
    }
  }

  depends_on = [google_project_service.enabled]
}

resource "google_firebaserules_ruleset" "firestore" {
  project = var.project_id

  source {
    files {
      name    = "firestore.rules"
      content = file("${path.module}/../../../firestore/firestore.rules")
    }
  }

  # A ruleset is immutable: a change to the rules creates a new one. Creating
  # it first means the old ruleset is deleted only after the release has
  # been recreated on the new one, never while it is still released.
  lifecycle {
    create_before_destroy = true
  }

  depends_on = [google_project_service.enabled]
}

# A rules change is NOT seamless. In provider 7.45.0 every argument of this
# resource forces replacement (its update changes nothing remote), so a new
# ruleset means: delete the release, then create it again, pointing at the
# new ruleset. For the second or two in between, the database has no
# released rules and clients' reads and listeners are refused. The obvious
# ways out do not work: create_before_destroy fails because the release's
# name is fixed ("cloud.firestore/<database>") and the new one would collide
# with the old; deletion_policy = "ABANDON" fails the same way, because the
# provider's create refuses to adopt an existing release. The runbook
# ("Changing the security rules") says when and how to apply rules changes.
resource "google_firebaserules_release" "firestore" {
  project      = var.project_id
  name         = local.rules_release_name
  ruleset_name = "projects/${var.project_id}/rulesets/${google_firebaserules_ruleset.firestore.name}"

  # The release must exist after its database does.
  depends_on = [google_firestore_database.this]
}
