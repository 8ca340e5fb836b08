package measure

import (
	"context"
	"fmt"
	"time"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/presence"
)

// ParticipantHour counts exactly what one participant-hour costs, in
// Firestore operations and requests, at a
// heartbeat/lease setting (and the default RenewWhenLeft, as roomlease-dev
// runs it, with a lease token key): a join, a heartbeat at every renewAt
// the server answers, with the token it gave, for an hour, as the clients
// schedule them, and a leave (in
// a room someone else holds, as most joins and leaves are), on
// a store with a stopped clock that the loop moves, so that which
// heartbeats renew depends on the schedule alone and not on how busy the
// machine is. A multiplication of one heartbeat's cost would no longer do:
// whether a heartbeat writes depends on the lease it finds.
func ParticipantHour(ctx context.Context, hb, lease time.Duration) (Hour, presence.Settings, error) {
	settings := presence.DefaultSettings()
	settings.Heartbeat, settings.Lease = hb, lease
	if err := settings.Validate(); err != nil {
		return Hour{}, settings, err
	}
	client, err := harness.ProjectClient(ctx, "hour")
	if err != nil {
		return Hour{}, settings, err
	}
	defer client.Close()
	clock := NewStoppedClock(benchStart)
	store := firestoredb.New(client, settings, clock.Now)
	if err := UseLeaseTokens(store); err != nil {
		return Hour{}, settings, err
	}
	// Someone is in the room already, so that the hour's join and leave
	// are the ordinary ones ("join: another user", "leave: a user's last
	// tab"), not the room's creation and emptying.
	host := presence.SessionKey{RoomID: "hour", ParticipantID: "host", SessionID: "tab"}
	if _, err := store.Join(ctx, presence.JoinRequest{SessionKey: host}); err != nil {
		return Hour{}, settings, err
	}
	before := store.Ops()
	key := presence.SessionKey{RoomID: "hour", ParticipantID: "alice", SessionID: "tab"}
	res, err := store.Join(ctx, presence.JoinRequest{SessionKey: key})
	if err != nil {
		return Hour{}, settings, err
	}
	ref := presence.SessionRef{SessionKey: key, Generation: res.Session.Generation, Token: res.Grant.Token}
	beats, err := RenewUntil(ctx, store, clock, ref, res.Grant, clock.Now().Add(time.Hour), false)
	if err != nil {
		return Hour{}, settings, fmt.Errorf("at +%v: %w", clock.Now().Sub(benchStart), err)
	}
	requests := beats + 2 // and the join and the leave
	if _, err := store.Leave(ctx, ref); err != nil {
		return Hour{}, settings, err
	}
	return Hour{OpCounts: store.Ops().Sub(before), Requests: requests}, settings, nil
}

// Hour is a participant-hour counted: its Firestore operations and the
// API requests it took (a join, the heartbeats, a leave).
type Hour struct {
	firestoredb.OpCounts
	Requests int64
}

// benchTokenKey signs the benchmark's lease tokens, so that its heartbeats
// take the path of a deployment with a key (roomlease-dev sets one too).
var benchTokenKey = []byte("roomlease-bench-lease-token-key-0123456789")

// UseLeaseTokens makes store issue and honour lease tokens, as a
// deployment with ROOMLEASE_LEASE_TOKEN_KEY does.
func UseLeaseTokens(store *firestoredb.Store) error {
	signer, err := leasetoken.NewSigner(benchTokenKey)
	if err != nil {
		return err
	}
	store.UseLeaseTokens(signer)
	return nil
}
