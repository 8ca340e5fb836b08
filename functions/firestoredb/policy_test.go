package firestoredb_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// setPolicy writes roomPolicies/{room} as an operator would, updatedAt
// included (the sweeper's tests rely on it; here it is just realistic).
func (f *fixture) setPolicy(tb testing.TB, room string, allowed ...string) {
	tb.Helper()
	_, err := f.client.Collection(firestoredb.PoliciesCollection).Doc(room).Set(f.ctx, map[string]any{
		"allowedUsers": allowed, "updatedAt": f.clock.Now()})
	if err != nil {
		tb.Fatal(err)
	}
}

// A user removed from a room's policy is refused on heartbeat, typing and
// receipts once the instance's policy cache has expired, and the refusals
// write nothing. Before that, the instance acts on the policy it read: the
// documented lag.
func TestPolicy_HeartbeatTypingReceiptsRefusedOnceTheCacheExpires(t *testing.T) {
	f := MustOpenStore(t)
	cache := presence.DefaultSettings().PolicyCache
	a := f.mustJoin(t, "club", "alice", "tab")
	b := f.mustJoin(t, "club", "bob", "tab")
	alice, bob := ref("club", "alice", "tab", a.Session.Generation), ref("club", "bob", "tab", b.Session.Generation)
	if _, err := f.store.Heartbeat(f.ctx, alice); err != nil { // the store now holds "no policy"
		t.Fatal(err)
	}
	f.setPolicy(t, "club", "bob")

	// The cache period is longer than a lease: both keep renewing through it.
	for left := cache - time.Millisecond; left > 0; left -= min(left, 5*time.Second) {
		f.clock.Advance(min(left, 5*time.Second))
		for _, r := range []presence.SessionRef{alice, bob} {
			if _, err := f.store.Heartbeat(f.ctx, r); err != nil {
				t.Fatalf("within the policy cache period: %v; want the cached policy to admit %s", err, r.ParticipantID)
			}
		}
	}
	// Another instance has no cached policy: it reads the new one at once.
	_, err := f.other.Heartbeat(f.ctx, alice)
	wantCode(t, err, presence.EForbidden)

	f.clock.Advance(time.Millisecond)
	before := emulatortest.Snapshot(t, f.client)
	_, err = f.store.Heartbeat(f.ctx, alice)
	wantCode(t, err, presence.EForbidden)
	wantCode(t, errOf(f.store.SetTyping(f.ctx, alice, true)), presence.EForbidden)
	_, err = f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "club", ParticipantID: "alice", LastReadSeq: 3})
	wantCode(t, err, presence.EForbidden)
	if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
		t.Fatalf("refused requests wrote %v", changed)
	}

	// Bob, still listed, carries on.
	if _, err := f.store.Heartbeat(f.ctx, bob); err != nil {
		t.Fatal(err)
	}
	if err := errOf(f.store.SetTyping(f.ctx, bob, true)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "club", ParticipantID: "bob", LastReadSeq: 3}); err != nil {
		t.Fatal(err)
	}
}

// A room's heartbeats read its policy once per cache period and instance,
// not once each: a heartbeat stays at about one read.
func TestPolicy_HeartbeatsReadThePolicyOncePerPeriod(t *testing.T) {
	f := MustOpenStore(t)
	s := presence.DefaultSettings()
	j := f.mustJoin(t, "hbp", "alice", "tab")
	r := ref("hbp", "alice", "tab", j.Session.Generation)
	// Heartbeats every interval for two policy periods: the first reads
	// the policy, and so does the first after the cached one expired.
	const periods = 2
	beats := int(periods * s.PolicyCache / s.Heartbeat)
	ops := f.store.Ops()
	for range beats {
		f.clock.Advance(s.Heartbeat)
		if _, err := f.store.Heartbeat(f.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	cost := f.store.Ops().Sub(ops)
	if want := int64(beats) + periods; cost.Reads != want {
		t.Fatalf("%d heartbeats over %d policy periods read %d documents, want %d (one session read each, one policy read per period)",
			beats, periods, cost.Reads, want)
	}
}
