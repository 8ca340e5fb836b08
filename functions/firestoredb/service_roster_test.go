package firestoredb_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// A service reads what a member reads, without being one: the live users
// only (an expired lease awaiting the sweeper is not listed), the revision,
// and the room's createdAt (its lifetime). It pays what a member pays minus
// the caller's own entry.
func TestServiceRoster_ListsWhatIsLive(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "r", "dave", "tab")
	created := f.clock.Now()
	f.clock.Advance(presence.DefaultSettings().Lease + time.Second)
	// dave's lease has ended; his entry awaits the sweeper.
	f.mustJoin(t, "r", "alice", "tab")
	f.mustJoin(t, "r", "bob", "tab")
	f.mustJoin(t, "r", "bob", "phone")

	before := f.store.Ops()
	r, err := f.store.ServiceRoster(f.ctx, "r")
	cost := f.store.Ops().Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range r.Participants {
		ids = append(ids, p.ID)
	}
	if fmt.Sprint(ids) != "[alice bob]" {
		t.Fatalf("roster %v, want [alice bob]", ids)
	}
	_, member := f.liveIDs(t, "r", "alice")
	if r.Revision != member.Revision || !r.Room.CreatedAt.Equal(created) {
		t.Fatalf("revision %d (a member reads %d), createdAt %v (want %v)", r.Revision, member.Revision, r.Room.CreatedAt, created)
	}
	// room (1), live sessions (3), their users' entries (2), revision (2:
	// the entries' and the records' changes), recent departures (1).
	if want := int64(1 + 3 + 2 + 2 + 1); cost.Reads != want || cost.Writes != 0 {
		t.Fatalf("cost %+v, want %d reads and no write", cost, want)
	}
}

func TestServiceRoster_Refusals(t *testing.T) {
	f := MustOpenStore(t)
	if _, err := f.store.ServiceRoster(f.ctx, "nowhere"); presence.ErrorCode(err) != presence.ENotFound {
		t.Errorf("absent room: %v, want %s", err, presence.ENotFound)
	}
	if _, err := f.store.ServiceRoster(f.ctx, "a/b"); presence.ErrorCode(err) != presence.EInvalid {
		t.Errorf("bad room id: %v, want %s", err, presence.EInvalid)
	}
}
