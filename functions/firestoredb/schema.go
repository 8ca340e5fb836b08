package firestoredb

import "github.com/roomlease/roomlease/functions/presence"

// The Firestore layout. These names are the contract with clients (listener
// paths), with the security rules, with firestore/firestore.indexes.json and
// with the Terraform configuration; a test checks the latter two against them.
const (
	// rooms/{roomId}: the room document.
	RoomsCollection = "rooms"
	// rooms/{roomId}/participants/{uid}: roster entries, what listeners watch.
	ParticipantsCollection = "participants"
	// rooms/{roomId}/rosterRevisions/{shard}: the room's revision, spread
	// over presence.Settings.RevisionShards documents that listeners add up.
	RevisionsCollection = "rosterRevisions"
	// rooms/{roomId}/participants/{uid}/sessions/{sessionId}: leases, the
	// heartbeat target. Nobody listens here.
	SessionsCollection = "sessions"
	// rooms/{roomId}/typing/{uid}: typing signals, expiring by themselves.
	TypingCollection = "typing"
	// rooms/{roomId}/receipts/{uid}: read positions.
	ReceiptsCollection = "receipts"
	// rooms/{roomId}/recentlyLeft/{uid}: users who recently went from the
	// roster, and why (presence.Departure).
	RecentlyLeftCollection = "recentlyLeft"
	// rooms/{roomId}/summary/current: a large room's summary (see
	// presence.Summary), what its listeners follow instead of the roster.
	SummaryCollection = "summary"
	SummaryDoc        = "current"
	// rooms/{roomId}/summary/occupancy: count, revision and asOf only, for
	// outsiders of a room that opts in to public occupancy.
	OccupancyDoc = "occupancy"
	// largeRooms/{roomId}: the rooms the summarizer refreshes, marked by
	// the joins that take a room across its threshold.
	LargeRoomsCollection = "largeRooms"
	// FieldLeftAt is when a departure's user went.
	FieldLeftAt = "leftAt"
	// roomClosings/{roomId}~{openedAtMicros}: the record of a torn-down room
	// lifetime, with archived receipts beneath it when so configured.
	ClosingsCollection = "roomClosings"
	// teardownCandidates/{roomId}~{createdAtMicros}~{generation}~{emptySinceMicros}:
	// the rooms a teardown check found proven empty, for the rollout's
	// counts (presence.Candidate). FieldClassifyAfter is present while one
	// waits for its classification; FieldClass and FieldClassifiedAt are
	// what it was classified as, and when.
	CandidatesCollection = "teardownCandidates"
	FieldClassifyAfter   = "classifyAfter"
	FieldClass           = "class"
	FieldClassifiedAt    = "classifiedAt"
	// roomlease/config (cleanupMode) and roomlease/sweepStatus (the latest
	// sweep summary): operator-facing documents.
	ControlCollection = "roomlease"
	ConfigDoc         = "config"
	SweepStatusDoc    = "sweepStatus"
	// roomPolicies/{roomId}: optional admission rules written by operators.
	// Not under rooms/, so that a policy outlives teardowns of its room.
	PoliciesCollection = "roomPolicies"
	// roomleaseUsers/{uid}: the rooms a user joined, for the rooms-per-user
	// cap. Not "users", which apps sharing the database often own.
	UsersCollection = "roomleaseUsers"

	// rooms/{roomId}/joinClaims/{uid}~{sessionId}: a join's claim on a
	// place, from before it counts the roster until its entry commits or
	// it gives up (claims.go). FieldOrder is the claims' order: the
	// claim's time in nanoseconds, zero-padded, then the user.
	ClaimsCollection = "joinClaims"
	FieldOrder       = "order"

	// FieldExpireAt is the TTL field on every document that can be orphaned.
	FieldExpireAt = "expireAt"
	// FieldLeaseExpiresAt is the lease deadline of a session.
	FieldLeaseExpiresAt = "leaseExpiresAt"
	// FieldLeaseShard spreads the sessions' lease deadlines over
	// LeaseShards ranges of a composite index (leaseshards.go).
	FieldLeaseShard = "leaseShard"
	// FieldRoomID is copied into sessions so that one collection-group query
	// finds a room's live sessions.
	FieldRoomID = "roomId"
	// FieldExpiresAt is when a typing signal stops showing (server time).
	FieldExpiresAt = "expiresAt"
	// FieldExpiryShard spreads the typing signals' expiresAt over
	// LeaseShards ranges, as FieldLeaseShard does the leases'
	// (leaseshards.go).
	FieldExpiryShard = "expiryShard"
	// FieldMarkShard spreads the repair marks' mayBeEmptyAt, and
	// FieldLeftShard the departure records' leftAt, over LeaseShards
	// ranges, as FieldLeaseShard does the leases' (leaseshards.go).
	FieldMarkShard = "markShard"
	FieldLeftShard = "leftShard"
	// FieldState and FieldCleanupAfter find rooms due for teardown; with
	// FieldGeneration, FieldEmptySince and FieldUpdatedAt they are what a
	// revival of the room rewrites.
	FieldState        = "state"
	FieldCleanupAfter = "cleanupAfter"
	FieldGeneration   = "generation"
	FieldEmptySince   = "emptySince"
	FieldUpdatedAt    = "updatedAt"
	// FieldTeardownReported keeps rooms an observing sweeper has reported
	// out of its next listings.
	FieldTeardownReported = "teardownReported"
	// FieldChanges is a revision shard's count of visible roster changes,
	// and, on a roster entry or a departure record, how many of them it
	// carries for listeners (see revision.go, "What listeners add up").
	FieldChanges = "changes"
	// RetiredDoc (recentlyLeft/~retired, an id no user may have) keeps, in
	// FieldRetired, the changes of the departure records the sweeper has
	// folded: beside them, so that a listener sees a fold's deletions and
	// its count in one snapshot. It has no FieldLeftAt, so every query of
	// the departures leaves it out.
	RetiredDoc   = presence.ReservedParticipantID
	FieldRetired = "retired"
	// FieldRoomOpenedAt on an entry or a departure record is the createdAt
	// of the room lifetime it belongs to; FieldChangesCarried on a room
	// says its entries and departures carry their changes.
	FieldRoomOpenedAt   = "roomOpenedAt"
	FieldChangesCarried = "changesCarried"
	// FieldRevisionOnEntries on a room and on its entries says the room
	// keeps its revision and size on its entries and records alone
	// (revision.go, "Where the revision is kept").
	FieldRevisionOnEntries = "revisionOnEntries"
	// DepartureMarkPrefix names, among a room's revision shards, the
	// per-user document on which a departure in a room that keeps its
	// revision on its entries marks the room for the emptiness repair
	// (FieldMayBeEmptyAt): its own, so that departures of different users
	// write no common document.
	DepartureMarkPrefix = "left~"
	// FieldEntries is a revision shard's count of roster entries (added
	// less removed) of its users; FieldEntriesCounted on a room says its
	// shards have counted every entry of the lifetime.
	FieldEntries        = "entries"
	FieldEntriesCounted = "entriesCounted"
	// FieldMayBeEmptyAt on a revision shard is when the latest departure
	// recorded there that removed a roster entry (or the room's creation or
	// revival) was decided: the now of the transaction that committed it,
	// so it trails the commit by at most one attempt. The sweeper re-checks
	// such rooms for emptiness in case the departing request died before it
	// could. FieldDepartedAt is that departure's own time (a lease's end,
	// for an expiry), from which the grace counts.
	FieldMayBeEmptyAt = "mayBeEmptyAt"
	FieldDepartedAt   = "departedAt"
	// RepairWatermarkDoc (under ControlCollection) keeps, in FieldThrough,
	// how far the sweepers' emptiness re-checks have looked, for a sweeper
	// that starts after an outage longer than its lookback.
	RepairWatermarkDoc = "repairWatermark"
	FieldThrough       = "through"
	// FieldRoomExpireAt and FieldEntryExpireAt are a session's copies of its
	// room's and roster entry's expireAt (see presence/ttl.go).
	FieldRoomExpireAt  = "roomExpireAt"
	FieldEntryExpireAt = "entryExpireAt"
	// FieldEntryJoinedAt on a session is the joinedAt of the roster entry
	// that counts it (presence.SoleSession).
	FieldEntryJoinedAt = "entryJoinedAt"
	// FieldRevisionExpireAt on a room is the least expireAt any of its
	// revision shards carries (see presence.Settings.ShardsExpiry).
	FieldRevisionExpireAt = "revisionExpireAt"
	// FieldAway is a session's away flag (presence.Session.Away).
	FieldAway = "away"
	// FieldPendingCleanup marks closing records whose purge is unfinished.
	FieldPendingCleanup = "pendingCleanup"
	// FieldCleanupMode is the kill switch's field in roomlease/config.
	FieldCleanupMode = "cleanupMode"
	// FieldEnforceShare in roomlease/config is the share of rooms, in
	// percent, that an enforcing sweeper tears down (the rest it observes).
	FieldEnforceShare = "enforceSharePercent"
)

// Every name above that a query or update uses appears in a record's
// firestore tag too (records.go); Go cannot put a constant in a tag, so a
// test (TestSchema_FieldsMatchRecords) keeps the two in step.

// The events' documents (outbox.go, docs/events.md).
const (
	// roomleaseOutbox/{eventId}: events committed and not yet acknowledged
	// by Pub/Sub. At the root, so it outlives the teardown.
	OutboxCollection = "roomleaseOutbox"
	// FieldTime is an outbox record's time, exempted from indexing: a
	// field that rises with every write would be a hot index range.
	FieldTime = "time"
	// rooms/{roomId}/eventCursors/{uid}: a participant's latest event
	// sequence number in the room's lifetime.
	EventCursorsCollection = "eventCursors"
)

// TTLCollectionGroups are the collection groups whose documents carry
// FieldExpireAt and need a TTL policy. Policies are per collection group, so
// "participants" covers every room's roster and "sessions" every roster's
// sessions: Firestore TTL does not delete subcollections with their parent,
// so each level needs its own.
var TTLCollectionGroups = []string{RoomsCollection, ParticipantsCollection, SessionsCollection, TypingCollection,
	ReceiptsCollection, ClosingsCollection, RevisionsCollection, UsersCollection, RecentlyLeftCollection, CandidatesCollection,
	OutboxCollection, EventCursorsCollection, SummaryCollection, LargeRoomsCollection, ClaimsCollection}
