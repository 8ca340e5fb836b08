package presence_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// world applies plans to in-memory state, as the store does in its
// transactions, so that sequences of decisions can be tested with a clock and
// no Firestore.
type world struct {
	t        *testing.T
	s        presence.Settings
	clock    *testclock.Clock
	room     *presence.Room
	revision int64
	entries  map[string]*presence.Participant
	sessions map[string]*presence.Session // key uid/session
}

func newWorld(t *testing.T) *world {
	return &world{t: t, s: presence.DefaultSettings(), clock: testclock.New(testclock.Start),
		entries: map[string]*presence.Participant{}, sessions: map[string]*presence.Session{}}
}

func (w *world) userSessions(uid string) []presence.Session {
	var out []presence.Session
	for k, sess := range w.sessions {
		if strings.HasPrefix(k, uid+"/") {
			out = append(out, *sess)
		}
	}
	return out
}

// join plans and applies a join, making the room's lifecycle step first
// when the plan asks for one, as the store does.
func (w *world) join(uid, sid string) (presence.JoinPlan, error) {
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: uid, SessionID: sid}}
	for {
		st := presence.JoinState{Room: w.room, Participant: w.entries[uid], Sessions: w.userSessions(uid), Entries: len(w.entries)}
		p, err := w.s.PlanJoin(w.clock.Now(), st, req)
		if err != nil {
			return p, err
		}
		if p.RoomStep != presence.NoRoomStep {
			room := p.Room
			w.room = &room
			continue
		}
		entry, sess := p.Participant, p.Session
		w.entries[uid], w.sessions[uid+"/"+sid] = &entry, &sess
		if p.WriteParticipant {
			w.revision++
		}
		return p, nil
	}
}

func (w *world) mustJoin(uid, sid string) presence.JoinPlan {
	w.t.Helper()
	p, err := w.join(uid, sid)
	if err != nil {
		w.t.Fatalf("join %s/%s: %v", uid, sid, err)
	}
	return p
}

// leave plans and applies a leave and, when it removed the entry, the
// emptiness check that follows it.
func (w *world) leave(uid, sid string, gen int64) (presence.DeparturePlan, presence.Emptiness) {
	st := presence.DepartureState{Participant: w.entries[uid], Session: w.sessions[uid+"/"+sid], Sessions: w.userSessions(uid)}
	p := w.s.PlanLeave(w.clock.Now(), st, presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: uid, SessionID: sid}, Generation: gen})
	if !p.Removed {
		return p, presence.StillOccupied
	}
	delete(w.sessions, uid+"/"+sid)
	switch {
	case p.DeleteParticipant:
		delete(w.entries, uid)
	case p.WriteParticipant:
		e := p.Participant
		w.entries[uid] = &e
	}
	if p.VisibleChange() {
		w.revision++
	}
	if !p.DeleteParticipant {
		return p, presence.StillOccupied
	}
	room, e := w.s.PlanEmptiness(w.clock.Now(), w.room, len(w.entries), p.DepartedAt)
	if e == presence.BecameEmpty || e == presence.LaterDeparture {
		w.room = &room
	}
	return p, e
}

func (w *world) heartbeat(uid, sid string, gen int64) error {
	s, write, err := w.s.Renew(w.clock.Now(), w.sessions[uid+"/"+sid], presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: uid, SessionID: sid}, Generation: gen})
	if err == nil && write {
		w.sessions[uid+"/"+sid] = &s
	}
	return err
}

func TestLease_LiveUntilItsDeadlineThenNeverRevived(t *testing.T) {
	w := newWorld(t)
	g := w.mustJoin("alice", "tab").Session.Generation

	// Heartbeats every 5 s keep the lease for as long as they come.
	for i := 0; i < 10; i++ {
		w.clock.Advance(w.s.Heartbeat)
		if err := w.heartbeat("alice", "tab", g); err != nil {
			t.Fatalf("heartbeat %d: %v", i, err)
		}
	}
	// Every second heartbeat renews (the others find more than half the
	// lease left); the tenth, at +50 s, found 5 s left and renewed.
	sess := w.sessions["alice/tab"]
	if got := sess.Remaining(w.clock.Now()); got != w.s.Lease {
		t.Fatalf("remaining %v right after a renewing heartbeat, want %v", got, w.s.Lease)
	}

	// A crashed client stops; the lease holds until one instant before its
	// deadline and not at the deadline itself.
	w.clock.Advance(w.s.Lease - time.Nanosecond)
	if !sess.Live(w.clock.Now()) {
		t.Fatal("lease ended before its deadline")
	}
	w.clock.Advance(time.Nanosecond)
	if sess.Live(w.clock.Now()) || sess.Remaining(w.clock.Now()) != 0 {
		t.Fatal("lease still live at its deadline")
	}
	if err := w.heartbeat("alice", "tab", g); presence.ErrorCode(err) != presence.EStaleGeneration {
		t.Fatalf("heartbeat on an ended lease: %v, want stale_generation", err)
	}

	// Joining again is the way back, with a larger generation.
	again := w.mustJoin("alice", "tab")
	if again.Session.Generation <= g || again.WriteParticipant || again.RoomStep != presence.NoRoomStep {
		t.Fatalf("rejoin: %+v, want a larger generation and no roster change", again)
	}
}

func TestGenerations_IncreaseWithinOneMicrosecondAndAcrossDeletion(t *testing.T) {
	w := newWorld(t)
	a := w.mustJoin("alice", "tab").Session.Generation
	b := w.mustJoin("alice", "tab").Session.Generation // same instant
	if b != a+1 {
		t.Fatalf("second join in the same instant got %d, want %d", b, a+1)
	}
	w.leave("alice", "tab", b)
	// With the document gone, only the clock orders generations: a rejoin
	// is at least a round trip later, and then larger than both.
	w.clock.Advance(time.Millisecond)
	c := w.mustJoin("alice", "tab").Session.Generation
	if c <= b {
		t.Fatalf("after deletion the generation went back to %d (earlier: %d, %d)", c, a, b)
	}
	w.clock.Advance(time.Microsecond)
	if d := w.mustJoin("alice", "tab").Session.Generation; d <= c || d > presence.MaxGeneration {
		t.Fatalf("generation %d after %d", d, c)
	}
}

func TestRoomLifecycle_ActiveSuspectedActive(t *testing.T) {
	w := newWorld(t)
	a := w.mustJoin("alice", "tab").Session.Generation
	if w.room.State != presence.StateActive || w.room.Generation != 1 {
		t.Fatalf("new room %+v", w.room)
	}
	w.clock.Advance(time.Second)
	if _, e := w.leave("alice", "tab", a); e != presence.BecameEmpty || w.room.State != presence.StateSuspectedEmpty {
		t.Fatalf("after the last leave: %v, %+v", e, w.room)
	}
	if want := w.clock.Now().Add(w.s.EmptyRoomGrace); !w.room.CleanupAfter.Equal(want) {
		t.Fatalf("cleanupAfter %v, want %v", w.room.CleanupAfter, want)
	}
	w.clock.Advance(w.s.EmptyRoomGrace / 2)
	w.mustJoin("bob", "phone")
	if w.room.State != presence.StateActive || w.room.Generation != 2 || !w.room.CleanupAfter.IsZero() {
		t.Fatalf("a join in the grace left the room %+v", w.room)
	}
	if w.revision != 3 {
		t.Fatalf("revision %d, want 3 (join, leave, join)", w.revision)
	}
}

func TestLeave_StaleOrMissingRemovesNothing(t *testing.T) {
	w := newWorld(t)
	old := w.mustJoin("alice", "tab").Session.Generation
	cur := w.mustJoin("alice", "tab").Session.Generation
	tests := []struct {
		name string
		sid  string
		gen  int64
	}{
		{"older generation", "tab", old},
		{"future generation", "tab", cur + 1},
		{"unknown session", "other", cur},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if p, _ := w.leave("alice", tc.sid, tc.gen); p.Removed || p.WriteParticipant || p.DeleteParticipant {
				t.Fatalf("plan %+v, want nothing", p)
			}
		})
	}
	if _, ok := w.sessions["alice/tab"]; !ok {
		t.Fatal("the current session is gone")
	}
}

func TestJoin_Admission(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "mallory", SessionID: "s"}}
	open := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
	tests := []struct {
		name   string
		state  presence.JoinState
		want   string
		wantOK bool
	}{
		{"open room", presence.JoinState{Room: open}, "", true},
		{"not on the guest list", presence.JoinState{Room: open, Policy: &presence.Policy{AllowedUsers: []string{"alice"}}}, presence.EForbidden, false},
		{"not on the guest list of a room yet to be created", presence.JoinState{Policy: &presence.Policy{AllowedUsers: []string{"alice"}}}, presence.EForbidden, false},
		{"on the guest list", presence.JoinState{Room: open, Policy: &presence.Policy{AllowedUsers: []string{"mallory"}}}, "", true},
		{"room at its own cap", presence.JoinState{Room: open, Entries: 3, Policy: &presence.Policy{MaxParticipants: 3}}, presence.ERoomFull, false},
		{"room below its own cap", presence.JoinState{Room: open, Entries: 2, Policy: &presence.Policy{MaxParticipants: 3}}, "", true},
		{"room at the global cap", presence.JoinState{Room: open, Entries: s.MaxParticipants}, presence.ERoomFull, false},
		{"policy cap above the global cap is ignored", presence.JoinState{Room: open, Entries: 3, Policy: &presence.Policy{MaxParticipants: 1 << 30}}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.PlanJoin(now, tc.state, req)
			if tc.wantOK != (err == nil) || (err != nil && presence.ErrorCode(err) != tc.want) {
				t.Fatalf("err %v, want code %q", err, tc.want)
			}
		})
	}
}

func TestSettings_Validate(t *testing.T) {
	ok := presence.DefaultSettings()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	// The bound itself: a renew window of exactly one heartbeat is enough.
	edge := ok
	edge.Heartbeat, edge.Lease, edge.RenewWhenLeft = 5*time.Second, 10*time.Second, 0.5
	if err := edge.Validate(); err != nil {
		t.Fatalf("renew window of exactly one heartbeat refused: %v", err)
	}
	bad := func(edit func(*presence.Settings)) presence.Settings { s := ok; edit(&s); return s }
	for name, s := range map[string]presence.Settings{
		"lease shorter than two heartbeats": bad(func(s *presence.Settings) { s.Lease = 9 * time.Second }),
		"heartbeat too fast":                bad(func(s *presence.Settings) { s.Heartbeat = time.Millisecond }),
		"negative grace":                    bad(func(s *presence.Settings) { s.EmptyRoomGrace = -time.Second }),
		"no participants allowed":           bad(func(s *presence.Settings) { s.MaxParticipants = 0 }),
		"no sessions per user":              bad(func(s *presence.Settings) { s.MaxSessionsPerUser = 0 }),
		"no rooms per user":                 bad(func(s *presence.Settings) { s.MaxRoomsPerUser = 0 }),
		"horizon within a day":              bad(func(s *presence.Settings) { s.RecordHorizon = 24 * time.Hour }),
		"renew share zero":                  bad(func(s *presence.Settings) { s.RenewWhenLeft = 0 }),
		"renew share above one":             bad(func(s *presence.Settings) { s.RenewWhenLeft = 1.5 }),
		"renew share not a number":          bad(func(s *presence.Settings) { s.RenewWhenLeft = math.NaN() }),
		// 0.3 × 15 s = 4.5 s < 5 s: a heartbeat finding 5.5 s left skips,
		// and the next, 5 s later, finds 0.5 s; one finding 4.6 s left
		// skips and the next finds the lease ended.
		"renew window shorter than a heartbeat": bad(func(s *presence.Settings) { s.RenewWhenLeft = 0.3 }),
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
