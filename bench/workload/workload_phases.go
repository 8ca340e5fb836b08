package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// The phases of Workload.Run, in the order it runs them.

// signUpUsers signs up Rooms×PerRoom users at the Auth emulator, at most
// UserConcurrency at a time, and spreads them over the rooms in turn.
func (w *Workload) signUpUsers(ctx context.Context, start time.Time) ([]*simUser, error) {
	cfg := w.cfg
	n := cfg.Rooms * cfg.PerRoom
	accounts, err := SignUpAll(ctx, cfg.AuthHost, n, cfg.UserConcurrency, 30*time.Second)
	if err != nil {
		return nil, err
	}
	users := make([]*simUser, n)
	for i, a := range accounts {
		users[i] = &simUser{uid: a.UID, token: a.Token, room: w.roomID(i % cfg.Rooms), sessions: map[string]*session{}}
	}
	for _, u := range users {
		w.users[u.uid] = u
	}
	cfg.Progress(fmt.Sprintf("%s: %d users signed up in %.1fs", cfg.Name, n, time.Since(start).Seconds()))
	return users, nil
}

// watchRooms attaches a roster listener and a room-document listener to
// every room and returns once all have delivered their first snapshot, so
// that no join happens before a listener can see it. The returned function
// stops them.
func (w *Workload) watchRooms() (stop func()) {
	lctx, stop := context.WithCancel(context.Background())
	var ready sync.WaitGroup
	for i := range w.cfg.Rooms {
		rw := &roomWatch{id: w.roomID(i), w: w, members: map[string]bool{}}
		w.rooms[rw.id] = rw
		ready.Add(2)
		go rw.run(lctx, w.client, &ready)
	}
	ready.Wait()
	return stop
}

// openTabs gives every user one tab, or two for a TwoTabs fraction of them.
// The draw comes from the run's seed, so the same seed opens the same tabs.
func (w *Workload) openTabs(users []*simUser) {
	rng := rand.New(rand.NewPCG(w.cfg.Seed, w.cfg.Seed^0x9e3779b97f4a7c15))
	for _, u := range users {
		tabs := 1
		if rng.Float64() < w.cfg.TwoTabs {
			tabs = 2
		}
		for range tabs {
			u.tabs = append(u.tabs, NextTab(&u.tabSeq))
		}
	}
}

// userLoops are the users' client loops (runUser), one goroutine each.
type userLoops struct {
	stop context.CancelFunc // ends every loop; a draining user departs then
	done sync.WaitGroup     // every loop has returned
}

// joinAndStartUsers joins every user's tabs, at most JoinConcurrency users
// at a time, and starts each user's client loop as soon as its own joins
// are done, as a client does. It returns once every user's joins are done.
func (w *Workload) joinAndStartUsers(ctx context.Context, users []*simUser) *userLoops {
	cfg := w.cfg
	jsem := make(chan struct{}, cfg.JoinConcurrency)
	runCtx, stop := context.WithCancel(ctx)
	loops := &userLoops{stop: stop}
	var joined sync.WaitGroup
	for i, u := range users {
		joined.Add(1)
		loops.done.Add(1)
		seed := cfg.Seed + uint64(i)*7919
		go func(u *simUser) {
			defer loops.done.Done()
			jsem <- struct{}{}
			for _, sid := range u.tabs {
				w.joinTab(ctx, u, u.room, sid)
			}
			<-jsem
			joined.Done()
			w.runUser(runCtx, u, rand.New(rand.NewPCG(seed, seed+1)))
		}(u)
	}
	joined.Wait()
	return loops
}

// measureSteady is the phase without churn: after a breath for the joins'
// deliveries to land, it counts the heartbeats sent and the listener
// deliveries they caused over Steady.
func (w *Workload) measureSteady(ctx context.Context) SteadyReport {
	cfg := w.cfg
	SleepCtx(ctx, time.Second)
	s0, d0, r0 := w.listenerTotals()
	hb0 := w.api.stats[OpHeartbeat].latency.Values()
	w.steadyHB.Store(0)
	w.steadyHBErr.Store(0)
	t0 := time.Now()
	sessions := w.liveSessions()
	SleepCtx(ctx, cfg.Steady)
	s1, d1, r1 := w.listenerTotals()
	hb1 := w.api.stats[OpHeartbeat].latency.Values()
	steady := SteadyReport{Seconds: time.Since(t0).Seconds(), Heartbeats: w.steadyHB.Load(),
		RosterDeliveries: s1 - s0, RosterDocReads: d1 - d0, RoomDocDeliveries: r1 - r0,
		HeartbeatErrorsOther: w.steadyHBErr.Load(), HeartbeatLatency: Summarize(hb1[len(hb0):])}
	steady.DeliveriesPerHB = Ratio(float64(steady.RosterDeliveries), float64(steady.Heartbeats))
	steady.RoomDeliveriesPerHB = Ratio(float64(steady.RoomDocDeliveries), float64(steady.Heartbeats))
	steady.HeartbeatsPerSecond = Ratio(float64(steady.Heartbeats), steady.Seconds)
	steady.Sessions = sessions
	cfg.Progress(fmt.Sprintf("%s: steady %.0fs: %d heartbeats, %d roster deliveries", cfg.Name, steady.Seconds, steady.Heartbeats, steady.RosterDeliveries))
	return steady
}

// liveSessions counts the sessions the users hold (no churn runs while it
// is used, so the count holds for the steady phase).
func (w *Workload) liveSessions() int {
	n := 0
	for _, u := range w.users {
		u.mu.Lock()
		for _, s := range u.sessions {
			if s.state == sLive {
				n++
			}
		}
		u.mu.Unlock()
	}
	return n
}

// churn lets the users draw churn events (runUser, churnEvent) for Churn,
// logging progress every ProgressInterval.
func (w *Workload) churn(ctx context.Context, start time.Time) {
	cfg := w.cfg
	w.churning.Store(true)
	end := time.Now().Add(cfg.Churn)
	for time.Now().Before(end) && ctx.Err() == nil {
		step := min(time.Until(end), max(cfg.ProgressInterval, time.Second))
		if cfg.ProgressInterval == 0 {
			step = time.Until(end)
		}
		SleepCtx(ctx, step)
		if cfg.ProgressInterval > 0 {
			r := w.api.Reports(time.Since(start))
			cfg.Progress(fmt.Sprintf("%s: %.0fs left; hb ok %d 5xx %d; false removals %d; ghosts %d; teardowns %d",
				cfg.Name, time.Until(end).Seconds(), r[OpHeartbeat].OK, r[OpHeartbeat].Server5xx+r[OpJoin].Server5xx+r[OpLeave].Server5xx+r[OpRead].Server5xx,
				w.falseRemovals.Load(), len(w.ghost.Values()), w.roomsDeleted.Load()))
		}
	}
	w.churning.Store(false)
}

// drain stops the users' loops. With Drain set, every user departs as its
// loop ends (by leave in even rooms, by crash in odd ones) and drain waits
// up to DrainWait for listeners to see every room deleted. It returns the
// number of rooms still present.
func (w *Workload) drain(ctx context.Context, loops *userLoops) (roomsLeft int) {
	cfg := w.cfg
	if cfg.Drain {
		w.draining.Store(true)
	}
	loops.stop()
	loops.done.Wait()
	if cfg.Drain {
		deadline := time.Now().Add(cfg.DrainWait)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			roomsLeft = w.roomsAlive()
			if roomsLeft == 0 {
				break
			}
			SleepCtx(ctx, 250*time.Millisecond)
		}
		SleepCtx(ctx, 500*time.Millisecond) // let teardownSeen attribute the last ones
	}
	return roomsLeft
}

func (w *Workload) roomsAlive() int {
	n := 0
	for _, rw := range w.rooms {
		rw.mu.Lock()
		if rw.everExisted {
			n++
		}
		rw.mu.Unlock()
	}
	return n
}

func (w *Workload) listenerTotals() (snaps, changes, roomSnaps int64) {
	for _, rw := range w.rooms {
		a, b, c := rw.counts()
		snaps, changes, roomSnaps = snaps+a, changes+b, roomSnaps+c
	}
	return
}

// SleepCtx waits d, or until ctx is done, whichever comes first.
func SleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
