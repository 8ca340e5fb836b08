package firestoredb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// Store keeps presence in Firestore. It is safe for concurrent use.
type Store struct {
	client   *firestore.Client
	settings presence.Settings
	// now is read once per transaction attempt, so that every decision in an
	// attempt sees one instant and a retried attempt sees a fresh one.
	now func() time.Time
	ops opMeter
	// rooms queues this process's transactions per room (see roomQueue).
	rooms *roomQueue
	// hooks are seams for race tests only (set through export_test.go).
	hooks testHooks
}

// testHooks pause a transaction at a named point, so that a race test forces
// the interleaving it names instead of hoping a sleep lines it up. Each runs
// inside the transaction's attempt; nil hooks cost nothing.
type testHooks struct {
	// beforeJoinReads runs in a join's attempt before it reads anything.
	beforeJoinReads func()
	// afterTeardownCheck runs in the teardown's attempt between the
	// occupancy check and the commit.
	afterTeardownCheck func()
}

// New returns a Store on client. now is the clock; production passes
// time.Now, tests pass a clock they advance.
func New(client *firestore.Client, settings presence.Settings, now func() time.Time) *Store {
	return &Store{client: client, settings: settings, now: now, rooms: newRoomQueue()}
}

// maxAttempts bounds transaction retries under contention. A burst of joins
// into one room contends on the room document; Firestore aborts all but one
// and the client retries with backoff, so the bound is generous.
const maxAttempts = 30

// inRoomTurn runs f on roomID's turn in this process's queue.
func (s *Store) inRoomTurn(ctx context.Context, roomID string, f func() error) error {
	leave, err := s.rooms.enter(ctx, roomID)
	if err != nil {
		return err
	}
	defer leave()
	return f()
}

func (s *Store) room(id string) *firestore.DocumentRef {
	return s.client.Collection(RoomsCollection).Doc(id)
}

func (s *Store) participant(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(ParticipantsCollection).Doc(uid)
}

func (s *Store) session(roomID, uid, sessionID string) *firestore.DocumentRef {
	return s.participant(roomID, uid).Collection(SessionsCollection).Doc(sessionID)
}

func (s *Store) policy(roomID string) *firestore.DocumentRef {
	return s.client.Collection(PoliciesCollection).Doc(roomID)
}

// OpCounts are Firestore document reads and writes: the units Firestore
// bills. A lookup of a missing document and a query with no result each
// count as one read, as Firestore bills them. Retried transaction attempts
// count too: they are paid for.
type OpCounts struct {
	Reads  int64
	Writes int64
}

// Sub returns the operations between an earlier reading and this one.
func (c OpCounts) Sub(earlier OpCounts) OpCounts {
	return OpCounts{Reads: c.Reads - earlier.Reads, Writes: c.Writes - earlier.Writes}
}

type opMeter struct{ reads, writes atomic.Int64 }

// Ops returns the operations this Store has performed so far.
func (s *Store) Ops() OpCounts {
	return OpCounts{Reads: s.ops.reads.Load(), Writes: s.ops.writes.Load()}
}

func (m *opMeter) read(n int) {
	m.reads.Add(int64(max(n, 1)))
}

func (m *opMeter) write(n int) { m.writes.Add(int64(n)) }

// getAll reads refs in one round trip inside tx. Missing documents come back
// as snapshots whose Exists() is false.
func (s *Store) getAll(tx *firestore.Transaction, refs ...*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error) {
	snaps, err := tx.GetAll(refs)
	s.ops.read(len(refs))
	return snaps, err
}

// decode reads snap into dst, or returns false when the document is absent.
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

// storeError turns a Firestore failure into the domain's vocabulary. Domain
// errors pass through; transient faults become EUnavailable so that clients
// retry; the rest are internal. The original error stays in the text for the
// server log; clients see only the domain message.
func storeError(op string, err error) error {
	if err == nil {
		return nil
	}
	var domainErr *presence.Error
	if errors.As(err, &domainErr) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w: %w", op, presence.Errorf(presence.EUnavailable, "the presence store did not answer in time; retry"), err)
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Aborted, codes.ResourceExhausted:
		return fmt.Errorf("%s: %w: %w", op, presence.Errorf(presence.EUnavailable, "the presence store is busy or unavailable; retry"), err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
