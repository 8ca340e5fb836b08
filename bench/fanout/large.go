package fanout

import (
	"context"
	"fmt"
	"sync"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/steptime"
	"github.com/roomlease/roomlease/functions/summarize"
	"github.com/roomlease/roomlease/functions/sweep"
)

// LargeResult is what a room's summary listeners received while the room
// churned: how many documents each, per second, and whether every summary
// they saw stated the exact count at its revision.
type LargeResult struct {
	Participants int `json:"participants"`
	Listeners    int `json:"sampledListeners"`
	// Joins and Leaves committed during the churn, over Seconds.
	Joins   int     `json:"joins"`
	Leaves  int     `json:"leaves"`
	Seconds float64 `json:"seconds"`
	// DocsPerListener is the most any summary listener received after its
	// first snapshot; ReadsPerListenerPerSecond divides it by Seconds.
	DocsPerListener           int64   `json:"docsPerListener"`
	ReadsPerListenerPerSecond float64 `json:"readsPerListenerPerSecond"`
	// Summaries is how many distinct summaries the listeners saw, and
	// Inexact how many of them stated a count other than the roster's
	// size at their revision.
	Summaries int `json:"summaries"`
	Inexact   int `json:"inexact"`
	// FullModeDocsPerChange is what one listener of the roster (the
	// full-mode listener set) receives per join or leave, measured in the
	// same room; its reads per second follow from the churn. -1: not
	// measured (rooms above FullModeUpTo).
	FullModeDocsPerChange float64 `json:"fullModeDocsPerChange"`
	// JoinPhaseMs and LeavePhaseMs are a round's halves, on average: its
	// joins at once until the last committed, then its leaves. JoinStepsMs
	// are a churn join's steps (steptime, as in Server-Timing), on
	// average: where a round's first half goes; LeaveStepsMs a churn
	// leave's, for the second.
	JoinPhaseMs  float64            `json:"joinPhaseMs"`
	LeavePhaseMs float64            `json:"leavePhaseMs"`
	JoinStepsMs  map[string]float64 `json:"joinStepsMs"`
	LeaveStepsMs map[string]float64 `json:"leaveStepsMs"`
}

// LargeOptions shape MeasureLarge.
type LargeOptions struct {
	Participants int
	// ChurnPerSecond is the joins and the leaves per second (each): 10 is
	// 10 joins and 10 leaves a second.
	ChurnPerSecond int
	Duration       time.Duration
	Sample         int
	Log            func(format string, args ...any)
}

// FullModeUpTo is the largest room whose churn is also watched by a
// full-mode listener set. Above it the emulator spends most of each write
// on that listener's query over the whole roster, which holds the churn
// far below its aim; what a full-mode listener receives per change does
// not depend on the room's size (Measure shows it at every size).
const FullModeUpTo = 1000

// MeasureLarge builds a room of opts.Participants, lets a summarizer keep
// its summary, attaches opts.Sample listeners to the summary (and one
// full-mode listener set, for comparison), and churns the room for
// opts.Duration, once a second: opts.ChurnPerSecond joins of new users at
// once, and when all have committed, as many leaves of old ones at once.
// Within a phase only joins (or only leaves) commit, in whatever order, so
// the count after the k-th change since the start is known whatever the
// order: a summary at revision R must state the count after change R - R0
// (churnCount).
func MeasureLarge(ctx context.Context, client *firestore.Client, opts LargeOptions) (LargeResult, error) {
	res := LargeResult{Participants: opts.Participants, Listeners: opts.Sample}
	id := fmt.Sprintf("large-%d-%d", opts.Participants, time.Now().UnixNano())
	// Every size is large here: the policy's threshold is 2.
	if _, err := client.Collection(firestoredb.PoliciesCollection).Doc(id).Set(ctx, map[string]any{"largeRoomThreshold": 2}); err != nil {
		return res, err
	}
	if opts.Log != nil {
		opts.Log("fanout large: building a room of %d", opts.Participants)
	}
	r, err := newRoom(ctx, client, id, opts.Participants)
	if err != nil {
		return res, err
	}
	defer r.close()
	// The summarizer and the churn run on the wall clock: the summary's
	// cadence is a second of real time.
	live := firestoredb.New(client, r.settings, time.Now)
	sctx, stopSummaries := context.WithCancel(ctx)
	defer stopSummaries()
	go summarize.New(live, sweep.SleepContext, nil).Run(sctx)

	// Wait for the first summary, then note where the churn starts from.
	summaryRef := client.Collection(firestoredb.RoomsCollection).Doc(id).Collection(firestoredb.SummaryCollection).Doc(firestoredb.SummaryDoc)
	var rev0, count0 int64
	for deadline := time.Now().Add(time.Minute); ; {
		if snap, err := summaryRef.Get(ctx); err == nil && snap.Exists() {
			d := snap.Data()
			rev0, count0 = d["revision"].(int64), d["count"].(int64)
			break
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("no summary within a minute")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if count0 != int64(opts.Participants) {
		return res, fmt.Errorf("first summary counts %d, the room has %d", count0, opts.Participants)
	}

	listeners := make([]*summaryListener, opts.Sample)
	for i := range listeners {
		if listeners[i], err = listenSummary(ctx, summaryRef); err != nil {
			return res, err
		}
		defer listeners[i].stop()
	}
	var full *listenerSet
	if opts.Participants <= FullModeUpTo {
		if full, err = r.listen(ctx); err != nil {
			return res, err
		}
	}

	if opts.Log != nil {
		opts.Log("fanout large: %d joins and %d leaves a second for %v", opts.ChurnPerSecond, opts.ChurnPerSecond, opts.Duration)
	}
	var fullBefore int64
	if full != nil {
		fullBefore = full.delivered()
	}
	began := time.Now()
	m := opts.ChurnPerSecond
	next := 0 // the next of the original participants to leave
	changes := 0
	var joinPhase, leavePhase time.Duration
	rounds := 0
	var stepsMu sync.Mutex
	stepSums, leaveSums := map[string]float64{}, map[string]float64{}
	for round := 0; time.Since(began) < opts.Duration && next+m <= len(r.refs) && ctx.Err() == nil; round++ {
		tick := time.Now()
		err := atOnce(m, func(i int) error {
			key := presence.SessionKey{RoomID: id, ParticipantID: fmt.Sprintf("churn-%05d", round*m+i), SessionID: "tab"}
			jctx, steps := steptime.With(ctx)
			_, err := live.Join(jctx, presence.JoinRequest{SessionKey: key, DisplayName: key.ParticipantID, HasDisplayName: true})
			stepsMu.Lock()
			for name, ms := range steptime.Parse(steps.Header()) {
				stepSums[name] += ms
			}
			stepsMu.Unlock()
			return err
		})
		if err != nil {
			return res, fmt.Errorf("churn join: %w", err)
		}
		joinPhase += time.Since(tick)
		leavesBegan := time.Now()
		res.Joins += m
		leaving := r.refs[next : next+m]
		next += m
		err = atOnce(m, func(i int) error {
			lctx, steps := steptime.With(ctx)
			out, err := live.Leave(lctx, leaving[i])
			stepsMu.Lock()
			for name, ms := range steptime.Parse(steps.Header()) {
				leaveSums[name] += ms
			}
			stepsMu.Unlock()
			if err == nil && !out.Removed {
				err = fmt.Errorf("%s was not removed: %+v", leaving[i].ParticipantID, out)
			}
			return err
		})
		if err != nil {
			return res, fmt.Errorf("churn leave: %w", err)
		}
		leavePhase += time.Since(leavesBegan)
		res.Leaves += m
		rounds++
		changes += 2 * m
		if wait := time.Second - time.Since(tick); wait > 0 {
			time.Sleep(wait)
		}
	}
	res.Seconds = time.Since(began).Seconds()
	if rounds > 0 {
		res.JoinPhaseMs = float64(joinPhase.Milliseconds()) / float64(rounds)
		res.LeavePhaseMs = float64(leavePhase.Milliseconds()) / float64(rounds)
		res.JoinStepsMs = map[string]float64{}
		for name, ms := range stepSums {
			res.JoinStepsMs[name] = ms / float64(res.Joins)
		}
		res.LeaveStepsMs = map[string]float64{}
		for name, ms := range leaveSums {
			res.LeaveStepsMs[name] = ms / float64(res.Leaves)
		}
	}
	time.Sleep(1500 * time.Millisecond) // the last summary, and its delivery
	res.FullModeDocsPerChange = -1
	if full != nil {
		quiet([]*listenerSet{full}, 750*time.Millisecond)
		res.FullModeDocsPerChange = float64(full.delivered()-fullBefore) / float64(max(changes, 1))
	}

	seen := map[int64]int64{}
	res.DocsPerListener = -1
	for _, l := range listeners {
		got, summaries, err := l.result()
		if err != nil {
			return res, err
		}
		res.DocsPerListener = max(res.DocsPerListener, got)
		for rev, count := range summaries {
			seen[rev] = count
		}
	}
	res.ReadsPerListenerPerSecond = float64(res.DocsPerListener) / res.Seconds
	for rev, count := range seen {
		res.Summaries++
		if k := rev - rev0; k < 0 || count != churnCount(count0, k, int64(m)) {
			res.Inexact++
		}
	}
	return res, nil
}

// summaryListener counts the summaries one listener receives after its
// first, and keeps the (revision, count) each stated.
type summaryListener struct {
	stop      func()
	mu        sync.Mutex
	docs      int64
	summaries map[int64]int64
	err       error
}

func listenSummary(ctx context.Context, ref *firestore.DocumentRef) (*summaryListener, error) {
	ctx, cancel := context.WithCancel(ctx)
	l := &summaryListener{stop: cancel, summaries: map[int64]int64{}}
	it := ref.Snapshots(ctx)
	if _, err := it.Next(); err != nil {
		it.Stop()
		cancel()
		return nil, err
	}
	go func() {
		defer it.Stop()
		for {
			snap, err := it.Next()
			l.mu.Lock()
			if err != nil {
				if ctx.Err() == nil {
					l.err = err
				}
				l.mu.Unlock()
				return
			}
			l.docs++
			if snap.Exists() {
				d := snap.Data()
				rev, _ := d["revision"].(int64)
				count, _ := d["count"].(int64)
				l.summaries[rev] = count
			}
			l.mu.Unlock()
		}
	}()
	return l, nil
}

func (l *summaryListener) result() (int64, map[int64]int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.docs, l.summaries, l.err
}

// churnCount is the roster's size after the k-th change since the churn
// began from count0, in rounds of m joins and then m leaves.
func churnCount(count0, k, m int64) int64 {
	r := k % (2 * m)
	if r <= m {
		return count0 + r
	}
	return count0 + 2*m - r
}

// atOnce runs f for 0..n-1 at once and returns the first error.
func atOnce(n int, f func(i int) error) error {
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- f(i) }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Check fails unless the result keeps large-room mode's promises: each
// summary listener received at most one summary a second of churn (plus
// the one the churn's last second left), every summary stated the roster's
// exact size at its revision, and a full-mode listener, where watched,
// paid at most one read per change. A run that measured nothing fails too.
func (r LargeResult) Check() error {
	switch {
	case r.Joins == 0 || r.Leaves == 0 || r.Summaries == 0:
		return fmt.Errorf("room of %d: nothing measured (%d joins, %d leaves, %d summaries)", r.Participants, r.Joins, r.Leaves, r.Summaries)
	case r.DocsPerListener > int64(r.Seconds)+2:
		return fmt.Errorf("room of %d: a summary listener received %d documents in %.1f s, more than one a second", r.Participants, r.DocsPerListener, r.Seconds)
	case r.Inexact != 0:
		return fmt.Errorf("room of %d: %d of %d summaries stated a count other than the roster's at their revision", r.Participants, r.Inexact, r.Summaries)
	case r.FullModeDocsPerChange > 1:
		return fmt.Errorf("room of %d: a full-mode listener received %.2f documents per change, more than one", r.Participants, r.FullModeDocsPerChange)
	}
	return nil
}
