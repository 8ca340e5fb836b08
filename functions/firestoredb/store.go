package firestoredb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/memo"
	"github.com/roomlease/roomlease/functions/presence"
)

// Store keeps presence in Firestore. It implements presence.Store (the
// client API's port) and the sweeper's ports (sweep.Store, asserted by the
// wiring in functions/app, since an adapter may not import another). It is
// safe for concurrent use.
type Store struct {
	client   *firestore.Client
	settings presence.Settings
	// now is read once per transaction attempt, so that every decision in an
	// attempt sees one instant and a retried attempt sees a fresh one.
	now func() time.Time
	ops opMeter
	// leasesByShard: the sweeper's lease queries read the sharded index
	// (leaseshards.go).
	leasesByShard bool
	// policies remembers room policies for heartbeats, typing and
	// receipts (see admit).
	policies *memo.Cache[cachedPolicy]
	// activeRooms and roomLooks spare a join's look at a room it need not
	// look at, and share the looks it makes (roomlook.go).
	activeRooms *memo.Cache[time.Time]
	roomLooks   *memo.Cache[roomLook]
	// roomSteps shares one lifecycle step of a room among this instance's
	// joins that want it at once (stepRoom).
	roomSteps *memo.Cache[struct{}]
	// roomLeads lets one of this instance's joins into a room looked at
	// plan and make its step for the others (roomlead.go).
	roomLeads roomLeads
	// entrySnapshots shares a room's size-and-revision snapshot among this
	// instance's joins that wait for one begun after they arrived, or read
	// at or after their claims' times (startEntrySnapshot).
	entrySnapshots memo.Next[entryTotals]
	// judging tells where a crowd of new users is arriving, so that their
	// claims are judged before their transactions (claimfirst.go).
	judging judgingRooms
	// aggsAt reads a claim's snapshot at the claim's time, in one round
	// trip (readat.go); nil: in a read-only transaction.
	aggsAt aggregationsAt
	// largeCounts shares the roster count that joins just below a room's
	// large-room threshold take after their commits (markLargeIfReached).
	largeCounts memo.Next[largeCount]
	// contestViews shares a look at a room's contest for its last places
	// among this instance's contested claims (contest.go).
	contestViews memo.Next[contestView]
	// witnesses are users this instance saw join a room, read first when
	// it asks whether the room is occupied (witnesses.go).
	witnesses *memo.Cache[*witnessSet]
	// listed remembers, per room and user, whether this instance last saw
	// the user listed there: a join of a user not seen listed reads the
	// new user's documents in its first round trip (firstreads.go).
	listed *memo.Cache[bool]
	// tokens signs and checks lease tokens (fenced.go); nil: none issued.
	tokens *leasetoken.Signer
	// publisher publishes committed events (outbox.go); nil: events off.
	// With background, beside the caller, inflight counting them.
	publisher  Publisher
	background bool
	inflight   sync.WaitGroup
	// hooks are seams for race tests only (set through export_test.go,
	// before the store is used).
	hooks map[hookPoint]func()
}

var _ presence.Store = (*Store)(nil)

// hookPoint names a place in a transaction or a multi-step protocol where a
// race test pauses, so that it forces the interleaving it names instead of
// hoping a sleep lines it up. Hooks run inside the attempt or step; with
// none installed, pause costs a map lookup.
type hookPoint string

const (
	// hookBeforeJoinReads: in a join's attempt, before it reads anything.
	hookBeforeJoinReads hookPoint = "before-join-reads"
	// hookAttemptWaits: in a transaction begun before the work its reads
	// must follow (transactAfter), when an attempt starts waiting for it.
	hookAttemptWaits hookPoint = "attempt-waits"
	// hookAfterJoinReads: in a join's attempt, after its reads, before it
	// decides and stages any write.
	hookAfterJoinReads hookPoint = "after-join-reads"
	// hookAfterSiblingListing: in a join's or departure's attempt, after
	// the user's sessions were listed outside the transaction and before
	// those judged ended are read again inside it.
	hookAfterSiblingListing hookPoint = "after-sibling-listing"
	// hookAfterDepartureReads: in a departure's attempt (leave, expiry,
	// away toggle), after it read the user's entry and session in the
	// transaction, before it lists or decides anything.
	hookAfterDepartureReads hookPoint = "after-departure-reads"
	// hookBeforeEmptinessWrite: in settleEmptiness, after the roster was
	// found empty and the room read, before the room is written.
	hookBeforeEmptinessWrite hookPoint = "before-emptiness-write"
	// hookBeforeEmptinessRevive: in settleEmptiness, after the recount that
	// follows its own write found the roster occupied, before the revive.
	hookBeforeEmptinessRevive hookPoint = "before-emptiness-revive"
	// hookAfterTeardownCheck: in the teardown's attempt, between the
	// occupancy check and the commit.
	hookAfterTeardownCheck hookPoint = "after-teardown-check"
	// hookBeforeClassifyCommit: in a candidate's classification, after it
	// read the candidate as still pending, before it stages the class.
	hookBeforeClassifyCommit hookPoint = "before-classify-commit"
	// hookAfterClassifyEvidence: in a candidate's classification, after it
	// read the evidence and decided, before its transaction.
	hookAfterClassifyEvidence hookPoint = "after-classify-evidence"
	// hookBeforeFoldReads and hookAfterFoldReads: in a fold of departure
	// records (fold.go), before its reads, and after them before its writes.
	hookBeforeFoldReads hookPoint = "before-fold-reads"
	hookAfterFoldReads  hookPoint = "after-fold-reads"
	// hookAfterEntriesSum and hookBeforeRecordsSum: in a revision read of a
	// room that keeps it on its entries (entryrevision.go), which sends its
	// two sums at once: after the entries' sum has answered, and before the
	// records' sum is sent.
	hookAfterEntriesSum  hookPoint = "after-entries-sum"
	hookBeforeRecordsSum hookPoint = "before-records-sum"
	// hookBeforeRoomStep: in a join's lifecycle step (stepRoom), after its
	// look at the room, before its write.
	hookBeforeRoomStep hookPoint = "before-room-step"
	// hookCreates: in a creating join (createjoin.go), when it has decided
	// to stage the room's create.
	hookCreates hookPoint = "creates"
	// hookAfterClaim: in a new user's join, after its claim on a place was
	// written (claims.go), before the snapshot that judges it.
	hookAfterClaim hookPoint = "after-claim"
	// hookClaimWaits: in a contested claim, after a snapshot that left it
	// waiting, before it sleeps and looks again.
	hookClaimWaits hookPoint = "claim-waits"
	// hookLeads and hookFollowsLead: in a join into a room looked at
	// (roomlead.go), after it became its instance's leader, before it
	// plans; and after it found another join leading, before it waits.
	hookLeads       hookPoint = "leads"
	hookFollowsLead hookPoint = "follows-lead"
	// hookBeforeOccupancyQuery: in rosterOccupied, after no witness was
	// found present (witnesses.go), before the query for any entry.
	hookBeforeOccupancyQuery hookPoint = "before-occupancy-query"
)

func (s *Store) pause(at hookPoint) {
	if f := s.hooks[at]; f != nil {
		f()
	}
}

// New returns a Store on client. now is the clock; production passes
// time.Now, tests pass a clock they advance.
func New(client *firestore.Client, settings presence.Settings, now func() time.Time) *Store {
	return &Store{client: client, settings: settings, now: now, policies: memo.New[cachedPolicy](maxCachedPolicies),
		activeRooms: memo.New[time.Time](maxLookedRooms), roomLooks: memo.New[roomLook](1), roomSteps: memo.New[struct{}](1),
		witnesses: memo.New[*witnessSet](maxLookedRooms), listed: memo.New[bool](maxListedUsers)}
}

func (s *Store) room(id string) *firestore.DocumentRef {
	return s.client.Collection(RoomsCollection).Doc(id)
}

func (s *Store) participant(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(ParticipantsCollection).Doc(uid)
}

func (s *Store) session(k presence.SessionKey) *firestore.DocumentRef {
	return s.participant(k.RoomID, k.ParticipantID).Collection(SessionsCollection).Doc(k.SessionID)
}

func (s *Store) typing(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(TypingCollection).Doc(uid)
}

func (s *Store) receipt(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(ReceiptsCollection).Doc(uid)
}

func (s *Store) policy(roomID string) *firestore.DocumentRef {
	return s.client.Collection(PoliciesCollection).Doc(roomID)
}

func (s *Store) userRooms(uid string) *firestore.DocumentRef {
	return s.client.Collection(UsersCollection).Doc(uid)
}

func (s *Store) control(doc string) *firestore.DocumentRef {
	return s.client.Collection(ControlCollection).Doc(doc)
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
	// Canceled: the caller went away (a browser tab closing mid-leave);
	// nothing failed on our side, so it is no server fault to log as one.
	case codes.Unavailable, codes.DeadlineExceeded, codes.Aborted, codes.ResourceExhausted, codes.Canceled:
		return fmt.Errorf("%s: %w: %w", op, presence.Errorf(presence.EUnavailable, "the presence store is busy or unavailable; retry"), err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
