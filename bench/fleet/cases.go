package fleet

import (
	"context"
	"fmt"
	"sync"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/workload"
)

var timeoutMs = float64(fleetTimeout) / float64(time.Millisecond)

// runOneRoom sends the whole crowd into one room at once, checks the roster
// once the joins have settled, sends the crowd out at once, and checks that
// the room became suspected_empty exactly once.
func runOneRoom(ctx context.Context, o harness.Options, m cpuMeter, client *firestore.Client, apis []*workload.API, helper *workload.API, users []workload.Account, room string) Case {
	c := Case{Processes: len(apis), Crowd: len(users), Rooms: "one"}
	members := make([]*crowdMember, len(users))
	for i, u := range users {
		members[i] = &crowdMember{user: u, room: room}
	}
	roomDoc := client.Collection(firestoredb.RoomsCollection).Doc(room)
	entries := func() ([]*firestore.DocumentSnapshot, error) {
		return roomDoc.Collection(firestoredb.ParticipantsCollection).Documents(ctx).GetAll()
	}
	count := func() (int, error) {
		docs, err := entries()
		return len(docs), err
	}
	fail := func(step string, err error) Case {
		c.CheckError = fmt.Sprintf("%s: %v", step, err)
		o.Log("fleet: " + c.CheckError)
		return c
	}

	// 1. The joins, then the roster as a participant reads it.
	c.Join = measuredBurst(ctx, o, m, c.phase("join"), apis, members, sendJoin)
	if _, err := settle(ctx, 2*time.Second, 30*time.Second, count); err != nil {
		return fail("settling the joins", err)
	}
	check, err := rosterCheck(ctx, helper, roomDoc, members, entries)
	if err != nil {
		return fail("reading the roster", err)
	}
	c.Roster = &check

	// 2. Everyone who still lacks a generation gets one, unmeasured, so
	// that the leaves are the whole crowd's.
	c.JoinRepairs, c.JoinRepairFailures = repair(ctx, helper, members, func(m *crowdMember) bool { return !m.joinAcked }, sendJoin)
	var leaving []*crowdMember
	for _, m := range members {
		if m.joinAcked {
			leaving = append(leaving, m)
		}
	}

	// 3. The leaves, watched by a listener on the room document.
	genBefore, _, err := roomFields(ctx, roomDoc)
	if err != nil {
		return fail("reading the room", err)
	}
	watch, err := watchStates(ctx, roomDoc)
	if err != nil {
		return fail("listening to the room", err)
	}
	c.Leave = measuredBurst(ctx, o, m, c.phase("leave"), apis, leaving, sendLeave)
	if _, err := settle(ctx, 2*time.Second, 30*time.Second, count); err != nil {
		watch.stop()
		return fail("settling the leaves", err)
	}
	c.LeaveRepairs, c.LeaveRepairFails = repair(ctx, helper, leaving, func(m *crowdMember) bool { return !m.leaveAcked }, sendLeave)
	// The empty transition may be the last leave's or the sweeper's; give
	// either a bounded while, then let the listener deliver what it saw.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && ctx.Err() == nil; {
		if _, state, err := roomFields(ctx, roomDoc); err == nil && state == StateSuspectedEmpty {
			break
		}
		workload.SleepCtx(ctx, 500*time.Millisecond)
	}
	workload.SleepCtx(ctx, time.Second)
	states := watch.stop()
	genAfter, _, err := roomFields(ctx, roomDoc)
	if err != nil {
		return fail("reading the room", err)
	}
	left, err := count()
	if err != nil {
		return fail("counting the roster", err)
	}
	empty := CheckEmpty(states, genBefore, genAfter, left)
	c.Empty = &empty
	return c
}

// rosterCheck reads the roster with GET /v1/rooms/{id} as a participant (the
// first acknowledged one, else anyone listed) and judges it.
func rosterCheck(ctx context.Context, api *workload.API, roomDoc *firestore.DocumentRef, members []*crowdMember, entries func() ([]*firestore.DocumentSnapshot, error)) (RosterCheck, error) {
	docs, err := entries()
	if err != nil {
		return RosterCheck{}, err
	}
	var crowd, acked []string
	byUID := map[string]*crowdMember{}
	var reader *crowdMember
	for _, m := range members {
		crowd = append(crowd, m.user.UID)
		byUID[m.user.UID] = m
		if m.joinAcked {
			acked = append(acked, m.user.UID)
			if reader == nil {
				reader = m
			}
		}
	}
	for _, d := range docs {
		if reader == nil {
			reader = byUID[d.Ref.ID]
		}
	}
	var roster []RosterEntry
	if reader != nil {
		if roster, err = readRoster(ctx, api, reader.user, roomDoc.ID); err != nil {
			return RosterCheck{}, err
		}
	}
	return CheckRoster(crowd, acked, roster, len(docs)), nil
}

// phase names one of c's bursts, as the emulator's profile lists it.
func (c Case) phase(op string) string {
	rooms := "one room"
	if c.Rooms == "separate" {
		rooms = fmt.Sprintf("%d rooms", c.Crowd)
	}
	return fmt.Sprintf("%d processes, %d users, %s: %s", c.Processes, c.Crowd, rooms, op)
}

// roomFields reads the room document's generation and state ("absent" when
// there is no document).
func roomFields(ctx context.Context, doc *firestore.DocumentRef) (generation int64, state string, err error) {
	snap, err := doc.Get(ctx)
	if status.Code(err) == codes.NotFound {
		return 0, "absent", nil
	}
	if err != nil {
		return 0, "", err
	}
	return snapFields(snap)
}

func snapFields(snap *firestore.DocumentSnapshot) (int64, string, error) {
	if snap == nil || !snap.Exists() {
		return 0, "absent", nil
	}
	gen, _ := snap.Data()[firestoredb.FieldGeneration].(int64)
	state, _ := snap.Data()[firestoredb.FieldState].(string)
	return gen, state, nil
}

// stateWatch records the states a listener on a room document delivers.
type stateWatch struct {
	mu     sync.Mutex
	states []string
	cancel context.CancelFunc
	done   chan struct{}
}

// watchStates starts a listener on doc and returns once it has delivered
// the initial snapshot, whose state is the first one recorded.
func watchStates(ctx context.Context, doc *firestore.DocumentRef) (*stateWatch, error) {
	lctx, cancel := context.WithCancel(ctx)
	w := &stateWatch{cancel: cancel, done: make(chan struct{})}
	first := make(chan error, 1)
	go func() {
		defer close(w.done)
		it := doc.Snapshots(lctx)
		defer it.Stop()
		initial := true
		for {
			snap, err := it.Next()
			if err != nil {
				if initial {
					first <- err
				}
				return
			}
			_, state, _ := snapFields(snap)
			w.mu.Lock()
			w.states = append(w.states, state)
			w.mu.Unlock()
			if initial {
				initial = false
				first <- nil
			}
		}
	}()
	if err := <-first; err != nil {
		cancel()
		return nil, err
	}
	return w, nil
}

func (w *stateWatch) stop() []string {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.states
}

// runSeparate is the floor: the same crowd, each member into a room of its
// own, joining and leaving at once through the same fleet.
func runSeparate(ctx context.Context, o harness.Options, m cpuMeter, client *firestore.Client, apis []*workload.API, helper *workload.API, users []workload.Account, prefix string) Case {
	c := Case{Processes: len(apis), Crowd: len(users), Rooms: "separate"}
	members := make([]*crowdMember, len(users))
	refs := make([]*firestore.DocumentRef, len(users))
	for i, u := range users {
		members[i] = &crowdMember{user: u, room: fmt.Sprintf("%s-%d", prefix, i)}
		refs[i] = client.Collection(firestoredb.RoomsCollection).Doc(members[i].room)
	}
	c.Join = measuredBurst(ctx, o, m, c.phase("join"), apis, members, sendJoin)
	workload.SleepCtx(ctx, 2*time.Second)
	c.JoinRepairs, c.JoinRepairFailures = repair(ctx, helper, members, func(m *crowdMember) bool { return !m.joinAcked }, sendJoin)
	var leaving []*crowdMember
	for _, m := range members {
		if m.joinAcked {
			leaving = append(leaving, m)
		}
	}
	c.Leave = measuredBurst(ctx, o, m, c.phase("leave"), apis, leaving, sendLeave)
	workload.SleepCtx(ctx, 2*time.Second)
	c.LeaveRepairs, c.LeaveRepairFails = repair(ctx, helper, leaving, func(m *crowdMember) bool { return !m.leaveAcked }, sendLeave)
	for end := time.Now().Add(30 * time.Second); ; {
		snaps, err := client.GetAll(ctx, refs)
		if err != nil {
			c.CheckError = fmt.Sprintf("reading the rooms: %v", err)
			o.Log("fleet: " + c.CheckError)
			return c
		}
		c.RoomsSuspectedEmpty = 0
		for _, s := range snaps {
			if _, state, _ := snapFields(s); state == StateSuspectedEmpty {
				c.RoomsSuspectedEmpty++
			}
		}
		if c.RoomsSuspectedEmpty == len(refs) || !time.Now().Before(end) || ctx.Err() != nil {
			return c
		}
		workload.SleepCtx(ctx, time.Second)
	}
}
