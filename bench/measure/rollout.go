package measure

import (
	"context"
	"fmt"
	"sync"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
)

// RolloutCounts are one side of the rollout comparison: candidates and
// their classes, per slice.
type RolloutCounts struct {
	Candidates int `json:"candidates"`
	Confirmed  int `json:"confirmed"`
	Reconnects int `json:"reconnectsAfterCandidate"`
	Violations int `json:"violations"`
}

// RolloutRun is what the rollout scenario found: the sweeper's counts next
// to what the workload did, per slice ("observed", "enforced").
type RolloutRun struct {
	Rooms           int                      `json:"rooms"`
	SharePercent    float64                  `json:"enforceSharePercent"`
	Lease           float64                  `json:"leaseSeconds"`
	Grace           float64                  `json:"graceSeconds"`
	Window          float64                  `json:"reconnectWindowSeconds"`
	Sweeper         map[string]RolloutCounts `json:"sweeper"`
	Truth           map[string]RolloutCounts `json:"truth"`
	Agree           bool                     `json:"agree"`
	Seconds         float64                  `json:"seconds"`
	ReconnectAfterS []float64                `json:"reconnectAfterCandidateSeconds"` // per returner: candidate to rejoin
}

// Rollout runs rooms rooms on the store in process, with short settings
// and a sweeper enforcing sharePercent of them: half the rooms' clients
// crash and come back (the same session joins again) a third of the window
// after their room became a teardown candidate, which is after a gap
// longer than the grace; the other half leave for good. The workload knows
// which is which (the ground truth: a reconnect after candidate, or
// confirmed), and the sweeper classifies each candidate from the
// documents alone; the two must agree exactly.
func Rollout(ctx context.Context, client *firestore.Client, rooms int, sharePercent float64) (RolloutRun, error) {
	settings := presence.DefaultSettings()
	settings.Heartbeat, settings.Lease, settings.RenewWhenLeft = 500*time.Millisecond, time.Second, 0.5
	settings.EmptyRoomGrace, settings.ReconnectWindow = 2*time.Second, 3*time.Second
	if err := settings.Validate(); err != nil {
		return RolloutRun{}, err
	}
	store := firestoredb.New(client, settings, time.Now)
	sw, err := sweep.New(store, sweep.Config{DefaultMode: sweep.Enforce, EnforceSharePercent: &sharePercent,
		MinWait: 50 * time.Millisecond, MaxWait: 250 * time.Millisecond}, time.Now, nil, discardLogger())
	if err != nil {
		return RolloutRun{}, err
	}
	run := RolloutRun{Rooms: rooms, SharePercent: sharePercent, Lease: settings.Lease.Seconds(), Grace: settings.EmptyRoomGrace.Seconds(),
		Window: settings.ReconnectWindow.Seconds(), Sweeper: map[string]RolloutCounts{}, Truth: map[string]RolloutCounts{}}
	share, _ := sweep.ParseShare(sharePercent)
	for i := range rooms {
		slice := sliceName(presence.InEnforcedSlice(rollRoom(i), share))
		t := run.Truth[slice]
		t.Candidates++
		if returner(i) {
			t.Reconnects++
		} else {
			t.Confirmed++
		}
		run.Truth[slice] = t
	}

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	// The sweeper, on its own schedule, as a deployment runs it.
	var mu sync.Mutex
	var total sweep.Counts
	sweeping := make(chan struct{})
	go func() {
		defer close(sweeping)
		for ctx.Err() == nil {
			r := sw.Pass(ctx)
			mu.Lock()
			total.CandidatesObserved += r.CandidatesObserved
			total.CandidatesEnforced += r.CandidatesEnforced
			total.ConfirmedObserved += r.ConfirmedObserved
			total.ConfirmedEnforced += r.ConfirmedEnforced
			total.ReconnectsObserved += r.ReconnectsObserved
			total.ReconnectsEnforced += r.ReconnectsEnforced
			total.ViolationsObserved += r.ViolationsObserved
			total.ViolationsEnforced += r.ViolationsEnforced
			mu.Unlock()
			_ = sweep.SleepContext(ctx, 100*time.Millisecond)
		}
	}()
	classified := func() int {
		mu.Lock()
		defer mu.Unlock()
		return total.ConfirmedObserved + total.ConfirmedEnforced + total.ReconnectsObserved + total.ReconnectsEnforced +
			total.ViolationsObserved + total.ViolationsEnforced
	}

	var wg sync.WaitGroup
	errs := make(chan error, rooms)
	delays := make(chan float64, rooms)
	stop := make(chan struct{})
	for i := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := rolloutClient(ctx, store, client, settings, i, stop)
			if err != nil {
				errs <- fmt.Errorf("room %d: %w", i, err)
				cancel()
			}
			if d > 0 {
				delays <- d
			}
		}()
	}
	for classified() < rooms && ctx.Err() == nil {
		_ = sweep.SleepContext(ctx, 100*time.Millisecond)
	}
	close(stop)
	wg.Wait()
	cancel()
	<-sweeping
	close(errs)
	close(delays)
	for err := range errs {
		return run, err
	}
	for d := range delays {
		run.ReconnectAfterS = append(run.ReconnectAfterS, d)
	}
	run.Seconds = time.Since(t0).Seconds()
	run.Sweeper["observed"] = RolloutCounts{Candidates: total.CandidatesObserved, Confirmed: total.ConfirmedObserved,
		Reconnects: total.ReconnectsObserved, Violations: total.ViolationsObserved}
	run.Sweeper["enforced"] = RolloutCounts{Candidates: total.CandidatesEnforced, Confirmed: total.ConfirmedEnforced,
		Reconnects: total.ReconnectsEnforced, Violations: total.ViolationsEnforced}
	run.Agree = true
	for _, slice := range []string{"observed", "enforced"} {
		run.Agree = run.Agree && run.Sweeper[slice] == run.Truth[slice]
	}
	return run, nil
}

func rollRoom(i int) string { return fmt.Sprintf("rollout-%03d", i) }

// returner says whether room i's client comes back (even rooms) or leaves
// for good (odd ones).
func returner(i int) bool { return i%2 == 0 }

func sliceName(enforced bool) string {
	if enforced {
		return "enforced"
	}
	return "observed"
}

// rolloutClient is room i's one client. A leaver joins and leaves. A
// returner joins and crashes (no heartbeat: its lease ends and the sweeper
// expires it); once its room is a teardown candidate it waits a third of
// the window, joins again with the same session and heartbeats until stop,
// so that the room stays occupied. It returns, for a returner, the seconds
// from the candidate's check to its rejoin.
func rolloutClient(ctx context.Context, store *firestoredb.Store, client *firestore.Client, s presence.Settings, i int, stop <-chan struct{}) (float64, error) {
	room := rollRoom(i)
	key := presence.SessionKey{RoomID: room, ParticipantID: fmt.Sprintf("user-%03d", i), SessionID: "tab"}
	j, err := store.Join(ctx, presence.JoinRequest{SessionKey: key})
	if err != nil {
		return 0, err
	}
	if !returner(i) {
		_, err := store.Leave(ctx, presence.SessionRef{SessionKey: key, Generation: j.Session.Generation})
		return 0, err
	}
	// Wait for the candidate: the workload only watches, to know when to
	// come back; the sweeper's classification reads the room alone.
	var checkedAt time.Time
	for checkedAt.IsZero() {
		snaps, err := client.Collection(firestoredb.CandidatesCollection).Where(firestoredb.FieldRoomID, "==", room).Documents(ctx).GetAll()
		if err != nil {
			return 0, err
		}
		for _, snap := range snaps {
			if t, ok := snap.Data()["checkedAt"].(time.Time); ok {
				checkedAt = t
			}
		}
		if checkedAt.IsZero() {
			if err := sweep.SleepContext(ctx, 50*time.Millisecond); err != nil {
				return 0, err
			}
		}
	}
	if err := sweep.SleepContext(ctx, s.ReconnectWindow/3); err != nil {
		return 0, err
	}
	j, err = store.Join(ctx, presence.JoinRequest{SessionKey: key})
	if err != nil {
		return 0, err
	}
	delay := time.Since(checkedAt).Seconds()
	ref := presence.SessionRef{SessionKey: key, Generation: j.Session.Generation}
	tick := time.NewTicker(s.Heartbeat / 2)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return delay, nil
		case <-ctx.Done():
			return delay, ctx.Err()
		case <-tick.C:
			if _, err := store.Renew(ctx, ref); err != nil {
				return delay, err
			}
		}
	}
}
