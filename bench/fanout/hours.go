package fanout

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// ParticipantHour is what one participant's heartbeats cost in an hour, on
// the schedule a client follows: at each reply's renewAt, with the lease
// token it was given, in the foreground and while its tab is hidden or its
// app in the background (away). A heartbeat wakes no listener, so this is
// all of it.
type ParticipantHour struct {
	Mode             string  `json:"mode"`
	LeaseSeconds     float64 `json:"leaseSeconds"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
	Requests         int64   `json:"requests"`
	Reads            int64   `json:"reads"`
	Writes           int64   `json:"writes"`
}

// MeasureHours runs an hour of heartbeats in each mode on a clock that
// jumps from one renewAt to the next, alone in a room of its own (so the
// room's policy is read again whenever the instance's cache of it has
// expired, as for a participant alone on its instance).
func MeasureHours(ctx context.Context, client *firestore.Client) ([]ParticipantHour, error) {
	settings := presence.DefaultSettings()
	modes := []struct {
		name  string
		away  bool
		lease time.Duration
	}{
		{"foreground", false, settings.Lease},
		{"away (hidden tab, backgrounded app)", true, settings.AwayLease},
	}
	var out []ParticipantHour
	for _, m := range modes {
		c := measure.NewStoppedClock(time.Now().UTC())
		store := firestoredb.New(client, settings, c.Now)
		if err := measure.UseLeaseTokens(store); err != nil {
			return nil, err
		}
		key := presence.SessionKey{RoomID: fmt.Sprintf("hours-%d", time.Now().UnixNano()), ParticipantID: "user-0", SessionID: "tab"}
		res, err := store.Join(ctx, presence.JoinRequest{SessionKey: key, Away: m.away})
		if err != nil {
			return nil, fmt.Errorf("%s: join: %w", m.name, err)
		}
		ref := presence.SessionRef{SessionKey: key, Generation: res.Session.Generation, Token: res.Grant.Token}
		start := store.Ops()
		h := ParticipantHour{Mode: m.name, LeaseSeconds: m.lease.Seconds()}
		if h.Requests, err = measure.RenewUntil(ctx, store, c, ref, res.Grant, c.Now().Add(time.Hour), m.away); err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		h.HeartbeatSeconds = time.Hour.Seconds() / float64(h.Requests)
		ops := store.Ops().Sub(start)
		h.Reads, h.Writes = ops.Reads, ops.Writes
		out = append(out, h)
	}
	return out, nil
}
