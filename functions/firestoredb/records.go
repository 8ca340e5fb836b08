package firestoredb

import (
	"fmt"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// The stored shape of each document. Field names are part of the client
// contract (listeners read rooms and roster entries), so they are spelled out
// here rather than derived from the domain types. Each record has its
// conversions to and from the domain beside it; the decode* functions read a
// snapshot (nil for a missing document).

// decode reads snap into a record, or returns nil when the document is
// absent.
func decode[T any](snap *firestore.DocumentSnapshot) (*T, error) {
	if snap == nil || !snap.Exists() {
		return nil, nil
	}
	var rec T
	if err := snap.DataTo(&rec); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", snap.Ref.Path, err)
	}
	return &rec, nil
}

type roomRecord struct {
	RoomID       string     `firestore:"roomId"`
	State        string     `firestore:"state"`
	Generation   int64      `firestore:"generation"`
	EmptySince   *time.Time `firestore:"emptySince"`   // null unless suspected_empty
	CleanupAfter *time.Time `firestore:"cleanupAfter"` // null unless suspected_empty
	// TeardownReported is always written, false unless set, so that the
	// observe-mode listing can filter on it.
	TeardownReported bool      `firestore:"teardownReported"`
	CreatedAt        time.Time `firestore:"createdAt"`
	UpdatedAt        time.Time `firestore:"updatedAt"`
	ExpireAt         time.Time `firestore:"expireAt"`
	// RevisionExpireAt: see presence.Room. Absent in rooms written before
	// it existed, which reads as the zero time: their next lifecycle write
	// refreshes the shards.
	RevisionExpireAt time.Time `firestore:"revisionExpireAt"`
	// EntriesCounted: see presence.Room. Absent (false) in rooms created
	// before the shards counted entries.
	EntriesCounted bool `firestore:"entriesCounted"`
	// ChangesCarried: see presence.Room. Absent (false) in rooms created
	// before entries and departures carried their changes.
	ChangesCarried bool `firestore:"changesCarried"`
	// RevisionOnEntries: see presence.Room. Absent (false) in rooms
	// created while the revision was kept on the shards.
	RevisionOnEntries bool `firestore:"revisionOnEntries"`
}

func roomToRecord(r presence.Room) roomRecord {
	rec := roomRecord{
		RoomID: r.ID, State: string(r.State), Generation: r.Generation, TeardownReported: r.TeardownReported,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ExpireAt: r.ExpireAt, RevisionExpireAt: r.RevisionExpireAt,
		EntriesCounted: r.EntriesCounted, ChangesCarried: r.ChangesCarried, RevisionOnEntries: r.RevisionOnEntries,
	}
	rec.EmptySince = optionalTime(r.EmptySince)
	rec.CleanupAfter = optionalTime(r.CleanupAfter)
	return rec
}

func (rec roomRecord) room(id string) presence.Room {
	r := presence.Room{
		ID: id, State: presence.RoomState(rec.State), Generation: rec.Generation, TeardownReported: rec.TeardownReported,
		CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, ExpireAt: rec.ExpireAt, RevisionExpireAt: rec.RevisionExpireAt,
		EntriesCounted: rec.EntriesCounted, ChangesCarried: rec.ChangesCarried, RevisionOnEntries: rec.RevisionOnEntries,
	}
	if rec.CleanupAfter != nil {
		r.CleanupAfter = *rec.CleanupAfter
	}
	if rec.EmptySince != nil {
		r.EmptySince = *rec.EmptySince
	}
	return r
}

func decodeRoom(snap *firestore.DocumentSnapshot, id string) (*presence.Room, error) {
	rec, err := decode[roomRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	r := rec.room(id)
	return &r, nil
}

// roomUpdates are the fields a lifecycle transition rewrites, for a
// conditional update (Set takes no precondition).
func roomUpdates(r presence.Room) []firestore.Update {
	rec := roomToRecord(r)
	return []firestore.Update{
		{Path: FieldState, Value: rec.State},
		{Path: FieldGeneration, Value: rec.Generation},
		{Path: FieldEmptySince, Value: rec.EmptySince},
		{Path: FieldCleanupAfter, Value: rec.CleanupAfter},
		{Path: FieldTeardownReported, Value: rec.TeardownReported},
		{Path: FieldUpdatedAt, Value: rec.UpdatedAt},
		{Path: FieldExpireAt, Value: rec.ExpireAt},
		{Path: FieldRevisionExpireAt, Value: rec.RevisionExpireAt},
	}
}

// optionalTime stores the zero time as null, so that queries and listeners
// see "not set" rather than the year 1.
func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

type participantRecord struct {
	RoomID        string `firestore:"roomId"`
	ParticipantID string `firestore:"participantId"`
	DisplayName   string `firestore:"displayName"`
	PhotoURL      string `firestore:"photoURL,omitempty"`
	// State is always written, {} when none was set, so that listeners
	// read an object.
	State        map[string]any `firestore:"state"`
	Away         bool           `firestore:"away"`
	JoinedAt     time.Time      `firestore:"joinedAt"`
	SessionCount int64          `firestore:"sessionCount"`
	ExpireAt     time.Time      `firestore:"expireAt"`
	// Changes and RoomOpenedAt: see presence.Participant. Absent (0, and
	// the zero time) in entries written before they existed.
	Changes      int64     `firestore:"changes"`
	RoomOpenedAt time.Time `firestore:"roomOpenedAt"`
	// RevisionOnEntries: see presence.Participant. Absent (false) in
	// entries of rooms that keep their revision on the shards.
	RevisionOnEntries bool `firestore:"revisionOnEntries"`
}

func participantToRecord(p presence.Participant) participantRecord {
	state := map[string]any(p.State)
	if state == nil {
		state = map[string]any{}
	}
	return participantRecord{RoomID: p.RoomID, ParticipantID: p.ID, DisplayName: p.DisplayName, PhotoURL: p.PhotoURL,
		State: state, Away: p.Away, JoinedAt: p.JoinedAt, SessionCount: int64(p.SessionCount), ExpireAt: p.ExpireAt,
		Changes: p.Changes, RoomOpenedAt: p.OpenedAt, RevisionOnEntries: p.RevisionOnEntries}
}

func (rec participantRecord) participant(roomID, id string) presence.Participant {
	return presence.Participant{RoomID: roomID, ID: id, DisplayName: rec.DisplayName, PhotoURL: rec.PhotoURL,
		State: rec.State, Away: rec.Away, JoinedAt: rec.JoinedAt, SessionCount: int(rec.SessionCount), ExpireAt: rec.ExpireAt,
		Changes: rec.Changes, OpenedAt: rec.RoomOpenedAt, RevisionOnEntries: rec.RevisionOnEntries}
}

func decodeParticipant(snap *firestore.DocumentSnapshot, roomID, uid string) (*presence.Participant, error) {
	rec, err := decode[participantRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	p := rec.participant(roomID, uid)
	return &p, nil
}

type sessionRecord struct {
	RoomID         string    `firestore:"roomId"`
	ParticipantID  string    `firestore:"participantId"`
	SessionID      string    `firestore:"sessionId"`
	Generation     int64     `firestore:"generation"`
	LeaseExpiresAt time.Time `firestore:"leaseExpiresAt"`
	// LeaseShard is leaseShard of the session's key (leaseshards.go),
	// written with every lease; 0 when read from a session written before.
	LeaseShard    int64     `firestore:"leaseShard"`
	ExpireAt      time.Time `firestore:"expireAt"`
	CreatedAt     time.Time `firestore:"createdAt"`
	RoomExpireAt  time.Time `firestore:"roomExpireAt"`
	EntryExpireAt time.Time `firestore:"entryExpireAt"`
	Away          bool      `firestore:"away"`
	// EntryJoinedAt: see presence.Session; zero when read from a session
	// written before it.
	EntryJoinedAt time.Time `firestore:"entryJoinedAt"`
}

func sessionToRecord(s presence.Session) sessionRecord {
	return sessionRecord{RoomID: s.RoomID, ParticipantID: s.ParticipantID, SessionID: s.ID,
		Generation: s.Generation, LeaseExpiresAt: s.LeaseExpiresAt, LeaseShard: leaseShardOf(s), ExpireAt: s.ExpireAt,
		CreatedAt: s.CreatedAt, RoomExpireAt: s.RoomExpireAt, EntryExpireAt: s.EntryExpireAt, Away: s.Away,
		EntryJoinedAt: s.EntryJoinedAt}
}

func (rec sessionRecord) session() presence.Session {
	return presence.Session{RoomID: rec.RoomID, ParticipantID: rec.ParticipantID, ID: rec.SessionID,
		Generation: rec.Generation, LeaseExpiresAt: rec.LeaseExpiresAt, ExpireAt: rec.ExpireAt, CreatedAt: rec.CreatedAt,
		RoomExpireAt: rec.RoomExpireAt, EntryExpireAt: rec.EntryExpireAt, Away: rec.Away,
		EntryJoinedAt: rec.EntryJoinedAt}
}

func decodeSession(snap *firestore.DocumentSnapshot) (*presence.Session, error) {
	rec, err := decode[sessionRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	sess := rec.session()
	return &sess, nil
}

type policyRecord struct {
	AllowedUsers       []string `firestore:"allowedUsers"`
	MaxParticipants    int64    `firestore:"maxParticipants"`
	PublicOccupancy    bool     `firestore:"publicOccupancy"`
	LargeRoomThreshold int64    `firestore:"largeRoomThreshold"`
	// UpdatedAt is written by the operator (a server timestamp) whenever
	// the policy changes; the sweeper finds changed policies by it.
	UpdatedAt *time.Time `firestore:"updatedAt"`
}

func decodePolicy(snap *firestore.DocumentSnapshot) (*presence.Policy, error) {
	rec, err := decode[policyRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	return &presence.Policy{AllowedUsers: rec.AllowedUsers, MaxParticipants: int(rec.MaxParticipants),
		PublicOccupancy: rec.PublicOccupancy, LargeRoomThreshold: int(rec.LargeRoomThreshold)}, nil
}

type typingRecord struct {
	RoomID        string    `firestore:"roomId"`
	ParticipantID string    `firestore:"participantId"`
	DisplayName   string    `firestore:"displayName"`
	ExpiresAt     time.Time `firestore:"expiresAt"`
	// ExpiryShard is userShardOf the signal (leaseshards.go), written
	// with every signal.
	ExpiryShard int64     `firestore:"expiryShard"`
	ExpireAt    time.Time `firestore:"expireAt"`
}

func typingToRecord(t presence.Typing) typingRecord {
	return typingRecord{RoomID: t.RoomID, ParticipantID: t.ParticipantID, DisplayName: t.DisplayName,
		ExpiresAt: t.ExpiresAt, ExpiryShard: userShardOf(t.RoomID, t.ParticipantID), ExpireAt: t.ExpireAt}
}

func decodeTyping(snap *firestore.DocumentSnapshot) (*presence.Typing, error) {
	rec, err := decode[typingRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	return &presence.Typing{RoomID: rec.RoomID, ParticipantID: rec.ParticipantID, DisplayName: rec.DisplayName,
		ExpiresAt: rec.ExpiresAt, ExpireAt: rec.ExpireAt}, nil
}

type receiptRecord struct {
	RoomID        string    `firestore:"roomId"`
	ParticipantID string    `firestore:"participantId"`
	LastReadSeq   int64     `firestore:"lastReadSeq"`
	UpdatedAt     time.Time `firestore:"updatedAt"`
	ExpireAt      time.Time `firestore:"expireAt"`
}

func receiptToRecord(r presence.Receipt) receiptRecord {
	return receiptRecord{RoomID: r.RoomID, ParticipantID: r.ParticipantID, LastReadSeq: r.LastReadSeq,
		UpdatedAt: r.UpdatedAt, ExpireAt: r.ExpireAt}
}

func (rec receiptRecord) receipt() presence.Receipt {
	return presence.Receipt{RoomID: rec.RoomID, ParticipantID: rec.ParticipantID, LastReadSeq: rec.LastReadSeq,
		UpdatedAt: rec.UpdatedAt, ExpireAt: rec.ExpireAt}
}

func decodeReceipt(snap *firestore.DocumentSnapshot) (*presence.Receipt, error) {
	rec, err := decode[receiptRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	r := rec.receipt()
	return &r, nil
}

type closingRecord struct {
	RoomID         string    `firestore:"roomId"`
	OpenedAt       time.Time `firestore:"openedAt"`
	EmptySince     time.Time `firestore:"emptySince"`
	ClosedAt       time.Time `firestore:"closedAt"`
	CleanupLagSecs float64   `firestore:"cleanupLagSeconds"`
	Generation     int64     `firestore:"generation"`
	Reason         string    `firestore:"reason"`
	// PendingCleanup stays true until every document of the lifetime under
	// rooms/{roomId} is gone; a sweeper that crashed half-way finds it here.
	PendingCleanup bool `firestore:"pendingCleanup"`
	// DecidedAt is the server's commit time of the teardown: documents under
	// the room written later belong to a newer lifetime and are kept. Left
	// zero when writing, it becomes the server's timestamp.
	DecidedAt time.Time `firestore:"decidedAt,serverTimestamp"`
	ExpireAt  time.Time `firestore:"expireAt"`
}

// closingToRecord is the record written when c's room is torn down: pending
// cleanup, with the commit time to be filled in by the server.
func closingToRecord(c presence.Closing) closingRecord {
	return closingRecord{RoomID: c.RoomID, OpenedAt: c.OpenedAt, EmptySince: c.EmptySince, ClosedAt: c.ClosedAt,
		CleanupLagSecs: c.CleanupLag().Seconds(),
		Generation:     c.Generation, Reason: c.Reason, PendingCleanup: true, ExpireAt: c.ExpireAt}
}

// revisionShardRecord is one of a room's revision shards. Writers never set
// it whole: a visible change merges an increment of Changes (and, when it
// removed an entry, MayBeEmptyAt) without reading it, so that concurrent
// changes do not lock each other out.
type revisionShardRecord struct {
	RoomID  string `firestore:"roomId"`
	Changes int64  `firestore:"changes"`
	// Entries is how many roster entries the users of this shard added
	// less how many went: the roster's size is the sum over the shards
	// (see revision.go).
	Entries      int64      `firestore:"entries"`
	MayBeEmptyAt *time.Time `firestore:"mayBeEmptyAt"`
	DepartedAt   *time.Time `firestore:"departedAt"`
	ExpireAt     time.Time  `firestore:"expireAt"`
}

// claimRecord is a join's claim on a place (claims.go).
type claimRecord struct {
	RoomID    string    `firestore:"roomId"`
	Order     string    `firestore:"order"`
	ClaimedAt time.Time `firestore:"claimedAt"`
	ExpireAt  time.Time `firestore:"expireAt"`
}

// userRoomsRecord is the per-user document of the rooms cap. Rooms is set
// whole by the joins that add a roster entry (the map's keys are room ids,
// never field paths of an update).
type userRoomsRecord struct {
	Rooms    map[string]time.Time `firestore:"rooms"`
	ExpireAt time.Time            `firestore:"expireAt"`
}

func userRoomsToRecord(u presence.UserRooms) userRoomsRecord {
	return userRoomsRecord{Rooms: u.Rooms, ExpireAt: u.ExpireAt}
}

func decodeUserRooms(snap *firestore.DocumentSnapshot) (*presence.UserRooms, error) {
	rec, err := decode[userRoomsRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	return &presence.UserRooms{Rooms: rec.Rooms, ExpireAt: rec.ExpireAt}, nil
}

type departureRecord struct {
	RoomID        string    `firestore:"roomId"`
	ParticipantID string    `firestore:"participantId"`
	DisplayName   string    `firestore:"displayName"`
	PhotoURL      string    `firestore:"photoURL,omitempty"`
	LeftAt        time.Time `firestore:"leftAt"`
	// LeftShard: leaseshards.go.
	LeftShard    int64     `firestore:"leftShard"`
	Reason       string    `firestore:"reason"`
	ExpireAt     time.Time `firestore:"expireAt"`
	Changes      int64     `firestore:"changes"`
	RoomOpenedAt time.Time `firestore:"roomOpenedAt"`
	// Retired is set on the retired document only (RetiredDoc): the
	// changes of the departure records the sweeper folded.
	Retired int64 `firestore:"retired,omitempty"`
}

func departureToRecord(d presence.Departure) departureRecord {
	return departureRecord{RoomID: d.RoomID, ParticipantID: d.ParticipantID, DisplayName: d.DisplayName,
		PhotoURL: d.PhotoURL, LeftAt: d.LeftAt, LeftShard: userShardOf(d.RoomID, d.ParticipantID), Reason: d.Reason,
		ExpireAt: d.ExpireAt, Changes: d.Changes, RoomOpenedAt: d.OpenedAt}
}

func decodeDeparture(snap *firestore.DocumentSnapshot) (*presence.Departure, error) {
	rec, err := decode[departureRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	return &presence.Departure{RoomID: rec.RoomID, ParticipantID: rec.ParticipantID, DisplayName: rec.DisplayName,
		PhotoURL: rec.PhotoURL, LeftAt: rec.LeftAt, Reason: rec.Reason, ExpireAt: rec.ExpireAt, Changes: rec.Changes,
		OpenedAt: rec.RoomOpenedAt}, nil
}
