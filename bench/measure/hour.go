package measure

import (
	"context"
	"fmt"
	"time"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// ParticipantHour counts exactly what one participant-hour costs at a
// heartbeat/lease setting (and the default RenewWhenLeft, as roomlease-dev
// runs it): a join, a heartbeat every interval for an hour, and a leave (in
// a room someone else holds, as most joins and leaves are), on
// a store with a stopped clock that the loop moves, so that which
// heartbeats renew depends on the schedule alone and not on how busy the
// machine is. A multiplication of one heartbeat's cost would no longer do:
// whether a heartbeat writes depends on the lease it finds.
func ParticipantHour(ctx context.Context, hb, lease time.Duration) (firestoredb.OpCounts, presence.Settings, error) {
	settings := presence.DefaultSettings()
	settings.Heartbeat, settings.Lease = hb, lease
	if err := settings.Validate(); err != nil {
		return firestoredb.OpCounts{}, settings, err
	}
	client, err := harness.ProjectClient(ctx, "hour")
	if err != nil {
		return firestoredb.OpCounts{}, settings, err
	}
	defer client.Close()
	clock := newManualClock(benchStart)
	store := firestoredb.New(client, settings, clock.Now)
	// Someone is in the room already, so that the hour's join and leave
	// are the ordinary ones ("join: another user", "leave: a user's last
	// tab"), not the room's creation and emptying.
	host := presence.SessionKey{RoomID: "hour", ParticipantID: "host", SessionID: "tab"}
	if _, err := store.Join(ctx, presence.JoinRequest{SessionKey: host}); err != nil {
		return firestoredb.OpCounts{}, settings, err
	}
	before := store.Ops()
	key := presence.SessionKey{RoomID: "hour", ParticipantID: "alice", SessionID: "tab"}
	res, err := store.Join(ctx, presence.JoinRequest{SessionKey: key})
	if err != nil {
		return firestoredb.OpCounts{}, settings, err
	}
	ref := presence.SessionRef{SessionKey: key, Generation: res.Session.Generation}
	for range int(time.Hour / hb) {
		clock.Advance(hb)
		if _, err := store.Heartbeat(ctx, ref); err != nil {
			return firestoredb.OpCounts{}, settings, fmt.Errorf("heartbeat at +%v: %w", clock.Now().Sub(benchStart), err)
		}
	}
	if _, err := store.Leave(ctx, ref); err != nil {
		return firestoredb.OpCounts{}, settings, err
	}
	return store.Ops().Sub(before), settings, nil
}
