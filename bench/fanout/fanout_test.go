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
// its fan-out. In a room that carries its changes (every room this version
// creates) a visible change writes one listened document: the roster
// entry (a join, a state update, an away toggle, a return) or the
// departure record (a leave, whose entry is deleted). Typing writes its
// typing document, and a heartbeat only its session, which nobody listens
// to. Each visible change thus costs a listener one read (issue 30).
func TestMeasure_EachListenerPaysForTheDocumentsAChangeWrites(t *testing.T) {
	client, _ := emulatortest.Firestore(t)
	const n = 3
	res, err := fanout.Measure(context.Background(), client, fanout.Options{Sizes: []int{n}, Sample: n})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ docs, removed int64 }{
		"state update":             {1, 0},
		"away toggle (tab hidden)": {1, 0},
		"back from away":           {1, 0},
		"heartbeat that renews":    {0, 0},
		"typing signal":            {1, 0},
		"join of a new user":       {1, 0},
		"leave":                    {1, 1}, // the record added, the entry deleted
		"return after a leave":     {1, 1}, // the entry added, the record deleted
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
		if r.DocsPerListener != w.docs || r.RemovedPerListener != w.removed || r.ListenerReads != w.docs*n ||
			r.Sampled != n {
			t.Errorf("%s: %d docs and %d removed per listener, %d reads for %d listeners (%d sampled); want %d and %d",
				r.Change, r.DocsPerListener, r.RemovedPerListener, r.ListenerReads, r.Listeners, r.Sampled, w.docs, w.removed)
		}
		if fanout.VisibleChanges[r.Change] && r.DocsPerListener > 1 {
			t.Errorf("%s: a visible change costs each listener %d reads, more than one", r.Change, r.DocsPerListener)
		}
		if r.WriterWrites == 0 {
			t.Errorf("%s: the request wrote nothing", r.Change)
		}
	}
}

// An hour on the schedule the server sets: every heartbeat comes at its
// renewAt and renews (one request, one write), fenced by its lease token
// instead of a read; the reads left are the room's policy, re-read when an
// instance's cache of it has expired. Away, the longer lease is renewed
// every away heartbeat.
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
	if fg.Writes != fg.Requests || fg.Requests > 400 || fg.Requests < int64(time.Hour/s.Lease) {
		t.Errorf("foreground: %d heartbeats and %d writes an hour: want one write each, at most 400 and at least one a lease", fg.Requests, fg.Writes)
	}
	if fg.Reads*4 > fg.Requests {
		t.Errorf("foreground: %d reads for %d heartbeats: a heartbeat with its token reads nothing", fg.Reads, fg.Requests)
	}
	if want := int64(time.Hour / s.AwayHeartbeat); away.Requests != want || away.Writes != want {
		t.Errorf("away: %d heartbeats and %d writes, want %d of each", away.Requests, away.Writes, want)
	}
	if away.Writes*4 > fg.Writes {
		t.Errorf("away costs %d writes an hour, foreground %d: a hidden tab must cost far less", away.Writes, fg.Writes)
	}
}

// In large-room mode a listener follows the summary: it receives at most
// one document per second of churn (the summarizer's cadence), and every
// summary states the exact count at its revision.
func TestMeasureLarge_OneSummaryASecondExactAtItsRevision(t *testing.T) {
	client, _ := emulatortest.Firestore(t)
	res, err := fanout.MeasureLarge(context.Background(), client, fanout.LargeOptions{
		Participants: 6, ChurnPerSecond: 2, Duration: 3 * time.Second, Sample: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The first summary came before the listeners; each later one at
	// least a second after the one before, each exact at its revision.
	if err := res.Check(); err != nil {
		t.Fatalf("%v: %+v", err, res)
	}
	// A full-mode listener pays one read per join (the entry) or leave (the
	// departure record; the entry's deletion costs nothing).
	if res.FullModeDocsPerChange != 1 {
		t.Fatalf("the full-mode listener received %.2f documents per change, want 1: %+v", res.FullModeDocsPerChange, res)
	}
}
