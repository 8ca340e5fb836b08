// Package naive is the baseline the benchmark compares roomlease with: the
// design most presence backends start from. The whole roster is a map inside
// the room document, and every heartbeat rewrites that document in a
// transaction (read the room, update roster[uid].leaseExpiresAt, write).
//
// It is used only by the benchmark. It is deliberately simple and honest:
// transactions with the same retry bound as roomlease's store, one session
// per user, expiry judged on read.
package naive

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"
)

// Collection holds the naive design's room documents.
const Collection = "naiveRooms"

// ErrStale is returned for a heartbeat or leave whose generation is not the
// stored one (or whose entry is gone or expired).
var ErrStale = errors.New("naive: stale generation")

// Store is the naive presence store.
type Store struct {
	client      *firestore.Client
	lease       time.Duration
	maxAttempts int
	reads       atomic.Int64
	writes      atomic.Int64
}

// New returns a naive store on client with the given lease.
func New(client *firestore.Client, lease time.Duration) *Store {
	return &Store{client: client, lease: lease, maxAttempts: 30}
}

// Ops returns the document reads and writes performed so far (retried
// attempts included).
func (s *Store) Ops() (reads, writes int64) { return s.reads.Load(), s.writes.Load() }

// Ref returns the room document a roster listener watches.
func (s *Store) Ref(roomID string) *firestore.DocumentRef {
	return s.client.Collection(Collection).Doc(roomID)
}

// Entry is one participant in the roster map.
type Entry struct {
	DisplayName    string    `firestore:"displayName"`
	Generation     int64     `firestore:"generation"`
	JoinedAt       time.Time `firestore:"joinedAt"`
	LeaseExpiresAt time.Time `firestore:"leaseExpiresAt"`
}

type room struct {
	Roster    map[string]Entry `firestore:"roster"`
	Revision  int64            `firestore:"revision"`
	UpdatedAt time.Time        `firestore:"updatedAt"`
}

func (s *Store) read(tx *firestore.Transaction, ref *firestore.DocumentRef) (*room, error) {
	snap, err := tx.Get(ref)
	s.reads.Add(1)
	if err != nil && (snap == nil || snap.Exists()) {
		return nil, err
	}
	r := &room{Roster: map[string]Entry{}}
	if snap.Exists() {
		if err := snap.DataTo(r); err != nil {
			return nil, err
		}
		if r.Roster == nil {
			r.Roster = map[string]Entry{}
		}
	}
	return r, nil
}

// Join adds uid to roomID (or renews it with a new generation) and returns
// its generation and lease deadline.
func (s *Store) Join(ctx context.Context, roomID, uid, name string) (int64, time.Time, error) {
	ref := s.Ref(roomID)
	var gen int64
	var deadline time.Time
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		r, err := s.read(tx, ref)
		if err != nil {
			return err
		}
		now := time.Now()
		e := r.Roster[uid]
		if e.JoinedAt.IsZero() || !e.LeaseExpiresAt.After(now) {
			e.JoinedAt = now
		}
		e.DisplayName, e.Generation, e.LeaseExpiresAt = name, e.Generation+1, now.Add(s.lease)
		r.Roster[uid] = e
		r.Revision++
		r.UpdatedAt = now
		gen, deadline = e.Generation, e.LeaseExpiresAt
		s.writes.Add(1)
		return tx.Set(ref, r)
	}, firestore.MaxAttempts(s.maxAttempts))
	return gen, deadline, err
}

// Heartbeat renews uid's lease: read the room, update one map entry, write.
func (s *Store) Heartbeat(ctx context.Context, roomID, uid string, gen int64) (time.Time, error) {
	ref := s.Ref(roomID)
	var deadline time.Time
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		r, err := s.read(tx, ref)
		if err != nil {
			return err
		}
		now := time.Now()
		e, ok := r.Roster[uid]
		if !ok || e.Generation != gen || !e.LeaseExpiresAt.After(now) {
			return ErrStale
		}
		deadline = now.Add(s.lease)
		s.writes.Add(1)
		return tx.Update(ref, []firestore.Update{
			{FieldPath: firestore.FieldPath{"roster", uid, "leaseExpiresAt"}, Value: deadline},
			{Path: "updatedAt", Value: now},
		})
	}, firestore.MaxAttempts(s.maxAttempts))
	return deadline, err
}

// Leave removes uid if gen is current; it reports whether it removed it.
func (s *Store) Leave(ctx context.Context, roomID, uid string, gen int64) (bool, error) {
	ref := s.Ref(roomID)
	removed := false
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		removed = false
		r, err := s.read(tx, ref)
		if err != nil {
			return err
		}
		e, ok := r.Roster[uid]
		if !ok || e.Generation != gen {
			return nil
		}
		removed = true
		s.writes.Add(1)
		return tx.Update(ref, []firestore.Update{
			{FieldPath: firestore.FieldPath{"roster", uid}, Value: firestore.Delete},
			{Path: "revision", Value: firestore.Increment(1)},
			{Path: "updatedAt", Value: time.Now()},
		})
	}, firestore.MaxAttempts(s.maxAttempts))
	return removed, err
}

// Roster returns the uids whose lease is live.
func (s *Store) Roster(ctx context.Context, roomID string) ([]string, error) {
	snap, err := s.Ref(roomID).Get(ctx)
	s.reads.Add(1)
	if err != nil {
		if snap != nil && !snap.Exists() {
			return nil, fmt.Errorf("naive: room %q not found", roomID)
		}
		return nil, err
	}
	var r room
	if err := snap.DataTo(&r); err != nil {
		return nil, err
	}
	now := time.Now()
	var out []string
	for uid, e := range r.Roster {
		if e.LeaseExpiresAt.After(now) {
			out = append(out, uid)
		}
	}
	return out, nil
}
