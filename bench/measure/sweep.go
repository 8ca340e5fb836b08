package measure

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"
	"golang.org/x/sync/errgroup"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"

	"github.com/roomlease/roomlease/bench/workload"
)

// SeedRooms writes n well-formed rooms directly (BulkWriter), in the shape
// firestoredb writes them (see functions/firestoredb/records.go). Active
// rooms get one roster entry and one session whose lease runs leaseLeft
// from now; empty ones are suspected_empty and due (cleanupAfter passed),
// with no documents beneath.
func SeedRooms(ctx context.Context, client *firestore.Client, prefix string, n int, active bool, leaseLeft time.Duration) error {
	now := time.Now().UTC()
	horizon := now.Add(30 * 24 * time.Hour)
	bw := client.BulkWriter(ctx)
	var jobs []*firestore.BulkWriterJob
	for i := range n {
		id := fmt.Sprintf("%s-%05d", prefix, i)
		room := client.Collection(firestoredb.RoomsCollection).Doc(id)
		// The fields of roomRecord: a room carries no revision and no count
		// of its participants (the revision lives in its shards, the count
		// is the roster itself). What the store queries or rewrites is
		// named by firestoredb's constants; the rest, which no query
		// reads, by its firestore tag in records.go.
		rec := map[string]any{
			firestoredb.FieldRoomID: id, firestoredb.FieldGeneration: int64(1), firestoredb.FieldTeardownReported: false, "createdAt": now.Add(-time.Hour),
			firestoredb.FieldUpdatedAt: now.Add(-time.Minute), firestoredb.FieldExpireAt: horizon, firestoredb.FieldRevisionExpireAt: horizon,
		}
		if active {
			rec[firestoredb.FieldState] = string(presence.StateActive)
			rec[firestoredb.FieldEmptySince], rec[firestoredb.FieldCleanupAfter] = nil, nil
		} else {
			rec[firestoredb.FieldState] = string(presence.StateSuspectedEmpty)
			rec[firestoredb.FieldEmptySince], rec[firestoredb.FieldCleanupAfter] = now.Add(-2*time.Minute), now.Add(-time.Minute)
		}
		j, err := bw.Set(room, rec)
		if err != nil {
			return err
		}
		jobs = append(jobs, j)
		if active {
			uid := "u" + id
			p := room.Collection(firestoredb.ParticipantsCollection).Doc(uid)
			j, err = bw.Set(p, map[string]any{firestoredb.FieldRoomID: id, "participantId": uid, "displayName": "seed",
				"state": map[string]any{}, firestoredb.FieldAway: false, "joinedAt": now.Add(-time.Hour), "sessionCount": int64(1), firestoredb.FieldExpireAt: horizon})
			if err != nil {
				return err
			}
			jobs = append(jobs, j)
			lease := now.Add(leaseLeft)
			j, err = bw.Set(p.Collection(firestoredb.SessionsCollection).Doc("tab-1"), map[string]any{
				firestoredb.FieldRoomID: id, "participantId": uid, "sessionId": "tab-1", firestoredb.FieldGeneration: int64(1),
				firestoredb.FieldLeaseExpiresAt: lease, firestoredb.FieldExpireAt: lease.Add(24 * time.Hour), "createdAt": now.Add(-time.Hour),
				firestoredb.FieldRoomExpireAt: horizon, firestoredb.FieldEntryExpireAt: horizon, firestoredb.FieldAway: false})
			if err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
	}
	bw.End()
	for _, j := range jobs {
		if _, err := j.Results(); err != nil {
			return err
		}
	}
	return nil
}

// SweepCost is the sweeper's cost on one population.
type SweepCost struct {
	Rooms         int              `json:"rooms"`
	Passes        int              `json:"passes"`
	ReadsPerPass  float64          `json:"readsPerIdlePass"`
	WritesPerPass float64          `json:"writesPerIdlePass"`
	PassLatency   workload.Summary `json:"passLatency"`
	SeedSeconds   float64          `json:"seedSeconds"`
	// NextDeadlineReads: the query the sweeper makes between passes.
	NextDeadlineReads int64 `json:"nextDeadlineReads"`
}

// IdleSweepCost seeds n active rooms (every lease live) in client's project
// and measures passes of a sweeper that finds nothing to do.
func IdleSweepCost(ctx context.Context, client *firestore.Client, n, passes int) (SweepCost, error) {
	t0 := time.Now()
	if err := SeedRooms(ctx, client, "idle", n, true, 24*time.Hour); err != nil {
		return SweepCost{}, err
	}
	res := SweepCost{Rooms: n, Passes: passes, SeedSeconds: time.Since(t0).Seconds()}
	store := firestoredb.New(client, presence.DefaultSettings(), time.Now)
	sw, err := sweep.New(store, sweep.Config{}, time.Now, nil, discardLogger())
	if err != nil {
		return res, err
	}
	sw.Pass(ctx) // warm-up: connections, indexes
	before := store.Ops()
	var lat workload.Dist
	for range passes {
		t := time.Now()
		if r := sw.Pass(ctx); r.Err != nil {
			return res, r.Err
		}
		lat.Add(time.Since(t))
	}
	d := store.Ops().Sub(before)
	res.ReadsPerPass = float64(d.Reads) / float64(passes)
	res.WritesPerPass = float64(d.Writes) / float64(passes)
	res.PassLatency = lat.Summary()
	b := store.Ops()
	if _, err := store.NextDeadline(ctx, false); err != nil {
		return res, err
	}
	res.NextDeadlineReads = store.Ops().Sub(b).Reads
	return res, nil
}

// TeardownBacklog is the sweeper working off a backlog of empty rooms.
type TeardownBacklog struct {
	Rooms          int     `json:"rooms"`
	Deleted        int     `json:"deleted"`
	Passes         int     `json:"passes"`
	Seconds        float64 `json:"seconds"`
	RoomsPerSecond float64 `json:"roomsPerSecond"`
	ReadsPerRoom   float64 `json:"readsPerRoom"`
	WritesPerRoom  float64 `json:"writesPerRoom"`
	BatchSize      int     `json:"batchSize"`
}

// TeardownThroughput seeds n due empty rooms and runs passes (as the
// sweeper's Run would, back to back under a backlog) until none is left.
func TeardownThroughput(ctx context.Context, client *firestore.Client, n int) (TeardownBacklog, error) {
	if err := SeedRooms(ctx, client, "empty", n, false, 0); err != nil {
		return TeardownBacklog{}, err
	}
	store := firestoredb.New(client, presence.DefaultSettings(), time.Now)
	cfg := sweep.Config{}
	sw, err := sweep.New(store, cfg, time.Now, nil, discardLogger())
	if err != nil {
		return TeardownBacklog{}, err
	}
	res := TeardownBacklog{Rooms: n, BatchSize: 200}
	before := store.Ops()
	t0 := time.Now()
	for res.Deleted < n && time.Since(t0) < 10*time.Minute {
		r := sw.Pass(ctx)
		res.Passes++
		if r.Err != nil {
			return res, r.Err
		}
		res.Deleted += r.RoomsDeleted
		if r.RoomsDeleted == 0 && !r.Backlog {
			break
		}
	}
	res.Seconds = time.Since(t0).Seconds()
	d := store.Ops().Sub(before)
	res.RoomsPerSecond = workload.Ratio(float64(res.Deleted), res.Seconds)
	res.ReadsPerRoom = workload.Ratio(float64(d.Reads), float64(res.Deleted))
	res.WritesPerRoom = workload.Ratio(float64(d.Writes), float64(res.Deleted))
	return res, nil
}

// BigRoomPurge is the sweeper tearing down one room that n people joined
// and left, and purging what they left under it.
type BigRoomPurge struct {
	Participants int     `json:"participants"`
	Passes       int     `json:"passes"` // from the teardown's to the purge's end
	Seconds      float64 `json:"seconds"`
	LongestPass  float64 `json:"longestPassSeconds"`
	FailedSteps  int     `json:"failedSteps"`
	Reads        int64   `json:"reads"`
	Writes       int64   `json:"writes"`
	Purged       bool    `json:"purged"`
}

// PurgeBigRoom has n users join one room through the store (16 at a time,
// each retrying what a client would retry) and then leave it, lets its
// grace pass, and runs sweeper passes (on a clock moved past the grace)
// until the room's documents are purged.
func PurgeBigRoom(ctx context.Context, client *firestore.Client, n int) (BigRoomPurge, error) {
	settings := presence.DefaultSettings()
	var skew time.Duration // the passes' clock runs ahead by the grace
	now := func() time.Time { return time.Now().Add(skew) }
	store := firestoredb.New(client, settings, now)
	res := BigRoomPurge{Participants: n}
	joined := make([]presence.SessionRef, n)
	if err := eachOf(n, func(i int) error {
		k := presence.SessionKey{RoomID: "big", ParticipantID: fmt.Sprintf("u%05d", i), SessionID: "tab"}
		j, err := store.Join(ctx, presence.JoinRequest{SessionKey: k})
		joined[i] = presence.SessionRef{SessionKey: k, Generation: j.Session.Generation}
		return err
	}); err != nil {
		return res, err
	}
	if err := eachOf(n, func(i int) error {
		_, err := store.Leave(ctx, joined[i])
		return err
	}); err != nil {
		return res, err
	}
	skew = settings.EmptyRoomGrace + time.Second
	sw, err := sweep.New(store, sweep.Config{}, now, nil, discardLogger())
	if err != nil {
		return res, err
	}
	before := store.Ops()
	t0 := time.Now()
	for !res.Purged && time.Since(t0) < 10*time.Minute {
		began := time.Now()
		r := sw.Pass(ctx)
		res.LongestPass = max(res.LongestPass, time.Since(began).Seconds())
		res.Passes++
		res.FailedSteps += r.FailedSteps
		res.Purged = r.RoomsPurged > 0
	}
	res.Seconds = time.Since(t0).Seconds()
	d := store.Ops().Sub(before)
	res.Reads, res.Writes = d.Reads, d.Writes
	if !res.Purged {
		return res, fmt.Errorf("the room of %d was not purged within 10 minutes", n)
	}
	return res, nil
}

// eachOf runs f(0) … f(n-1), 16 at a time, each retried (up to 5 times)
// while it fails with an error a client retries, and returns the first
// error left.
func eachOf(n int, f func(i int) error) error {
	var g errgroup.Group
	g.SetLimit(16)
	for i := range n {
		g.Go(func() error {
			var err error
			for range 5 {
				if err = f(i); err == nil || presence.ErrorCode(err) != presence.EUnavailable {
					break
				}
			}
			return err
		})
	}
	return g.Wait()
}
