package firestoredb

import (
	"context"
	"sync"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/steptime"
)

// A new user's place judged before the join's transaction.
//
// Judged inside it (claimedCounts), a new user's join holds the read locks
// of its transaction (the room, the policy, the user's documents) while
// its claim is written and while it waits for the snapshot that judges it:
// two waits, the second shared with the instance's other claims and, in a
// crowd, the longer one. Every transaction alive at once keeps its locks
// in the emulator's lock table, whose every release walks all of them, so
// in a crowd the locks held through those waits cost most of the
// emulator's work that the snapshots' aggregations do not
// (BENCHMARKS.md, "Big rooms"); on Firestore they keep a teardown or a
// room write waiting as long.
//
// So a join, for a user its instance does not know listed, into a room
// where another of the instance's joins is having its claim judged right
// now (a crowd arriving), first reads the room and the user's documents
// outside any transaction (one round trip, five reads, no lock). When that
// read says the join adds the user's entry and nothing refuses it, the
// join writes its claim and has it judged now (judgeClaim), sharing the
// snapshot under way. Its transaction then finds the claim admitted and
// commits at once. A join into a quiet room has no shared wait to spare
// and goes straight to its transaction, without the five reads.
//
// It decides nothing: the transaction reads everything again, under its
// locks, and plans from that. An admission only stands for the room
// lifetime and the cap it was judged at (claimedCounts judges again
// otherwise), and a claim is still written before the snapshot that judges
// it and kept, unchanged, until the commit that adds the entry deletes it,
// which is all the cap's argument asks (claims.go). A pre-read that finds
// the user listed, the join refused, or the room not as expected claims
// nothing, and the transaction goes on as without it; a claim contested
// here is contested only once the transaction has found the user still
// needs a place (a twin may have listed it meanwhile), by the judgement
// made here.
//
// The join's transaction begins meanwhile (startClaimBeforeJoin).

// pendingJudgement is claimBeforeJoin under way, beside the transaction
// that follows it (startClaimBeforeJoin).
type pendingJudgement struct {
	done chan struct{} // closed when it has finished
	at   time.Time     // when it finished, once done is closed
}

// startClaimBeforeJoin starts claimBeforeJoin in the background, when it
// applies (a crowd: see above), and returns it under way; nil otherwise.
//
// The join begins its transaction meanwhile, and the transaction's first
// attempt waits for the judgement before it reads (transactAfter).
// Beginning a transaction takes a round trip and no lock, so that round
// trip overlaps the read first, the claim and the snapshot instead of
// following them, and the transaction still holds no lock while the claim
// is judged. Nothing the judgement writes (c) is read before it is done:
// the attempt waits for it, and the join waits for it again once the
// transaction has returned, whatever it returned (wait).
func (s *Store) startClaimBeforeJoin(ctx context.Context, req presence.JoinRequest, c *joinClaim) *pendingJudgement {
	if c.ref != nil || c.judged != nil || !s.judging.busy(req.RoomID) || s.knownListed(req.RoomID, req.ParticipantID) {
		return nil
	}
	j := &pendingJudgement{done: make(chan struct{})}
	go func() {
		defer close(j.done)
		s.claimBeforeJoin(ctx, req, c)
		j.at = time.Now()
	}()
	return j
}

// ready is closed when j has finished (nil for no judgement: no wait).
func (j *pendingJudgement) ready() <-chan struct{} {
	if j == nil {
		return nil
	}
	return j.done
}

// wait waits for j to finish, if there is one.
func (j *pendingJudgement) wait() {
	if j != nil {
		<-j.done
	}
}

// finishedAt is when j finished (zero for none); call it after wait.
func (j *pendingJudgement) finishedAt() time.Time {
	if j == nil {
		return time.Time{}
	}
	return j.at
}

// claimBeforeJoin is the judgement before the transaction: the read
// first, then, when it says the join adds the user's entry unrefused, the
// claim and its judgement (judgeClaim), which c keeps.
func (s *Store) claimBeforeJoin(ctx context.Context, req presence.JoinRequest, c *joinClaim) {
	began := time.Now()
	st, src, ok := s.readNewUser(ctx, req)
	steptime.Since(ctx, stepJoinPreRead, began)
	if !ok {
		return
	}
	c.policy = st.Policy
	_ = s.judgeClaim(ctx, req.SessionKey, src, c, s.now()) // failed or contested: the transaction judges
}

// readNewUser reads, outside any transaction, what a new user's join is
// planned from, and reports whether that plan adds the user's entry to an
// active room that keeps its revision on its entries, unrefused.
func (s *Store) readNewUser(ctx context.Context, req presence.JoinRequest) (presence.JoinState, revisionSource, bool) {
	snaps, err := s.getAll(ctx, s.room(req.RoomID), s.participant(req.RoomID, req.ParticipantID), s.policy(req.RoomID),
		s.session(req.SessionKey), s.userRooms(req.ParticipantID))
	if err != nil || snaps[1].Exists() {
		return presence.JoinState{}, revisionSource{}, false
	}
	room, err := decodeRoom(snaps[0], req.RoomID)
	if err != nil || room == nil || room.State != presence.StateActive || !room.RevisionOnEntries {
		return presence.JoinState{}, revisionSource{}, false
	}
	st, err := newUserState(room, snaps[2], snaps[3], snaps[4])
	if err != nil || len(s.settings.RoomsToCheck(st.UserRooms, req.RoomID)) > 0 {
		// At the rooms cap, the join is refused unless some of the user's
		// rooms turn out to be left: the transaction checks them.
		return st, revisionSource{}, false
	}
	plan, err := s.planJoin(s.now(), st, req)
	if err != nil || !plan.AddsEntry {
		return st, revisionSource{}, false
	}
	return st, roomRevision(*room), true
}

// judgeClaim writes c at now, unless it is written, and judges it, under
// the cap of c.policy, by a snapshot read at or after its write, which c
// keeps (judged): errContested unless it admits the claim.
func (s *Store) judgeClaim(ctx context.Context, k presence.SessionKey, src revisionSource, c *joinClaim, now time.Time) error {
	defer s.judging.begin(k.RoomID)()
	began := time.Now()
	fresh := c.ref == nil
	err := s.writeClaim(ctx, c, k, now)
	steptime.Since(ctx, stepJoinClaim, began)
	if err != nil {
		return err
	}
	if fresh {
		c.claimedIn = src.lifetime
	}
	t, err := s.startEntrySnapshot(ctx, src, c.readFrom).totals()
	if err != nil {
		return err
	}
	c.judged, c.judgedIn = &t, src.lifetime
	if !s.admitsJudged(c) {
		return errContested
	}
	return nil
}

// judgingRooms counts, per room, this instance's joins whose claim is
// being judged: a room with one is where a crowd is arriving.
type judgingRooms struct {
	mu sync.Mutex
	n  map[string]int
}

// begin counts one more join judging in roomID, until the returned func
// is called.
func (j *judgingRooms) begin(roomID string) func() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n == nil {
		j.n = make(map[string]int)
	}
	j.n[roomID]++
	return func() {
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.n[roomID]--; j.n[roomID] == 0 {
			delete(j.n, roomID)
		}
	}
}

func (j *judgingRooms) busy(roomID string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n[roomID] > 0
}
