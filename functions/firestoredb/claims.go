package firestoredb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// Claims: a cap that holds for a crowd bigger than the places left.
//
// A join reads the roster's size at a snapshot beside its transaction, so
// that joins of different users share no lock. Alone, that lets a crowd of
// K into a room with P < K places left all read the same size and all
// commit: K − P over the cap. Counting inside the transaction is exact but
// locks the roster's range, so every join of a crowd takes its turn.
//
// Instead, a join that would add an entry first writes a claim on a place,
// rooms/{roomId}/joinClaims/{uid}~{sessionId}, a document only it writes
// (in its transaction, or, when a crowd is arriving, before it:
// claimfirst.go).
// Then it reads, at one snapshot no earlier than the claim's commit, the
// entries and the claims (the snapshot an instance's joins share,
// startEntrySnapshot, read at the claim's update time: readat.go), and
// presence.Settings.JudgeClaim decides:
//   - entries and every other claim fit under the cap: admitted. The
//     commit that adds the entry deletes the claim, on the condition that
//     it is unchanged since its write (claimedCounts);
//   - otherwise the join leaves its transaction and contests outside it,
//     without a lock (contestClaim): it looks at entries, claims and the
//     claims ahead of its own in their order (a look its instance's other
//     contestants share, contest.go), and is refused when the entries and
//     the claims ahead fill the cap, admitted once everything fits, and
//     waits otherwise.
//
// Why it is exact is JudgeClaim's argument; what it needs from here: a
// claim is written before the snapshot that judges it, and kept, unchanged,
// until the entry commits (the commit's condition). Why
// it ends: the last claim in the order has none behind it, so it is
// admitted or refused at once, and each one that goes lets the next decide.
//
// Two tabs of one user claim apart (the id names the session), so they
// count twice while both are in flight: near the cap that can only refuse.
// Two joins of one session (a client's retry) share one claim: the second
// adopts the first's (writeClaim).
//
// A claim whose join died stays until a contest finds it older than
// claimAbandoned and deletes it (or TTL does). Until then it counts
// against the cap: it can only make joins wait or refuse, never admit one
// too many. Deleting a live join's claim is safe too: that join finds it
// gone, or changed, in its transaction and claims again.
//
// What it costs a new user's join: the claim's write and its deletion in
// the commit, and the claims' count in the snapshot (one read per thousand
// claims, at least one).

const (
	// claimAbandoned is how old a claim must be for a contest to take its
	// join for dead: far longer than any join's deadline.
	claimAbandoned = time.Minute
	// claimContestLimit bounds how long a join contests the last places
	// before it is refused as if the room were full: about a client's
	// deadline, since a join whose client gave up only holds a claim.
	claimContestLimit = 10 * time.Second
)

var (
	// errClaimLost: the join's claim was deleted or rewritten under it;
	// it must claim again.
	errClaimLost = errors.New("join: the claim on a place is gone")
	// errContested: the entries and the claims do not all fit; the join
	// contests outside its transaction.
	errContested = errors.New("join: the last places are contested")
)

// joinClaim is one join's claim on a place, kept across its attempts.
type joinClaim struct {
	ref       *firestore.DocumentRef // nil until written
	order     string
	writtenAt time.Time // its update time as written
	// readFrom is the earliest time its snapshot may be read at: the
	// claim's update time when this join wrote it; when it adopted a
	// twin's, the time it read it, since the twin's write may predate
	// this join's request (readat.go).
	readFrom time.Time
	// claimedIn is the room lifetime the claim was written or adopted
	// for (claimedCounts).
	claimedIn time.Time
	// policy is the one the contested attempt read, for the cap.
	policy *presence.Policy
	// judged is the latest snapshot that judged the claim (judgeClaim) or
	// that the contest admitted it by, of the room lifetime judgedIn
	// under the cap of policy: the transaction that follows decides by
	// it (claimedCounts) instead of reading it again.
	judged   *entryTotals
	judgedIn time.Time
	// consumed: the commit that added the entry deleted it.
	consumed bool
	// lost counts the claims found gone under the join (settleClaim).
	lost int
}

func (s *Store) claimsRef(roomID string) *firestore.CollectionRef {
	return s.room(roomID).Collection(ClaimsCollection)
}

// claimOrder is the claims' order key: the claim's time, zero-padded so
// that strings sort as times, then the claim's own id to break ties.
func claimOrder(at time.Time, id string) string {
	return fmt.Sprintf("%020d~%s", at.UnixNano(), id)
}

// writeClaim writes c for k's join at now, outside any transaction, if it
// has not been written yet.
//
// It creates the claim rather than setting it: a second join of the same
// session in flight at once (a client's retry) finds the claim there and
// adopts it, order and update time, instead of rewriting it. A rewrite
// would fail the first join's commit (its condition is the update time it
// wrote), which would then claim again and fail the twin's: turns taken
// for nothing, up to maxRoomSteps. Adopted, the claim is one place held by
// the session; whichever twin commits the entry deletes it, and the other
// then finds the user listed and needs no place. An adopted claim is as
// good for the cap's argument as a written one: it stood before the
// snapshot that judges it.
func (s *Store) writeClaim(ctx context.Context, c *joinClaim, k presence.SessionKey, now time.Time) error {
	if c.ref != nil {
		return nil
	}
	id := k.ParticipantID + "~" + k.SessionID
	ref := s.claimsRef(k.RoomID).Doc(id)
	for attempt := 0; c.ref == nil; attempt++ {
		if attempt == 3 {
			return fmt.Errorf("join: the claim %s kept going between its creation and its adoption", ref.Path)
		}
		order := claimOrder(now, id)
		wr, err := ref.Create(ctx, claimRecord{RoomID: k.RoomID, Order: order, ClaimedAt: now, ExpireAt: now.Add(s.settings.RecordHorizon)})
		switch {
		case err == nil:
			s.ops.write(1)
			c.ref, c.order, c.writtenAt, c.readFrom = ref, order, wr.UpdateTime, wr.UpdateTime
		case status.Code(err) == codes.AlreadyExists:
			err = s.adoptClaim(ctx, c, ref)
		}
		if err != nil {
			return err
		}
	}
	s.pause(hookAfterClaim)
	return nil
}

// adoptClaim makes c the claim at ref, written by a twin join of the same
// session, as it stands; it leaves c unwritten when the claim is gone
// meanwhile (its join is over), to be created again.
func (s *Store) adoptClaim(ctx context.Context, c *joinClaim, ref *firestore.DocumentRef) error {
	snap, err := s.getDoc(ctx, ref)
	if status.Code(err) == codes.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	held, err := decode[claimRecord](snap)
	if err != nil {
		return err
	}
	c.ref, c.order, c.writtenAt, c.readFrom = ref, held.Order, snap.UpdateTime, snap.ReadTime
	return nil
}

// dropClaim deletes c unless its commit did, once its join is over: best
// effort, since a claim left behind only makes joins wait or refuse until
// a contest or TTL removes it.
func (s *Store) dropClaim(ctx context.Context, c *joinClaim) {
	if c.ref == nil || c.consumed {
		return
	}
	dropCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadTimeout)
	defer cancel()
	_ = s.deleteDoc(dropCtx, c.ref)
	c.ref = nil
}

// claimedCounts decides, in a join's transaction, a new user's place: it
// writes the claim if need be and judges it by a snapshot at or after the
// claim's time (judgeClaim), unless a judgement made before (before the
// transaction, claimfirst.go, or the contest's admission) stands in this
// room lifetime under the cap of the policy this attempt read. It sets
// st.Entries and st.Claims and returns the revision of that snapshot (for
// joinCounts's argument: it is taken after the request arrived), or
// errContested.
//
// The transaction does not read the claim: the commit deletes it on the
// condition that it is still at the update time it was written with, so a
// commit means the claim stood, unchanged, from its write to the entry's
// commit, and every snapshot taken meanwhile counted it. A claim deleted or
// rewritten meanwhile fails the commit (errClaimLost, in joinOnce).
func (s *Store) claimedCounts(ctx context.Context, now time.Time, req presence.JoinRequest, st *presence.JoinState, src revisionSource, c *joinClaim) (*int64, error) {
	if c.ref != nil && !c.claimedIn.Equal(src.lifetime) {
		// Claimed for an earlier lifetime (the room was torn down and made
		// again since): read at the claim's time, a snapshot would count
		// none of this lifetime's entries. Adopted again, it is read from
		// now.
		c.ref = nil
	}
	if !c.stands(src, s.settings.RoomCap(c.policy), s.settings.RoomCap(st.Policy)) {
		c.judged = nil
	}
	if c.judged == nil {
		c.policy = st.Policy
		if err := s.judgeClaim(ctx, req.SessionKey, src, c, now); err != nil {
			return nil, err
		}
	} else if !s.admitsJudged(c) {
		return nil, errContested // judged before the transaction, and contested
	}
	t := c.judged
	st.Entries, st.Claims = t.entries, t.claims-1
	return &t.revision, nil
}

// stands reports whether c's judgement holds for a join into src's
// lifetime under a cap of now: it was made in that lifetime, under the
// same cap (judgedUnder, its policy's). A judgement made in an earlier
// lifetime counted another roster; one made under another cap (the policy
// changed between the judgement and the transaction) says nothing of this
// one, whichever way it moved.
func (c *joinClaim) stands(src revisionSource, judgedUnder, now int) bool {
	return c.judged != nil && c.judgedIn.Equal(src.lifetime) && judgedUnder == now
}

// admitsJudged reports whether c's judgement admits it: the entries and
// every other claim fit under the cap of c.policy.
func (s *Store) admitsJudged(c *joinClaim) bool {
	return s.settings.JudgeClaim(c.judged.entries, c.judged.claims-1, -1, c.policy) == presence.ClaimAdmits
}

// contestClaim decides a contested claim outside any transaction: it
// looks at the room's contest (contestView: the entries, the claims and
// the first claims in order, at one snapshot) until JudgeClaim admits or
// refuses it, or claimContestLimit passes (refused). Admitted, it keeps the
// snapshot for the transaction that follows. It removes abandoned claims
// first, which may be what fills the room.
func (s *Store) contestClaim(ctx context.Context, src revisionSource, c *joinClaim) error {
	s.dropAbandonedClaims(ctx, src.roomID)
	deadline := time.Now().Add(claimContestLimit)
	for wait := 20 * time.Millisecond; ; wait = min(wait*3/2, 250*time.Millisecond) {
		v, err := s.lookAtContest(ctx, src, s.settings.RoomCap(c.policy))
		if err != nil {
			return storeError("join: contesting the last places", err)
		}
		ahead, held := v.position(c.order)
		if !held {
			return errClaimLost
		}
		switch s.settings.JudgeClaim(v.totals.entries, v.totals.claims-1, ahead, c.policy) {
		case presence.ClaimAdmits:
			t := v.totals
			c.judged, c.judgedIn = &t, src.lifetime
			return nil
		case presence.ClaimRefused:
			return roomFull(s.settings, c.policy)
		}
		if time.Now().Add(wait).After(deadline) {
			return roomFull(s.settings, c.policy)
		}
		s.pause(hookClaimWaits)
		select {
		case <-ctx.Done():
			return storeError("join: contesting the last places", ctx.Err())
		case <-time.After(wait):
		}
	}
}

func roomFull(s presence.Settings, p *presence.Policy) error {
	return presence.Errorf(presence.ERoomFull, "the room has reached its limit of %d participants", s.RoomCap(p))
}

// countClaims counts the room's claims in tx.
func (s *Store) countClaims(ctx context.Context, roomID string, tx *txn) (int, error) {
	res, err := s.aggregateIn(ctx, s.claimsRef(roomID).Query, tx, "claims", claimsTotal)
	return int(res["claims"]), err
}

// dropAbandonedClaims deletes the room's claims older than claimAbandoned
// (a few at a time: there are as many as joins died at the last places).
// Best effort, like dropClaim.
func (s *Store) dropAbandonedClaims(ctx context.Context, roomID string) {
	cutoff := claimOrder(s.now().Add(-claimAbandoned), "")
	snaps, err := s.queryAll(ctx, s.claimsRef(roomID).Where(FieldOrder, "<", cutoff).Select().Limit(20))
	if err != nil {
		return
	}
	for _, snap := range snaps {
		_ = s.deleteDoc(ctx, snap.Ref)
	}
}
