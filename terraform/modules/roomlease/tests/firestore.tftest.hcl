# Firestore: TTL policies, indexes, rules and the database choice.
# The Go test in ../config_test.go checks the same lists against the
# application's constants and firestore.indexes.json; these runs check that
# the resources are built from them correctly.

mock_provider "google" {
  source = "./tests/mocks"
}

variables {
  project_id     = "roomlease-test"
  source_archive = "tests/fixtures/empty-source.zip"

  # With no channel, the check alerts_notify_someone fails, and a failed
  # check fails a test run; the run that expects it is in functions.tftest.hcl.
  notification_channels = ["projects/roomlease-test/notificationChannels/123"]
}

run "ttl_policy_on_every_collection_group" {
  assert {
    condition     = toset(keys(google_firestore_field.ttl)) == toset(["rooms", "participants", "sessions", "typing", "receipts", "roomClosings", "rosterRevisions", "roomleaseUsers", "recentlyLeft", "teardownCandidates", "summary", "largeRooms", "joinClaims"])
    error_message = "Expected exactly one TTL field per collection group rooms, participants, sessions, typing, receipts, roomClosings, rosterRevisions, roomleaseUsers, recentlyLeft, teardownCandidates, summary, largeRooms, joinClaims (events off; events.tftest.hcl has roomleaseOutbox); got ${jsonencode(keys(google_firestore_field.ttl))}."
  }

  assert {
    condition     = alltrue([for f in google_firestore_field.ttl : f.field == "expireAt" && length(f.ttl_config) == 1])
    error_message = "Every TTL field must be expireAt and carry a ttl_config."
  }

  assert {
    # An empty index_config is what turns single-field indexing off.
    condition     = alltrue([for f in google_firestore_field.ttl : length(f.index_config) == 1 && length(f.index_config[0].indexes) == 0])
    error_message = "TTL fields must have indexing turned off (one empty index_config)."
  }

  assert {
    condition     = alltrue([for k, f in google_firestore_field.ttl : f.collection == k])
    error_message = "TTL fields must be keyed by their collection group."
  }
}

run "indexes_match_firestore_indexes_json" {
  assert {
    condition     = length(google_firestore_index.composite) == 8
    error_message = "Expected 8 composite indexes, got ${length(google_firestore_index.composite)}."
  }

  assert {
    condition = (
      google_firestore_index.composite["sessions:leaseShard,leaseExpiresAt"].query_scope == "COLLECTION_GROUP" &&
      [for f in google_firestore_index.composite["sessions:leaseShard,leaseExpiresAt"].fields : "${f.field_path} ${f.order}"] == ["leaseShard ASCENDING", "leaseExpiresAt ASCENDING"]
    )
    error_message = "The sessions' lease-shard index must be collection-group scoped on leaseShard, leaseExpiresAt (both ascending): it is built before lease_index is switched to sharded."
  }

  assert {
    condition = (
      google_firestore_index.composite["sessions:roomId,leaseExpiresAt"].query_scope == "COLLECTION_GROUP" &&
      [for f in google_firestore_index.composite["sessions:roomId,leaseExpiresAt"].fields : "${f.field_path} ${f.order}"] == ["roomId ASCENDING", "leaseExpiresAt ASCENDING"]
    )
    error_message = "The sessions index must be collection-group scoped on roomId, leaseExpiresAt (both ascending)."
  }

  assert {
    condition = (
      google_firestore_index.composite["rooms:state,cleanupAfter"].query_scope == "COLLECTION" &&
      [for f in google_firestore_index.composite["rooms:state,cleanupAfter"].fields : "${f.field_path} ${f.order}"] == ["state ASCENDING", "cleanupAfter ASCENDING"]
    )
    error_message = "The rooms index must be collection scoped on state, cleanupAfter (both ascending)."
  }

  assert {
    condition     = toset(keys(google_firestore_field.index_override)) == toset(["sessions.leaseExpiresAt", "typing.expiresAt", "rosterRevisions.mayBeEmptyAt", "recentlyLeft.leftAt"])
    error_message = "With events off, the non-TTL field overrides must be exactly sessions.leaseExpiresAt, typing.expiresAt, rosterRevisions.mayBeEmptyAt and recentlyLeft.leftAt; got ${jsonencode(keys(google_firestore_field.index_override))}."
  }

  assert {
    # Both deadlines are queried across all rooms, so each needs a
    # collection-group scoped index besides the default collection one.
    condition = alltrue([
      for o in google_firestore_field.index_override :
      toset([for i in o.index_config[0].indexes : "${i.order} ${i.query_scope}"]) == toset(["ASCENDING COLLECTION", "ASCENDING COLLECTION_GROUP"])
    ])
    error_message = "Each overridden field must be indexed ascending at collection and collection-group scope."
  }
}

# The second step of the lease-shard rollout (docs/upgrades.md): the
# single-field collection-group indexes on the deadlines every client or
# departure writes at about now (leaseExpiresAt, expiresAt, mayBeEmptyAt,
# leftAt), the hot ones, go; their collection-scoped indexes stay.
run "sharded_lease_index_drops_the_hot_one" {
  variables {
    lease_index = "sharded"
  }

  assert {
    condition = alltrue([
      for k in ["sessions.leaseExpiresAt", "typing.expiresAt", "rosterRevisions.mayBeEmptyAt", "recentlyLeft.leftAt"] :
      toset([for i in google_firestore_field.index_override[k].index_config[0].indexes : "${i.order} ${i.query_scope}"]) == toset(["ASCENDING COLLECTION"])
    ])
    error_message = "With lease_index sharded, sessions.leaseExpiresAt, typing.expiresAt, rosterRevisions.mayBeEmptyAt and recentlyLeft.leftAt must keep only their collection-scoped index."
  }

  assert {
    condition = toset(keys(google_firestore_index.composite)) == toset([
      "sessions:leaseShard,leaseExpiresAt", "sessions:roomId,leaseShard,leaseExpiresAt", "typing:expiryShard,expiresAt",
      "rosterRevisions:markShard,mayBeEmptyAt", "recentlyLeft:leftShard,leftAt",
      "rooms:state,cleanupAfter", "rooms:state,teardownReported,cleanupAfter",
    ])
    error_message = "With lease_index sharded, the one-room index sessions (roomId, leaseExpiresAt) must go and the lease-shard indexes stay; got ${jsonencode(keys(google_firestore_index.composite))}."
  }
}

run "dedicated_database_by_default" {
  assert {
    condition     = length(google_firestore_database.this) == 1 && google_firestore_database.this[0].name == "roomlease"
    error_message = "By default a database named roomlease must be created."
  }

  assert {
    condition = (
      google_firestore_database.this[0].type == "FIRESTORE_NATIVE" &&
      google_firestore_database.this[0].location_id == "nam5" &&
      google_firestore_database.this[0].delete_protection_state == "DELETE_PROTECTION_ENABLED" &&
      google_firestore_database.this[0].deletion_policy == "ABANDON"
    )
    error_message = "The database must be a Native mode database in firestore_location that Terraform never deletes."
  }

  assert {
    condition = alltrue(concat(
      [for f in google_firestore_field.ttl : f.database == "roomlease"],
      [for f in google_firestore_field.index_override : f.database == "roomlease"],
      [for i in google_firestore_index.composite : i.database == "roomlease"],
    ))
    error_message = "TTL policies and indexes must apply to the roomlease database."
  }

  assert {
    condition     = google_firebaserules_release.firestore.name == "cloud.firestore/roomlease"
    error_message = "A named database's rules release must be cloud.firestore/<database>, got ${google_firebaserules_release.firestore.name}."
  }

  assert {
    condition = (
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_DATABASE"] == "roomlease" &&
      google_cloudfunctions2_function.sweep.service_config[0].environment_variables["ROOMLEASE_DATABASE"] == "roomlease"
    )
    error_message = "Both functions must be told to use the roomlease database."
  }

  assert {
    condition     = google_firebaserules_ruleset.firestore.source[0].files[0].content == file("../../../firestore/firestore.rules")
    error_message = "The ruleset must be firestore/firestore.rules, verbatim."
  }

  assert {
    condition     = google_firebaserules_release.firestore.ruleset_name == "projects/roomlease-test/rulesets/${google_firebaserules_ruleset.firestore.name}"
    error_message = "The release must point at the ruleset built here."
  }
}

run "existing_default_database" {
  variables {
    create_database = false
    database_id     = "(default)"
  }

  assert {
    condition     = length(google_firestore_database.this) == 0
    error_message = "No database may be created when create_database is false."
  }

  assert {
    condition = alltrue(concat(
      [for f in google_firestore_field.ttl : f.database == "(default)"],
      [for f in google_firestore_field.index_override : f.database == "(default)"],
      [for i in google_firestore_index.composite : i.database == "(default)"],
    ))
    error_message = "TTL policies and indexes must apply to the (default) database."
  }

  assert {
    condition     = google_firebaserules_release.firestore.name == "cloud.firestore"
    error_message = "The default database's rules release must be named cloud.firestore, got ${google_firebaserules_release.firestore.name}."
  }

  assert {
    condition = (
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_DATABASE"] == "(default)" &&
      google_cloudfunctions2_function.sweep.service_config[0].environment_variables["ROOMLEASE_DATABASE"] == "(default)"
    )
    error_message = "Both functions must be told to use the existing database."
  }
}
