package firestoredb_test

import (
	"testing"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Data written by one server version and read by another: the rule in
// docs/upgrades.md ("Data changes") says a release may add a field but
// must read its absence as the old behaviour, and may never rely on a field
// surviving an older server. These tests hold the two directions of an
// upgrade and a rollback to that rule against the emulator: documents are
// first written by this code, then edited by hand into the shape the other
// version writes, and this code must go on serving them.

// An older server's records: fields this code added after the first release
// (revisionExpireAt on rooms, away on sessions and roster entries) are
// absent. This server must read them as their zero values and serve every
// operation on them.
func TestCompat_RecordsOfAnOlderServer(t *testing.T) {
	f := MustOpenStore(t)
	gen, room, entry, session := twoInARoom(t, f, "compat-old")
	for _, u := range []struct {
		doc   *firestore.DocumentRef
		field string
	}{{room, "revisionExpireAt"}, {entry, "away"}, {session, "away"}} {
		if _, err := u.doc.Update(f.ctx, []firestore.Update{{Path: u.field, Value: firestore.Delete}}); err != nil {
			t.Fatalf("removing %s from %s: %v", u.field, u.doc.Path, err)
		}
		mustLack(t, f, u.doc, u.field)
	}

	f.clock.Advance(presence.DefaultSettings().Lease / 2) // into the renewal window: the heartbeat writes
	if _, err := f.store.Heartbeat(f.ctx, ref("compat-old", "alice", "tab", gen)); err != nil {
		t.Fatalf("heartbeat on an older server's session: %v", err)
	}
	roster, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "compat-old", CallerID: "bob"})
	if err != nil {
		t.Fatalf("roster of an older server's room: %v", err)
	}
	if len(roster.Participants) != 2 {
		t.Fatalf("roster has %d participants, want alice and bob: %+v", len(roster.Participants), roster.Participants)
	}
	for _, p := range roster.Participants {
		if p.Away {
			t.Errorf("%s reads as away; a missing away field must read as present", p.ID)
		}
	}
	if g, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: ref("compat-old", "alice", "tab", gen), Away: true}); err != nil || !g.Away {
		t.Fatalf("going away on an older server's session: away %v, %v", g.Away, err)
	}
	if res, err := f.store.Leave(f.ctx, ref("compat-old", "alice", "tab", gen)); err != nil || !res.Removed {
		t.Fatalf("leaving an older server's session: %+v, %v", res, err)
	}
}

// A newer server's records, read after a rollback: they carry fields this
// code does not know. This server must decode them (unknown fields are
// ignored) and serve every operation on them. What it must not be trusted
// to do is keep those fields: the test records which writes keep them, so
// that the rule in docs/upgrades.md stays true.
func TestCompat_RecordsOfANewerServer(t *testing.T) {
	f := MustOpenStore(t)
	gen, room, entry, session := twoInARoom(t, f, "compat-new")
	const newField = "fieldFromTheFuture"
	for _, doc := range []*firestore.DocumentRef{room, entry, session} {
		if _, err := doc.Update(f.ctx, []firestore.Update{{Path: newField, Value: map[string]any{"v": 2}}}); err != nil {
			t.Fatalf("adding %s to %s: %v", newField, doc.Path, err)
		}
	}

	f.clock.Advance(presence.DefaultSettings().Lease / 2)
	if _, err := f.store.Heartbeat(f.ctx, ref("compat-new", "alice", "tab", gen)); err != nil {
		t.Fatalf("heartbeat on a newer server's session: %v", err)
	}
	// A renewal updates the lease fields in place: the newer field stays.
	mustHave(t, f, session, newField)

	if _, err := f.store.SetState(f.ctx, presence.StateRequest{SessionRef: ref("compat-new", "alice", "tab", gen), State: presence.State{"mood": "ok"}}); err != nil {
		t.Fatalf("state on a newer server's roster entry: %v", err)
	}
	roster, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "compat-new", CallerID: "bob"})
	if err != nil {
		t.Fatalf("roster of a newer server's room: %v", err)
	}
	if len(roster.Participants) != 2 {
		t.Fatalf("roster has %d participants, want 2", len(roster.Participants))
	}
	if _, err := f.store.Leave(f.ctx, ref("compat-new", "alice", "tab", gen)); err != nil {
		t.Fatalf("leaving a newer server's session: %v", err)
	}
	// The room itself was only updated field by field (a lifecycle
	// transition), so its newer field survives too.
	mustHave(t, f, room, newField)
}

// twoInARoom joins alice (session tab) and bob to roomID, as this code
// writes them, and returns alice's generation and her documents.
func twoInARoom(t *testing.T, f *fixture, roomID string) (gen int64, room, entry, session *firestore.DocumentRef) {
	t.Helper()
	j := f.mustJoin(t, roomID, "alice", "tab")
	f.mustJoin(t, roomID, "bob", "phone")
	room = f.client.Collection("rooms").Doc(roomID)
	entry = room.Collection("participants").Doc("alice")
	return j.Session.Generation, room, entry, entry.Collection("sessions").Doc("tab")
}

func mustLack(t *testing.T, f *fixture, doc *firestore.DocumentRef, field string) {
	t.Helper()
	snap, err := doc.Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Data()[field]; ok {
		t.Fatalf("%s still has %s", doc.Path, field)
	}
}

func mustHave(t *testing.T, f *fixture, doc *firestore.DocumentRef, field string) {
	t.Helper()
	snap, err := doc.Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Data()[field]; !ok {
		t.Errorf("%s lost %s, which a newer server wrote: %v", doc.Path, field, snap.Data())
	}
}
