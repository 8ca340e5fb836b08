package fanout_test

import (
	"context"
	"testing"
	"time"

	"github.com/roomlease/roomlease/bench/fanout"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// What each change writes among the documents a client listens to decides
// its fan-out: a state update and an away toggle write the user's roster
// entry and revision shard (two documents), typing its typing document
// (one), and a heartbeat only its session, which nobody listens to.
func TestMeasure_EachListenerPaysForTheDocumentsAChangeWrites(t *testing.T) {
	client, _ := emulatortest.Firestore(t)
	const n = 3
	res, err := fanout.Measure(context.Background(), client, fanout.Options{Sizes: []int{n}, Sample: n})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"state update":             2,
		"away toggle (tab hidden)": 2,
		"back from away":           2,
		"heartbeat that renews":    0,
		"typing signal":            1,
	}
	if len(res) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(res), len(want), res)
	}
	for _, r := range res {
		w, ok := want[r.Change]
		if !ok {
			t.Errorf("unexpected change %q", r.Change)
			continue
		}
		if r.DocsPerListener != w || r.ListenerReads != w*n || r.Sampled != n || r.Listeners != n {
			t.Errorf("%s: %d docs per listener, %d reads for %d listeners (%d sampled); want %d per listener", r.Change, r.DocsPerListener, r.ListenerReads, r.Listeners, r.Sampled, w)
		}
		if r.WriterWrites == 0 {
			t.Errorf("%s: the request wrote nothing", r.Change)
		}
	}
}

// An hour in the foreground heartbeats every interval and renews the lease
// whenever at most RenewWhenLeft of it is left; away, every heartbeat
// renews the longer lease.
func TestMeasureHours_ForegroundAndAway(t *testing.T) {
	client, _ := emulatortest.Firestore(t)
	hours, err := fanout.MeasureHours(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	s := presence.DefaultSettings()
	if len(hours) != 2 {
		t.Fatalf("got %d modes, want 2", len(hours))
	}
	fg, away := hours[0], hours[1]
	if want := int64(time.Hour / s.Heartbeat); fg.Requests != want {
		t.Errorf("foreground: %d heartbeats, want %d", fg.Requests, want)
	}
	if want := int64(time.Hour / s.AwayHeartbeat); away.Requests != want || away.Writes != want {
		t.Errorf("away: %d heartbeats and %d writes, want %d of each", away.Requests, away.Writes, want)
	}
	if fg.Writes >= fg.Requests || fg.Writes == 0 {
		t.Errorf("foreground: %d writes for %d heartbeats: only the ones with at most %v of the lease left renew", fg.Writes, fg.Requests, s.RenewWhenLeft)
	}
	if away.Writes*5 > fg.Writes {
		t.Errorf("away costs %d writes an hour, foreground %d: a hidden tab must cost far less", away.Writes, fg.Writes)
	}
}
