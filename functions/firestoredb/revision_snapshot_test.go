package firestoredb_test

import (
	"sync"
	"testing"

	"github.com/roomlease/roomlease/functions/presence"
)

// A join's reply revision in a room that keeps its revision on its entries
// is read as two sums, over the entries and over the departure records. A
// departure moves its user's changes from one to the other in one commit;
// forced between the two sums here (the joining instance pauses after the
// entries' sum while another instance's leave commits), sums read apart
// would count the leaver's changes twice: a reply above any revision the
// room ever had. Read at one snapshot, the reply is at most the revision
// after both changes, and above the revision before the join.
func TestJoin_TheReplysRevisionIsOneSnapshot(t *testing.T) {
	f := MustOpenStore(t)
	room := "snapshot"
	f.mustJoin(t, room, "carol", "t1") // stays: alice's leave is not the room's last
	a := f.mustJoin(t, room, "alice", "t1")
	for _, state := range []string{"x", "y"} { // alice's entry carries several changes
		if _, err := f.store.SetState(f.ctx, presence.StateRequest{SessionRef: ref(room, "alice", "t1", a.Session.Generation), State: presence.State{"s": state}}); err != nil {
			t.Fatal(err)
		}
	}
	before := mustRevision(t, f, room)

	// The join sends its two sums at once; the hooks hold the records' sum
	// back until the entries' sum has answered and alice's leave has moved
	// her changes from her entry to her record: read apart, the reply
	// would count them twice.
	paused, resume, entriesRead := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var afterOnce, beforeOnce sync.Once
	f.other.SetRevisionSumHooks(func() {
		afterOnce.Do(func() { close(entriesRead) })
	}, func() {
		beforeOnce.Do(func() {
			<-entriesRead
			close(paused)
			<-resume
		})
	})
	replies := make(chan presence.JoinResult, 1)
	errs := make(chan error, 1)
	go func() {
		res, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: "bob", SessionID: "t1"}})
		replies <- res
		errs <- err
	}()
	<-paused
	if _, err := f.store.Leave(f.ctx, ref(room, "alice", "t1", a.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	close(resume)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	reply := (<-replies).Revision
	after := mustRevision(t, f, room) // alice's leave and bob's join: two more
	if after != before+2 {
		t.Fatalf("revision %d after a leave and a join from %d", after, before)
	}
	if reply <= before || reply > after {
		t.Fatalf("bob's join answered revision %d: want above %d (before it) and at most %d (after it and the leave)", reply, before, after)
	}
}

func mustRevision(tb testing.TB, f *fixture, room string) int64 {
	tb.Helper()
	rev, _, err := f.store.RevisionForTest(f.ctx, room)
	if err != nil {
		tb.Fatal(err)
	}
	return rev
}
