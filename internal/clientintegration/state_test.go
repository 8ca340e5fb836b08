package clientintegration_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
)

func participant(t *testing.T, s *client.Session, uid string) client.Participant {
	t.Helper()
	snap, err := s.Room(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range snap.Participants {
		if p.ParticipantID == uid {
			return p
		}
	}
	t.Fatalf("%s not on the roster: %+v", uid, snap.Participants)
	return client.Participant{}
}

func stateOf(t *testing.T, p client.Participant) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.State, &m); err != nil {
		t.Fatalf("state %s: %v", p.State, err)
	}
	return m
}

// State set by one session shows on another user's roster read; a state
// over the server's limit is refused and changes nothing; a session whose
// generation went stale rejoins and its state lands all the same.
func TestSession_SetState(t *testing.T) {
	base := startDevServer(t)
	ctx := context.Background()
	room := roomName(t)
	ada, adaUser := newClient(t, base)
	grace, _ := newClient(t, base)
	a, err := ada.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Ada"), State: map[string]string{"colour": "red"}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	g, err := grace.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Grace")})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()

	t.Run("JoinAndUpdateSeenByOthers", func(t *testing.T) {
		if got := stateOf(t, participant(t, g, adaUser.UID))["colour"]; got != "red" {
			t.Fatalf("joined with red, Grace sees %v", got)
		}
		res, err := a.SetState(ctx, map[string]string{"colour": "blue"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Revision < 1 || !strings.Contains(string(res.State), "blue") {
			t.Fatalf("SetState answered %+v", res)
		}
		if got := stateOf(t, participant(t, g, adaUser.UID))["colour"]; got != "blue" {
			t.Fatalf("Grace sees colour %v, want blue", got)
		}
	})

	t.Run("ErrTooLarge", func(t *testing.T) {
		before, _ := g.Room(ctx)
		_, err := a.SetState(ctx, map[string]string{"colour": strings.Repeat("x", 2048)})
		if !errors.Is(err, client.ErrPayloadTooLarge) && !errors.Is(err, client.ErrInvalidArgument) {
			t.Fatalf("2 KiB of state: err = %v, want payload_too_large or invalid_argument", err)
		}
		after, _ := g.Room(ctx)
		if after.Revision != before.Revision {
			t.Fatalf("refused state moved the revision %d → %d", before.Revision, after.Revision)
		}
		if got := stateOf(t, participant(t, g, adaUser.UID))["colour"]; got != "blue" {
			t.Fatalf("refused state changed it to %v", got)
		}
	})

	t.Run("StaleGenerationRejoins", func(t *testing.T) {
		old := a.Generation()
		// Another join of the same session id supersedes the session's generation.
		if _, err := ada.Join(ctx, room, a.SessionID(), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := ada.SetState(ctx, room, a.SessionID(), old, map[string]string{"colour": "grey"}); !errors.Is(err, client.ErrStaleGeneration) {
			t.Fatalf("old generation's state: err = %v, want stale_generation", err)
		}
		if _, err := a.SetState(ctx, map[string]string{"colour": "green"}); err != nil {
			t.Fatalf("SetState after a superseding join: %v", err)
		}
		if a.Generation() <= old {
			t.Fatalf("generation %d, was %d: no rejoin", a.Generation(), old)
		}
		if got := stateOf(t, participant(t, g, adaUser.UID))["colour"]; got != "green" {
			t.Fatalf("Grace sees colour %v, want green", got)
		}
	})
}

// SetAway shows the user away to others, once, and the session adopts the
// away lease and interval from the reply; back again, it shows present.
func TestSession_SetAway(t *testing.T) {
	base := startDevServer(t)
	ctx := context.Background()
	room := roomName(t)
	ada, adaUser := newClient(t, base)
	grace, _ := newClient(t, base)
	a, err := ada.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Ada")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	g, err := grace.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Grace")})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	present := a.Joined()

	before, _ := g.Room(ctx)
	if err := a.SetAway(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !participant(t, g, adaUser.UID).Away || !a.Away() {
		t.Fatal("Ada set away, Grace does not see it")
	}
	if got := a.Joined(); got.Heartbeat() <= present.Heartbeat() || got.Lease() <= present.Lease() {
		t.Fatalf("away intervals not adopted: heartbeat %v lease %v (present %v, %v)",
			got.Heartbeat(), got.Lease(), present.Heartbeat(), present.Lease())
	}
	// The away reply's fresh lease is the away one: the server clock
	// estimated from it stays the local server's (same machine).
	if off := ada.ServerNow().Sub(time.Now()); off > 5*time.Second || off < -5*time.Second {
		t.Fatalf("server clock estimated %v off after going away", off)
	}
	mid, _ := g.Room(ctx)
	if mid.Revision != before.Revision+1 {
		t.Fatalf("away moved the revision %d → %d, want +1", before.Revision, mid.Revision)
	}
	if err := a.SetAway(ctx, true); err != nil {
		t.Fatal(err)
	}
	if again, _ := g.Room(ctx); again.Revision != mid.Revision {
		t.Fatalf("away again moved the revision %d → %d", mid.Revision, again.Revision)
	}
	if err := a.SetAway(ctx, false); err != nil {
		t.Fatal(err)
	}
	if participant(t, g, adaUser.UID).Away {
		t.Fatal("Ada back, Grace still sees her away")
	}
	if got := a.Joined(); got.Heartbeat() != present.Heartbeat() {
		t.Fatalf("back from away: heartbeat %v, want %v", got.Heartbeat(), present.Heartbeat())
	}
}
