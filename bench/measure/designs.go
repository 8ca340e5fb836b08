package measure

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/naive"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"

	"github.com/roomlease/roomlease/bench/workload"
)

// Design is a presence store as the store-level comparison drives it: in
// process, one session per participant.
type Design interface {
	Name() string
	Join(ctx context.Context, room, uid string) (int64, error)
	Heartbeat(ctx context.Context, room, uid string, gen int64) error
	// Watch starts a roster listener for room and returns a function that
	// reports the deliveries after the initial snapshot.
	Watch(ctx context.Context, room string) (func() int64, error)
	// Ops returns the store's reads and writes so far.
	Ops() (int64, int64)
}

// Roomlease drives firestoredb.Store.
type Roomlease struct {
	Store  *firestoredb.Store
	Client *firestore.Client
}

func (Roomlease) Name() string { return "roomlease" }

func (d Roomlease) Join(ctx context.Context, room, uid string) (int64, error) {
	res, err := d.Store.Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: "s1"}})
	return res.Session.Generation, err
}

func (d Roomlease) Heartbeat(ctx context.Context, room, uid string, gen int64) error {
	_, err := d.Store.Heartbeat(ctx, presence.SessionRef{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: "s1"}, Generation: gen})
	return err
}

func (d Roomlease) Watch(ctx context.Context, room string) (func() int64, error) {
	return watchQuery(ctx, d.Client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.ParticipantsCollection).Query)
}

func (d Roomlease) Ops() (int64, int64) { o := d.Store.Ops(); return o.Reads, o.Writes }

// Naive drives the naive baseline.
type Naive struct{ Store *naive.Store }

func (Naive) Name() string { return "naive" }

func (d Naive) Join(ctx context.Context, room, uid string) (int64, error) {
	gen, _, err := d.Store.Join(ctx, room, uid, uid)
	return gen, err
}

func (d Naive) Heartbeat(ctx context.Context, room, uid string, gen int64) error {
	_, err := d.Store.Heartbeat(ctx, room, uid, gen)
	return err
}

func (d Naive) Watch(ctx context.Context, room string) (func() int64, error) {
	return watchDoc(ctx, d.Store.Ref(room))
}

func (d Naive) Ops() (int64, int64) { return d.Store.Ops() }

// Bare is the reference: one document per participant, and a heartbeat is a
// bare transaction that reads it and updates one field. It is the floor any
// transactional heartbeat on this emulator stands on.
type Bare struct {
	Client        *firestore.Client
	reads, writes atomic.Int64
}

func (*Bare) Name() string { return "bare transaction" }

func (d *Bare) ref(room, uid string) *firestore.DocumentRef {
	return d.Client.Collection("bare").Doc(room).Collection("p").Doc(uid)
}

func (d *Bare) Join(ctx context.Context, room, uid string) (int64, error) {
	d.writes.Add(1)
	_, err := d.ref(room, uid).Set(ctx, map[string]any{"n": 0, "at": time.Now()})
	return 1, err
}

func (d *Bare) Heartbeat(ctx context.Context, room, uid string, _ int64) error {
	ref := d.ref(room, uid)
	return d.Client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		snap, err := tx.Get(ref)
		d.reads.Add(1)
		if err != nil {
			return err
		}
		n, _ := snap.Data()["n"].(int64)
		d.writes.Add(1)
		return tx.Update(ref, []firestore.Update{{Path: "n", Value: n + 1}, {Path: "at", Value: time.Now()}})
	}, firestore.MaxAttempts(30))
}

func (d *Bare) Watch(ctx context.Context, room string) (func() int64, error) {
	return watchQuery(ctx, d.Client.Collection("bare").Doc(room).Collection("p").Query)
}

func (d *Bare) Ops() (int64, int64) { return d.reads.Load(), d.writes.Load() }

func watchQuery(ctx context.Context, q firestore.Query) (func() int64, error) {
	return countDeliveries(q.Snapshots(ctx))
}

func watchDoc(ctx context.Context, ref *firestore.DocumentRef) (func() int64, error) {
	return countDeliveries(ref.Snapshots(ctx))
}

// countDeliveries waits for a listener's first snapshot (the initial state,
// not a delivery caused by the workload), then counts every later one until
// the listener ends. It returns the counter.
func countDeliveries[T any](it interface {
	Next() (T, error)
	Stop()
}) (func() int64, error) {
	if _, err := it.Next(); err != nil {
		it.Stop()
		return nil, err
	}
	var n atomic.Int64
	go func() {
		defer it.Stop()
		for {
			if _, err := it.Next(); err != nil {
				return
			}
			n.Add(1)
		}
	}()
	return n.Load, nil
}

// RoomRun is one design heartbeating one room of Size participants.
type RoomRun struct {
	Design          string           `json:"design"`
	Size            int              `json:"size"`
	Heartbeats      int64            `json:"heartbeats"`
	Failed          int64            `json:"failed"`
	SuccessRate     float64          `json:"successRate"`
	Latency         workload.Summary `json:"latency"`
	PerSecond       float64          `json:"perSecond"`
	Deliveries      int64            `json:"listenerDeliveries"`
	DeliveriesPerHB float64          `json:"listenerDeliveriesPerHeartbeat"`
	ReadsPerHB      float64          `json:"readsPerHeartbeat"`
	WritesPerHB     float64          `json:"writesPerHeartbeat"`
	JoinSetupSecs   float64          `json:"joinSetupSeconds"`
	JoinFailed      int              `json:"joinFailed"`
	Errors          map[string]int64
}

// HeartbeatRoom joins size participants into a fresh room one after another
// (setup, not measured), then lets each heartbeat every interval for rounds
// rounds, starting at random offsets within the first interval, while a
// roster listener counts deliveries.
func HeartbeatRoom(ctx context.Context, d Design, room string, size int, interval time.Duration, rounds int) (RoomRun, error) {
	run := RoomRun{Design: d.Name(), Size: size, Errors: map[string]int64{}}
	t0 := time.Now()
	gens := make([]int64, size)
	uids := make([]string, size)
	// Joins one after another (one lane): concurrent joins into one room
	// contend on the room document, and the setup is not what is measured.
	var wg sync.WaitGroup
	var joinFailed atomic.Int64
	lanes := 1
	for l := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := l; i < size; i += lanes {
				uids[i] = fmt.Sprintf("user%04d", i)
				g, err := d.Join(ctx, room, uids[i])
				if err != nil {
					joinFailed.Add(1)
					continue
				}
				gens[i] = g
			}
		}()
	}
	wg.Wait()
	run.JoinFailed = int(joinFailed.Load())
	run.JoinSetupSecs = time.Since(t0).Seconds()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	deliveries, err := d.Watch(wctx, room)
	if err != nil {
		return run, err
	}
	time.Sleep(500 * time.Millisecond)
	d0 := deliveries()
	r0, w0 := d.Ops()
	var lat workload.Dist
	var ok, failed atomic.Int64
	var emu sync.Mutex
	start := time.Now()
	for i := range size {
		if gens[i] == 0 {
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			time.Sleep(time.Duration(rng.Int64N(int64(interval))))
			for range rounds {
				tick := time.Now()
				t := time.Now()
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				err := d.Heartbeat(cctx, room, uids[i], gens[i])
				cancel()
				lat.Add(time.Since(t))
				if err != nil {
					failed.Add(1)
					emu.Lock()
					run.Errors[errClass(err)]++
					emu.Unlock()
				} else {
					ok.Add(1)
				}
				time.Sleep(interval - time.Since(tick))
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	time.Sleep(500 * time.Millisecond)
	r1, w1 := d.Ops()
	run.Heartbeats = ok.Load() + failed.Load()
	run.Failed = failed.Load()
	run.SuccessRate = workload.Ratio(float64(ok.Load()), float64(run.Heartbeats))
	run.Latency = lat.Summary()
	run.PerSecond = workload.Ratio(float64(run.Heartbeats), elapsed.Seconds())
	run.Deliveries = deliveries() - d0
	run.DeliveriesPerHB = workload.Ratio(float64(run.Deliveries), float64(run.Heartbeats))
	run.ReadsPerHB = workload.Ratio(float64(r1-r0), float64(run.Heartbeats))
	run.WritesPerHB = workload.Ratio(float64(w1-w0), float64(run.Heartbeats))
	return run, nil
}

func errClass(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline exceeded"
	case errors.Is(err, naive.ErrStale):
		return "stale"
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// BurstRun is n simultaneous joins into one fresh room.
type BurstRun struct {
	Design      string           `json:"design"`
	Joins       int              `json:"joins"`
	OK          int64            `json:"ok"`
	SuccessRate float64          `json:"successRate"`
	Latency     workload.Summary `json:"latency"`
	WallSecs    float64          `json:"wallSeconds"`
	Deliveries  int64            `json:"listenerDeliveries"`
	Reads       int64            `json:"reads"`
	Writes      int64            `json:"writes"`
	Errors      map[string]int64 `json:"errors,omitempty"`
}

// JoinBurst fires n joins into room at once and waits for all of them
// (each bounded by timeout).
func JoinBurst(ctx context.Context, d Design, room string, n int, timeout time.Duration) (BurstRun, error) {
	run := BurstRun{Design: d.Name(), Joins: n, Errors: map[string]int64{}}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	// The room exists before the burst, as a call does when people pile in.
	if _, err := d.Join(ctx, room, "host"); err != nil {
		return run, err
	}
	deliveries, err := d.Watch(wctx, room)
	if err != nil {
		return run, err
	}
	time.Sleep(300 * time.Millisecond)
	d0 := deliveries()
	r0, w0 := d.Ops()
	var lat workload.Dist
	var ok atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	gate := make(chan struct{})
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			t := time.Now()
			_, err := d.Join(cctx, room, fmt.Sprintf("burst%04d", i))
			lat.Add(time.Since(t))
			if err != nil {
				mu.Lock()
				run.Errors[errClass(err)]++
				mu.Unlock()
				return
			}
			ok.Add(1)
		}()
	}
	close(gate)
	wg.Wait()
	run.WallSecs = time.Since(start).Seconds()
	time.Sleep(500 * time.Millisecond)
	r1, w1 := d.Ops()
	run.OK = ok.Load()
	run.SuccessRate = workload.Ratio(float64(run.OK), float64(n))
	run.Latency = lat.Summary()
	run.Deliveries = deliveries() - d0
	run.Reads, run.Writes = r1-r0, w1-w0
	return run, nil
}
