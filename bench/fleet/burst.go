package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/roomlease/roomlease/bench/workload"
)

// crowdMember is one user's standing in one case: the room it joins and the
// generation its join returned (0 until a join is acknowledged).
type crowdMember struct {
	user       workload.Account
	room       string
	generation int64
	joinAcked  bool
	leaveAcked bool
}

// fleetSession is the one session each crowd member holds: a single tab.
const fleetSession = "tab-1"

// repairBudget bounds one repair step.
const repairBudget = 2 * time.Minute

// burst sends one request per member at the same moment: every goroutine
// is started and prepared first, then one closed channel releases them all.
// Member i goes to process i mod len(apis) (round robin). Each request is
// bounded by its API's client timeout, so a burst ends within it.
func burst(ctx context.Context, apis []*workload.API, members []*crowdMember, send func(context.Context, *workload.API, *crowdMember) workload.Result) []Attempt {
	attempts := make([]Attempt, len(members))
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	for i, m := range members {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			api := apis[i%len(apis)]
			ready.Done()
			<-start
			sctx, steps := workload.WithServerSteps(ctx)
			r := send(sctx, api, m)
			attempts[i] = Attempt{Process: i % len(apis), OK: r.Err == nil && r.Status == 200, Outcome: r.Outcome(), Ms: float64(r.Done.Sub(r.Sent)) / float64(time.Millisecond),
				Steps: steps.Ms}
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return attempts
}

// measuredBurst is burst, measured as phase, after an unmeasured touch:
// each member first sends one signed-in request (a read of a room nobody
// is in) to the process its measured request goes to, so that every
// measured burst starts with every user's revocation check fresh on that
// process (functions/auth, users.go: a user is looked up at most once per
// CheckEvery, 30 s, per process).
//
// Without it, the bursts of a run differed by when they came. On the
// emulators a request costs the Auth emulator one lookup (the Admin SDK's
// own, in emulator mode) when its user's answer is fresh and two when it
// is stale. The one-room joins came within 30 s of the warm-up and found
// the answers fresh; the separate rooms' joins came later and found them
// stale, so the Auth emulator took about twice the CPU during the floor,
// out of the same two cores, which slowed the floor and flattered the
// one room's ratio to it.
func measuredBurst(ctx context.Context, o phaseTeller, m cpuMeter, phase string, apis []*workload.API, members []*crowdMember, send func(context.Context, *workload.API, *crowdMember) workload.Result) BurstSummary {
	burst(ctx, apis, members, sendTouch)
	return m.measured(o, phase, func() []Attempt { return burst(ctx, apis, members, send) })
}

// sendTouch reads a room of the member's own that nobody joins: a request
// through the gates that writes nothing.
func sendTouch(ctx context.Context, api *workload.API, m *crowdMember) workload.Result {
	r, _ := api.Read(ctx, m.user.Token, m.room+"-touch")
	return r
}

func sendJoin(ctx context.Context, api *workload.API, m *crowdMember) workload.Result {
	r, jr := api.Join(ctx, m.user.Token, m.room, fleetSession, "crowd")
	if r.Err == nil && r.Status == 200 {
		m.generation, m.joinAcked = jr.Generation, true
	}
	return r
}

func sendLeave(ctx context.Context, api *workload.API, m *crowdMember) workload.Result {
	r := api.Leave(ctx, m.user.Token, m.room, fleetSession, m.generation)
	if r.Err == nil && r.Status == 200 {
		m.leaveAcked = true
	}
	return r
}

// repair brings every member that the burst left behind to where the next
// step needs it (joined, so that it holds a generation to leave with; or
// left, so that the room can empty), through one process, a few at a time
// and with a few attempts each. It is not measured: it only keeps one
// case's failures from deciding the next step's crowd. It returns how many
// members needed it and how many it could not fix; it gives up after
// repairBudget, so a hopeless fleet cannot stretch a run without bound.
func repair(ctx context.Context, api *workload.API, members []*crowdMember, needs func(*crowdMember) bool, send func(context.Context, *workload.API, *crowdMember) workload.Result) (needed, failed int) {
	ctx, cancel := context.WithTimeout(ctx, repairBudget)
	defer cancel()
	var todo []*crowdMember
	for _, m := range members {
		if needs(m) {
			todo = append(todo, m)
		}
	}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, m := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			for range 3 {
				if ctx.Err() != nil {
					break
				}
				if r := send(ctx, api, m); r.Err == nil && r.Status == 200 {
					return
				}
			}
			mu.Lock()
			failed++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return len(todo), failed
}

// readRoster reads GET /v1/rooms/{id} as reader.
func readRoster(ctx context.Context, api *workload.API, reader workload.Account, room string) ([]RosterEntry, error) {
	r, snap := api.Read(ctx, reader.Token, room)
	if r.Err != nil {
		return nil, r.Err
	}
	if r.Status != 200 {
		return nil, &statusError{r.Status, r.Code}
	}
	out := make([]RosterEntry, 0, len(snap.Participants))
	for _, p := range snap.Participants {
		out = append(out, RosterEntry{ParticipantID: p.ParticipantID, SessionCount: p.SessionCount})
	}
	return out, nil
}

type statusError struct {
	status int
	code   string
}

func (e *statusError) Error() string {
	return "room read answered " + workload.Result{Status: e.status, Code: e.code}.Outcome()
}

// settle polls count once a second until it returns the same value three
// times in a row (after at least minWait), or until maxWait. Requests that
// timed out on the client may still commit on a server for a moment; the
// checks must look at what they left, not at a moving target.
func settle(ctx context.Context, minWait, maxWait time.Duration, count func() (int, error)) (int, error) {
	deadline := time.Now().Add(maxWait)
	workload.SleepCtx(ctx, minWait)
	last, same := -1, 0
	for {
		n, err := count()
		if err != nil {
			return n, err
		}
		if n == last {
			same++
		} else {
			last, same = n, 1
		}
		if same >= 3 || !time.Now().Before(deadline) || ctx.Err() != nil {
			return n, ctx.Err()
		}
		workload.SleepCtx(ctx, time.Second)
	}
}
