package firestoredb

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// Teardown candidates (presence.Candidate): what the rollout's counts are
// made of. One is recorded by the teardown transaction that found the room
// proven empty, in the same commit as the teardown (enforced slice) or as
// the teardownReported mark (observed slice), so that each verdict is
// recorded exactly once however many sweepers check the room: the mark or
// the deletion makes any other check of that generation a no-op. After its
// window the sweeper classifies it (ClassifyCandidate).

// maxEvidenceLeases bounds the sessions one classification reads: one that
// shows a violation, or a join in the window, is enough, and a room of a
// thousand participants needs no thousand reads to show either.
const maxEvidenceLeases = 50

// candidateRecord is teardownCandidates/{id}. It names the room (the room id
// is the app's, not a user's) and never a uid.
type candidateRecord struct {
	RoomID       string    `firestore:"roomId"`
	CreatedAt    time.Time `firestore:"createdAt"`
	Generation   int64     `firestore:"generation"`
	EmptySince   time.Time `firestore:"emptySince"`
	CleanupAfter time.Time `firestore:"cleanupAfter"`
	LiveLeases   int64     `firestore:"liveLeases"`
	CheckedAt    time.Time `firestore:"checkedAt"`
	Enforced     bool      `firestore:"enforced"`
	// ClassifyAfter is present while the candidate waits for its
	// classification, and removed by it: the pending listing is a range
	// on this one field, which needs no composite index.
	ClassifyAfter *time.Time `firestore:"classifyAfter,omitempty"`
	Class         string     `firestore:"class,omitempty"`
	ClassifiedAt  *time.Time `firestore:"classifiedAt,omitempty"`
	ExpireAt      time.Time  `firestore:"expireAt"`
}

func candidateToRecord(c presence.Candidate) candidateRecord {
	return candidateRecord{RoomID: c.RoomID, CreatedAt: c.CreatedAt, Generation: c.Generation, EmptySince: c.EmptySince,
		CleanupAfter: c.CleanupAfter, LiveLeases: int64(c.LiveLeases), CheckedAt: c.CheckedAt, Enforced: c.Enforced,
		ClassifyAfter: optionalTime(c.ClassifyAfter), Class: string(c.Class), ClassifiedAt: optionalTime(c.ClassifiedAt), ExpireAt: c.ExpireAt}
}

func (rec candidateRecord) candidate() presence.Candidate {
	c := presence.Candidate{RoomID: rec.RoomID, CreatedAt: rec.CreatedAt, Generation: rec.Generation, EmptySince: rec.EmptySince,
		CleanupAfter: rec.CleanupAfter, LiveLeases: int(rec.LiveLeases), CheckedAt: rec.CheckedAt, Enforced: rec.Enforced,
		Class: presence.CandidateClass(rec.Class), ExpireAt: rec.ExpireAt}
	if rec.ClassifyAfter != nil {
		c.ClassifyAfter = *rec.ClassifyAfter
	}
	if rec.ClassifiedAt != nil {
		c.ClassifiedAt = *rec.ClassifiedAt
	}
	return c
}

// candidateID names one verdict: the room's lifetime, generation and
// emptiness, which change with anything that could make a second verdict.
func candidateID(c presence.Candidate) string {
	return fmt.Sprintf("%s~%d~%d~%d", c.RoomID, c.CreatedAt.UnixMicro(), c.Generation, c.EmptySince.UnixMicro())
}

func (s *Store) candidate(c presence.Candidate) *firestore.DocumentRef {
	return s.client.Collection(CandidatesCollection).Doc(candidateID(c))
}

// recordCandidate stages, in the teardown transaction that found room
// proven empty at now, its candidate record. A set, not a create: the same
// verdict recorded again (a retried attempt) is the same record.
func (s *Store) recordCandidate(tx *txn, now time.Time, room presence.Room, liveLeases int, enforced bool) error {
	c := s.settings.NewCandidate(now, room, liveLeases, enforced)
	return tx.set(s.candidate(c), candidateToRecord(c))
}

// PendingCandidates lists up to limit candidates whose window ended at or
// before now, the oldest first. Documents that do not decode are in the
// listing's Undecodable.
func (s *Store) PendingCandidates(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.Candidate], error) {
	q := s.client.Collection(CandidatesCollection).
		Where(FieldClassifyAfter, "<=", now).
		OrderBy(FieldClassifyAfter, firestore.Asc)
	return listCandidates(ctx, s, "listing teardown candidates", q, limit, func(snap *firestore.DocumentSnapshot) (presence.Candidate, bool) {
		rec, err := decode[candidateRecord](snap)
		if err != nil || rec == nil || rec.RoomID == "" || rec.ClassifyAfter == nil {
			return presence.Candidate{}, false
		}
		return rec.candidate(), true
	})
}

// ClassifyCandidate reads what c's room shows now (candidateEvidence),
// classifies c (presence.ClassifyCandidate), and stores the class, unless
// another sweeper classified it first. It returns the class and whether
// this call stored it: a candidate is counted by the one sweeper whose
// transaction removed its classifyAfter, so two sweepers classifying at
// once count it once. The evidence is read before the transaction: it is
// the same for both, and a query inside it would lock session writes on
// the emulator (see TearDown).
func (s *Store) ClassifyCandidate(ctx context.Context, c presence.Candidate) (presence.CandidateClass, bool, error) {
	ev, err := s.candidateEvidence(ctx, c)
	if err != nil {
		return "", false, err
	}
	class := presence.ClassifyCandidate(c, s.settings.ReconnectWindow, ev)
	s.pause(hookAfterClassifyEvidence)
	ref := s.candidate(c)
	var stored bool
	err = s.transact(ctx, "classifying a teardown candidate", func(tx *txn, now time.Time) error {
		stored = false
		snaps, err := tx.getAll(ref)
		if err != nil {
			return err
		}
		rec, err := decode[candidateRecord](snaps[0])
		if err != nil || rec == nil || rec.ClassifyAfter == nil {
			return err // gone (TTL) or classified already
		}
		s.pause(hookBeforeClassifyCommit)
		stored = true
		return tx.update(ref, []firestore.Update{
			{Path: FieldClassifyAfter, Value: firestore.Delete},
			{Path: FieldClass, Value: string(class)},
			{Path: FieldClassifiedAt, Value: now},
		})
	})
	return class, stored && err == nil, err
}

// candidateEvidence reads what presence.CandidateEvidence needs: the room
// now, the closing of c's lifetime, whether a lifetime opened in the window
// was closed since, and the room's sessions whose lease ends after c's time.
func (s *Store) candidateEvidence(ctx context.Context, c presence.Candidate) (presence.CandidateEvidence, error) {
	var ev presence.CandidateEvidence
	lifetime := presence.TeardownCandidate{RoomID: c.RoomID, CreatedAt: c.CreatedAt}
	snaps, err := s.client.GetAll(ctx, []*firestore.DocumentRef{s.room(c.RoomID), s.closing(lifetime)})
	s.ops.read(2)
	if err != nil {
		return ev, storeError("reading a candidate's room", err)
	}
	if ev.Room, err = decodeRoom(snaps[0], c.RoomID); err != nil {
		return ev, err
	}
	if ev.Closing, err = decodeClosing(snaps[1]); err != nil {
		return ev, err
	}
	// Closings are named {roomId}~{openedAtMicros}, sixteen digits until
	// 2286, so the lifetimes opened in the window are a range of names;
	// the roomId filter drops another room whose id extends this one's
	// with "~". Equality on one field with a range on the name needs only
	// the field's own index.
	end := c.CheckedAt.Add(s.settings.ReconnectWindow)
	opened, err := s.queryAll(ctx, s.client.Collection(ClosingsCollection).
		Where(FieldRoomID, "==", c.RoomID).
		Where(firestore.DocumentID, ">", s.closing(presence.TeardownCandidate{RoomID: c.RoomID, CreatedAt: c.CheckedAt})).
		Where(firestore.DocumentID, "<=", s.closing(presence.TeardownCandidate{RoomID: c.RoomID, CreatedAt: end})).
		Limit(1))
	if err != nil {
		return ev, storeError("listing a candidate's later lifetimes", err)
	}
	ev.ClosedLifetimeOpened = len(opened) > 0
	leases, err := s.queryAll(ctx, s.roomLeases(c.RoomID).
		Where(FieldLeaseExpiresAt, ">", c.CheckedAt).
		Limit(maxEvidenceLeases))
	if err != nil {
		return ev, storeError("listing a candidate's sessions", err)
	}
	for _, snap := range leases {
		if sess, err := decodeSession(snap); err == nil && isSessionPath(snap.Ref, sess) {
			ev.Leases = append(ev.Leases, presence.LeaseTrace{Generation: sess.Generation, LeaseExpiresAt: sess.LeaseExpiresAt})
		}
	}
	return ev, nil
}

func (s *Store) closing(c presence.TeardownCandidate) *firestore.DocumentRef {
	return s.client.Collection(ClosingsCollection).Doc(closingID(c))
}

func decodeClosing(snap *firestore.DocumentSnapshot) (*presence.Closing, error) {
	rec, err := decode[closingRecord](snap)
	if err != nil || rec == nil {
		return nil, err
	}
	return &presence.Closing{RoomID: rec.RoomID, OpenedAt: rec.OpenedAt, EmptySince: rec.EmptySince, ClosedAt: rec.ClosedAt,
		Generation: rec.Generation, Reason: rec.Reason, ExpireAt: rec.ExpireAt}, nil
}

// Candidate reads c's record as stored; nil if there is none. For tests
// and operators' tools.
func (s *Store) Candidate(ctx context.Context, c presence.Candidate) (*presence.Candidate, error) {
	snap, err := s.getDoc(ctx, s.candidate(c))
	if status.Code(err) == codes.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, storeError("reading a teardown candidate", err)
	}
	rec, err := decode[candidateRecord](snap)
	if err != nil || rec == nil {
		return nil, err
	}
	out := rec.candidate()
	return &out, nil
}
