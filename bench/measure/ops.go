// Package measure drives roomlease's store in process and counts what it
// does: the reads and writes of each operation (ops.go), a participant-hour
// at a heartbeat/lease setting (hour.go), the sweeper's idle cost and
// teardown throughput (sweep.go), and heartbeat latency and listener
// traffic of roomlease, the naive baseline and a bare transaction
// (designs.go). The scenarios of package bench run and report them.
package measure

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
)

// OpCount is the Firestore reads and writes of one store operation, from
// Store.Ops() deltas around a single call with nothing else running.
type OpCount struct {
	Op     string `json:"op"`
	Reads  int64  `json:"reads"`
	Writes int64  `json:"writes"`
	// RoomWrites and RosterWrites: whether the room document / any roster
	// entry changed (their update times, read before and after).
	RoomWritten   bool `json:"roomDocWritten"`
	RosterWritten bool `json:"rosterEntryWritten"`
}

// Clock is a wall clock that can be pushed ahead (to pass leases and graces
// without waiting).
type Clock struct{ offset atomic.Int64 }

func (c *Clock) Now() time.Time                             { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *Clock) Advance(d time.Duration)                    { c.offset.Add(int64(d)) }
func discardLogger() *slog.Logger                           { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func (c *Clock) Sleep(context.Context, time.Duration) error { return nil }

// The heartbeat measurements the settings are priced and checked with.
const (
	HeartbeatSkipLabel  = "heartbeat: more than RenewWhenLeft of the lease left (writes nothing)"
	HeartbeatRenewLabel = "heartbeat: RenewWhenLeft of the lease left (renews)"
	// HeartbeatPolicyLabel is a heartbeat that finds the room's policy not
	// cached on its instance (once per ROOMLEASE_POLICY_CACHE per room).
	HeartbeatPolicyLabel = "heartbeat: first of a room on an instance within ROOMLEASE_POLICY_CACHE (also reads the policy; writes nothing)"
)

// OutsiderReadLabel is the room read of someone not in the room: refused
// after the caller's own records, before the roster (at most two reads).
const OutsiderReadLabel = "room read by someone not in it (404, the roster not read)"

// MeasureOps runs each store operation once on a fresh room of client's
// project and returns its exact reads and writes.
func MeasureOps(ctx context.Context, client *firestore.Client, room string) ([]OpCount, error) {
	clock := &Clock{}
	settings := presence.DefaultSettings()
	store := firestoredb.New(client, settings, clock.Now)
	sw, err := sweep.New(store, sweep.Config{}, clock.Now, clock.Sleep, discardLogger())
	if err != nil {
		return nil, err
	}
	roomRef := client.Collection(firestoredb.RoomsCollection).Doc(room)
	updated := func(ref *firestore.DocumentRef) time.Time {
		snap, err := ref.Get(ctx)
		if err != nil || !snap.Exists() {
			return time.Time{}
		}
		return snap.UpdateTime
	}
	rosterTimes := func() map[string]time.Time {
		out := map[string]time.Time{}
		snaps, _ := roomRef.Collection(firestoredb.ParticipantsCollection).Documents(ctx).GetAll()
		for _, s := range snaps {
			out[s.Ref.ID] = s.UpdateTime
		}
		return out
	}
	var out []OpCount
	var firstErr error
	measure := func(name string, f func() error) {
		room0, roster0 := updated(roomRef), rosterTimes()
		before := store.Ops()
		if err := f(); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", name, err)
		}
		d := store.Ops().Sub(before)
		c := OpCount{Op: name, Reads: d.Reads, Writes: d.Writes, RoomWritten: !updated(roomRef).Equal(room0)}
		roster1 := rosterTimes()
		for k, v := range roster1 {
			if !roster0[k].Equal(v) {
				c.RosterWritten = true
			}
		}
		if len(roster1) != len(roster0) {
			c.RosterWritten = true
		}
		out = append(out, c)
	}
	join := func(uid, sid string) (presence.SessionRef, error) {
		res, err := store.Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: sid}})
		return presence.SessionRef{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: sid}, Generation: res.Session.Generation}, err
	}
	var a1, b1, b2, c1 presence.SessionRef
	measure("join: first user (creates the room)", func() (err error) { a1, err = join("alice", "tab-1"); return })
	measure("join: another user", func() (err error) { b1, err = join("bob", "tab-1"); return })
	measure("join: second tab of a listed user", func() (err error) { b2, err = join("bob", "tab-2"); return })
	measure("join: reconnect of a known session (new generation)", func() (err error) { a1, err = join("alice", "tab-1"); return })
	measure("join: third user", func() (err error) { c1, err = join("carol", "tab-1"); return })
	heartbeat := func() error { _, err := store.Heartbeat(ctx, a1); return err }
	// The first heartbeat of a room on an instance also reads the room's
	// policy, which the instance then keeps for ROOMLEASE_POLICY_CACHE; the
	// labelled measurements below are the heartbeats within that period.
	measure(HeartbeatPolicyLabel, heartbeat)
	measure(HeartbeatSkipLabel, heartbeat)
	clock.Advance(settings.Lease - settings.RenewWithin())
	measure(HeartbeatRenewLabel, heartbeat)
	measure("heartbeat: right after a renewal (writes nothing)", heartbeat)
	measure("room read (3 participants, 4 live sessions)", func() error {
		_, err := store.Roster(ctx, presence.RosterRequest{RoomID: room, CallerID: "alice"})
		return err
	})
	measure(OutsiderReadLabel, func() error {
		_, err := store.Roster(ctx, presence.RosterRequest{RoomID: room, CallerID: "mallory"})
		if presence.ErrorCode(err) == presence.ENotFound {
			return nil // the answer every outsider gets
		}
		return fmt.Errorf("an outsider's room read answered %v, want %s", err, presence.ENotFound)
	})
	measure("leave: one tab of a two-tab user", func() error { _, err := store.Leave(ctx, b2); return err })
	stale := a1
	stale.Generation--
	measure("leave: stale generation (no effect)", func() error { _, err := store.Leave(ctx, stale); return err })
	measure("heartbeat: stale generation (409)", func() error { _, _ = store.Heartbeat(ctx, stale); return nil })
	measure("leave: a user's last tab", func() error { _, err := store.Leave(ctx, b1); return err })
	measure("leave: last participant but one crashed (carol)", func() error { _, err := store.Leave(ctx, a1); return err })
	_ = c1
	clock.Advance(settings.Lease + time.Second)
	measure("sweep pass: expire one crashed session (room becomes suspected_empty)", func() error { return sw.Pass(ctx).Err })
	clock.Advance(settings.EmptyRoomGrace + time.Second)
	measure("sweep pass: tear down the empty room and purge it", func() error { return sw.Pass(ctx).Err })
	measure("sweep pass: idle", func() error { return sw.Pass(ctx).Err })
	return out, firstErr
}
