package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A room whose policy says publicOccupancy tells anyone signed in how many
// are in it, at a revision; it names nobody. Withdrawing the opt-in makes
// it answer as an absent room at once (the policy is read afresh).
func TestAPI_OccupancyOfAnOptInRoom(t *testing.T) {
	f := MustOpenAPI(t)
	ctx := context.Background()
	policy := f.client.Collection(firestoredb.PoliciesCollection).Doc("lobby")
	if _, err := policy.Set(ctx, map[string]any{"publicOccupancy": true}); err != nil {
		t.Fatal(err)
	}
	ada, bob, eve := emulatortest.SignUp(t), emulatortest.SignUp(t), emulatortest.SignUp(t)

	// Before anyone joined: the room does not exist, and the opt-in says so.
	if r := f.do(t, "GET", "/v1/rooms/lobby/occupancy", eve.IDToken, ""); r.status != 200 || r.body["count"] != 0.0 || r.body["revision"] != 0.0 {
		t.Fatalf("occupancy of the absent opt-in room: %d %s", r.status, r.raw)
	}
	for _, u := range []emulatortest.User{ada, bob} {
		if r := f.do(t, "POST", "/v1/rooms/lobby/join", u.IDToken, `{"sessionId":"tab"}`); r.status != 200 {
			t.Fatalf("join: %d %s", r.status, r.raw)
		}
	}
	before := time.Now().Add(-time.Minute)
	r := f.do(t, "GET", "/v1/rooms/lobby/occupancy", eve.IDToken, "")
	if r.status != 200 || r.body["roomId"] != "lobby" || r.body["count"] != 2.0 || r.body["revision"] != 2.0 {
		t.Fatalf("occupancy as an outsider: %d %s, want 2 at revision 2", r.status, r.raw)
	}
	if len(r.body) != 4 {
		t.Fatalf("occupancy carries more than roomId, count, revision and asOf: %s", r.raw)
	}
	if asOf, err := time.Parse(time.RFC3339, r.body["asOf"].(string)); err != nil || asOf.Before(before) {
		t.Fatalf("asOf %v (%v)", r.body["asOf"], err)
	}

	if _, err := policy.Set(ctx, map[string]any{"publicOccupancy": false}); err != nil {
		t.Fatal(err)
	}
	withdrawn := f.do(t, "GET", "/v1/rooms/lobby/occupancy", eve.IDToken, "")
	absent := f.do(t, "GET", "/v1/rooms/nowhere/occupancy", eve.IDToken, "")
	if withdrawn.status != 404 || errCode(withdrawn) != "room_not_found" || withdrawn.raw != absent.raw {
		t.Fatalf("occupancy once the opt-in is withdrawn: %d %s, want the absent room's %d %s", withdrawn.status, withdrawn.raw, absent.status, absent.raw)
	}
	if r := f.do(t, "GET", "/v1/rooms/lobby/occupancy", "", ""); r.status != 401 {
		t.Fatalf("occupancy without a token: %d %s, want 401", r.status, r.raw)
	}
}
