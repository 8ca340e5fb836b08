package firestoredb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sort"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// The events outbox (docs/events.md, "How an event gets out").
//
//  1. A transaction that makes a visible change reads the participant's
//     event cursor (readCursor, with its other reads: Firestore wants every
//     read before the first write) and stages, with the change, the new
//     cursor and one outbox record (emit). Both commit or neither does: a
//     refused or rolled-back request leaves no event, a committed change
//     always leaves one.
//  2. After the commit, the instance that committed publishes the
//     attempt's records and deletes each once Pub/Sub acknowledged it
//     (publishCommitted). A failure is not the request's: the change has
//     committed, and the record stays.
//  3. The sweeper relays whatever is still in the outbox after
//     OutboxRelayAge (PendingEvents, DeleteEvent): an instance killed
//     between 1 and 2 loses nothing. A record published twice (2 and 3
//     both, two relays) carries the same id.
//
// Outbox records live at the database root, so a teardown's purge of the
// room leaves them alone. Their ids are random: no field of theirs that is
// indexed rises with each write (the time is exempted from indexing), so
// the outbox has no hot index range however many rooms write to it.

// Publisher publishes one event and returns once Pub/Sub has acknowledged
// it (functions/pubsubevents implements it). An error means it may or may
// not have been published; the outbox keeps the record either way.
type Publisher interface {
	Publish(ctx context.Context, ev presence.OutboxEvent) error
}

// OutboxRetention is the outbox records' expireAt: a backstop for TTL only,
// days after the alarm on the oldest unpublished record has fired.
const OutboxRetention = 7 * 24 * time.Hour

// OutboxRelayAge is how old a record must be before the relay publishes
// it: longer than the committing instance takes to publish its own
// (publishTimeout), so that the relay does not duplicate the fast path.
const OutboxRelayAge = 10 * time.Second

// publishTimeout bounds the publication after a commit, which runs on even
// when the caller has gone (as the emptiness check does).
const publishTimeout = 5 * time.Second

// PublishEvents turns events on: every visible change writes an outbox
// record in its transaction, published through p after the commit. Without
// it (or with nil), no outbox is written and nothing costs more. Call it
// before the store is used.
func (s *Store) PublishEvents(p Publisher) { s.publisher = p }

// PublishInBackground makes the publication after a commit run beside the
// caller rather than before the call returns. For the sweeper: it works
// through its candidates one by one, and a mass expiry must not wait for
// an acknowledgement per session (a 200-session batch, at some 20 ms an
// acknowledgement, would take 4 s longer). Not for requests: an instance
// whose CPU is throttled once the request is answered (Cloud Run's
// default) might publish only at its next request, or leave it to the
// relay. Call it before the store is used; WaitPublished waits for what is
// in flight.
func (s *Store) PublishInBackground() { s.background = true }

// WaitPublished waits until the publications started in the background
// have finished, or failed (their records then stay for the relay).
func (s *Store) WaitPublished() { s.inflight.Wait() }

func (s *Store) outbox(id string) *firestore.DocumentRef {
	return s.client.Collection(OutboxCollection).Doc(id)
}

func (s *Store) cursor(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(EventCursorsCollection).Doc(uid)
}

// eventBase is what readCursor found for one participant's next event.
type eventBase struct {
	roomID, uid string
	lifetime    time.Time
	cursor      presence.EventCursor
}

// readCursor reads, in tx, uid's event cursor in roomID: nil, without a
// read, when events are off. lifetime is the room's CreatedAt when the
// transaction read the room (a join); otherwise the cursor's own lifetime
// is the room's, since the join that put the entry there wrote it. An
// entry older than events (no cursor) costs one read of the room more.
func (s *Store) readCursor(tx *txn, roomID, uid string, lifetime time.Time) (*eventBase, error) {
	if s.publisher == nil {
		return nil, nil
	}
	snaps, err := tx.getAll(s.cursor(roomID, uid))
	if err != nil {
		return nil, err
	}
	return s.cursorFrom(tx, snaps[0], roomID, uid, lifetime)
}

// getAllWithCursor reads refs in tx and, with events on, uid's event
// cursor in roomID in the same round trip, for cursorFrom (nil when
// events are off): a transaction that nearly always makes a visible change
// reads it with its first reads instead of after them (readCursor), one
// round trip fewer, for one read more when it turns out to change nothing.
func (s *Store) getAllWithCursor(tx *txn, roomID, uid string, refs ...*firestore.DocumentRef) (snaps []*firestore.DocumentSnapshot, cursor *firestore.DocumentSnapshot, err error) {
	if s.publisher == nil {
		snaps, err = tx.getAll(refs...)
		return snaps, nil, err
	}
	snaps, err = tx.getAll(append(slices.Clip(refs), s.cursor(roomID, uid))...)
	if err != nil {
		return nil, nil, err
	}
	return snaps[:len(refs)], snaps[len(refs)], nil
}

// cursorFrom is readCursor from the cursor as tx read it already (snap,
// from getAllWithCursor; nil when events are off).
func (s *Store) cursorFrom(tx *txn, snap *firestore.DocumentSnapshot, roomID, uid string, lifetime time.Time) (*eventBase, error) {
	if snap == nil {
		return nil, nil
	}
	rec, err := decode[cursorRecord](snap)
	if err != nil {
		return nil, err
	}
	base := &eventBase{roomID: roomID, uid: uid, lifetime: lifetime}
	if rec != nil {
		base.cursor = presence.EventCursor{Lifetime: rec.Lifetime, Seq: rec.Seq}
		if lifetime.IsZero() {
			base.lifetime = rec.Lifetime
		}
	}
	if base.lifetime.IsZero() {
		snaps, err := tx.getAll(s.room(roomID))
		if err != nil {
			return nil, err
		}
		room, err := decodeRoom(snaps[0], roomID)
		if err != nil {
			return nil, err
		}
		if room != nil {
			base.lifetime = room.CreatedAt
		}
	}
	return base, nil
}

// emit stages, in tx, the event of the change of base's entry from before
// to after (nil: absent; reason for a departure) and the cursor after it.
// Nothing when events are off (base is nil) or nothing visible changed.
func (s *Store) emit(tx *txn, now time.Time, base *eventBase, before, after *presence.Participant, reason string) error {
	if base == nil {
		return nil
	}
	ev, next, ok := presence.ParticipantEvent(now, base.lifetime, base.cursor, before, after, reason)
	if !ok {
		return nil
	}
	err := tx.set(s.cursor(base.roomID, base.uid), cursorRecord{RoomID: base.roomID, ParticipantID: base.uid,
		Lifetime: next.Lifetime, Seq: next.Seq, ExpireAt: now.Add(s.settings.RecordHorizon)})
	if err != nil {
		return err
	}
	return s.stageEvent(tx, now, ev)
}

// emitClosed stages, in tx, the room.closed event of closing.
func (s *Store) emitClosed(tx *txn, now time.Time, closing presence.Closing) error {
	if s.publisher == nil {
		return nil
	}
	return s.stageEvent(tx, now, presence.ClosedEvent(closing))
}

// stageEvent stages ev's outbox record with an id new to this attempt: a
// retried attempt stages its own, and only the committed attempt's exist.
func (s *Store) stageEvent(tx *txn, now time.Time, ev presence.Event) error {
	data, err := ev.Data()
	if err != nil {
		return err
	}
	out := presence.OutboxEvent{ID: newEventID(), Type: ev.Type, RoomID: ev.RoomID, Time: now, Data: data}
	if err := tx.create(s.outbox(out.ID), outboxToRecord(out, now.Add(OutboxRetention))); err != nil {
		return err
	}
	tx.events = append(tx.events, out)
	return nil
}

// newEventID is 128 random bits in hex.
func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// publishCommitted is step 2 for the records a committed transaction
// staged: publish each, and delete it once acknowledged. Failures are
// left to the relay.
func (s *Store) publishCommitted(ctx context.Context, events []presence.OutboxEvent) {
	if len(events) == 0 {
		return
	}
	if s.background {
		s.inflight.Add(1)
		go func() {
			defer s.inflight.Done()
			s.publishNow(ctx, events)
		}()
		return
	}
	s.publishNow(ctx, events)
}

// publishNow publishes events and deletes each once acknowledged.
func (s *Store) publishNow(ctx context.Context, events []presence.OutboxEvent) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	for _, ev := range events {
		if err := s.publisher.Publish(ctx, ev); err != nil {
			continue
		}
		_ = s.DeleteEvent(ctx, ev.ID)
	}
}

// PendingEvents lists up to limit outbox records, the oldest first among
// those listed (the outbox has no index by time: it is listed by its
// random ids, so a full page is a sample of the backlog, not its oldest).
// A record that does not decode is in the listing's Undecodable.
func (s *Store) PendingEvents(ctx context.Context, limit int) (presence.Listing[presence.OutboxEvent], error) {
	var l presence.Listing[presence.OutboxEvent]
	snaps, err := s.queryAll(ctx, s.client.Collection(OutboxCollection).Limit(limit))
	if err != nil {
		return l, storeError("listing the events outbox", err)
	}
	for _, snap := range snaps {
		rec, err := decode[outboxRecord](snap)
		if err != nil || rec == nil || rec.Type == "" || rec.RoomID == "" {
			l.Undecodable = append(l.Undecodable, snap.Ref.Path)
			continue
		}
		l.Items = append(l.Items, rec.event(snap.Ref.ID))
	}
	sort.SliceStable(l.Items, func(i, j int) bool { return l.Items[i].Time.Before(l.Items[j].Time) })
	return l, nil
}

// DeleteEvent removes a published record. A record already gone (another
// relay, the fast path) is success.
func (s *Store) DeleteEvent(ctx context.Context, id string) error {
	err := s.deleteDoc(ctx, s.outbox(id))
	if err != nil && status.Code(err) != codes.NotFound {
		return storeError("deleting a published event", err)
	}
	return nil
}

type outboxRecord struct {
	RoomID string `firestore:"roomId"`
	Type   string `firestore:"type"`
	// Data is the event's JSON, as a string: the bytes every publication
	// carries.
	Data     string    `firestore:"data"`
	Time     time.Time `firestore:"time"`
	ExpireAt time.Time `firestore:"expireAt"`
}

func outboxToRecord(ev presence.OutboxEvent, expireAt time.Time) outboxRecord {
	return outboxRecord{RoomID: ev.RoomID, Type: ev.Type, Data: string(ev.Data), Time: ev.Time, ExpireAt: expireAt}
}

func (rec outboxRecord) event(id string) presence.OutboxEvent {
	return presence.OutboxEvent{ID: id, Type: rec.Type, RoomID: rec.RoomID, Time: rec.Time, Data: []byte(rec.Data)}
}

// cursorRecord is rooms/{roomId}/eventCursors/{uid}: the participant's
// latest event in the room's lifetime (presence.EventCursor). It is under
// the room, so the teardown's purge takes it with the lifetime; a cursor
// of an earlier lifetime that a new one finds before the purge restarts
// at 1 (its lifetime differs).
type cursorRecord struct {
	RoomID        string    `firestore:"roomId"`
	ParticipantID string    `firestore:"participantId"`
	Lifetime      time.Time `firestore:"lifetime"`
	Seq           int64     `firestore:"seq"`
	ExpireAt      time.Time `firestore:"expireAt"`
}

// readEventSeqs reads, in tx, the participantSeq of every participant of
// roomID's lifetime (the room's CreatedAt) who has had an event in it,
// present or gone: what a snapshot of the roster must carry for a
// consumer to tell which events it already reflects (docs/events.md,
// "What a consumer can rely on"). Read in the transaction that reads the
// roster, it is consistent with it: a cursor is written in the very
// transaction that changes its entry. Cursors of an earlier lifetime not
// yet purged are left out.
func (s *Store) readEventSeqs(tx *txn, roomID string, lifetime time.Time) (map[string]int64, error) {
	snaps, err := tx.query(s.room(roomID).Collection(EventCursorsCollection).Query)
	if err != nil {
		return nil, err
	}
	seqs := make(map[string]int64, len(snaps))
	for _, snap := range snaps {
		rec, err := decode[cursorRecord](snap)
		if err != nil {
			return nil, err
		}
		if rec != nil && rec.Lifetime.Equal(lifetime) {
			seqs[snap.Ref.ID] = rec.Seq
		}
	}
	return seqs, nil
}
