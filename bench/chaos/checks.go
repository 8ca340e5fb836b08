package chaos

// The chaos scenario's verdicts, kept free of I/O so that they can be
// tested on their own (checks_test.go): what a client may conclude
// from a 409, which users a roster read must list, when a revision went
// back, and which documents may outlive a drain.

import (
	"strings"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
)

// heldLease is what a client believes of one session at one moment, from
// the answers it got: it holds generation Gen, issued by a join whose
// answer arrived at Since, and the latest answer for Gen put its lease
// end at Until.
//
// Doubtful marks a generation issued while an earlier join of the same
// session was still unanswered (it timed out, its process was killed or
// frozen, or it answered 5xx). Such a join may still commit after the one
// that issued Gen, and since every join issues a new generation and a
// lease counted from its own now, it supersedes Gen with a lease that may
// end sooner. A client cannot fence its own joins against each other, so
// a doubtful generation proves nothing either way and the checks leave it
// out (and count it). Heartbeats and leaves need no such care: a late
// heartbeat is a transaction that only lengthens the lease it read, and a
// late leave names its generation.
type heldLease struct {
	UID, Room, Session string
	Gen                int64
	Since, Until       time.Time
	Doubtful           bool
}

// verdict409 is what a 409 stale_generation to a heartbeat means for the
// lease the client held.
type verdict409 string

const (
	// The answer came when the lease had ended, or so close to its end
	// that the server may have judged it ended: the client was late.
	late409 verdict409 = "late"
	// The generation was doubtful: the client's own unanswered join may
	// have superseded it.
	ownJoin409 verdict409 = "ownJoin"
	// The whole request ended while the lease, by the server's own
	// earlier answer, was live: the server removed or superseded a live
	// lease. A false removal.
	false409 verdict409 = "falseRemoval"
)

// classify409 judges a 409 answered at answered to a heartbeat of l. The
// server decided before it answered, so an answer before l.Until means a
// decision while the lease was live; tolerance widens "late" by that much,
// so that only answers well inside the lease count against the server.
func classify409(l heldLease, answered time.Time, tolerance time.Duration) verdict409 {
	switch {
	case !answered.Before(l.Until.Add(-tolerance)):
		return late409
	case l.Doubtful:
		return ownJoin409
	default:
		return false409
	}
}

// rosterExpectation is the outcome of matching one roster read against
// the clients' beliefs.
type rosterExpectation struct {
	// Must maps each user that must be listed to one lease that proves it.
	Must map[string]heldLease
	// Doubtful counts users left out only because every lease that would
	// have proved them was doubtful.
	Doubtful int
}

// expectListed returns the users a roster read of one room must list: those
// holding a lease that the client believed, in the same generation and
// without having begun to leave it, both just before the read started
// (before) and just after it ended (after); whose join was answered at
// least margin before the read started; and that, by the answers known
// before the read, lasts at least margin beyond its end. Such a lease was
// live throughout the read by the server's own word, so its user's roster
// entry must be in any snapshot the read took, whatever instant that was.
// Leases the client gave up (leaving, crashed and then superseded, 409)
// between the two snapshots do not qualify; a crashed session that is
// still within its lease does.
func expectListed(before, after []heldLease, start, end time.Time, margin time.Duration) rosterExpectation {
	type key struct {
		uid, session string
		gen          int64
	}
	stillHeld := make(map[key]bool, len(after))
	for _, l := range after {
		stillHeld[key{l.UID, l.Session, l.Gen}] = true
	}
	out := rosterExpectation{Must: map[string]heldLease{}}
	doubtful := map[string]bool{}
	for _, l := range before {
		if !stillHeld[key{l.UID, l.Session, l.Gen}] {
			continue
		}
		if l.Since.After(start.Add(-margin)) || l.Until.Before(end.Add(margin)) {
			continue
		}
		if l.Doubtful {
			doubtful[l.UID] = true
			continue
		}
		out.Must[l.UID] = l
	}
	for uid := range doubtful {
		if _, ok := out.Must[uid]; !ok {
			out.Doubtful++
		}
	}
	return out
}

// revisionSeen is one consistent reading of a room: whether its document
// existed, its lifetime (the room's createdAt), and the revision as the
// server keeps it (readRevision).
type revisionSeen struct {
	Exists   bool
	Lifetime time.Time
	Revision int64
	At       time.Time
}

// revisionDrop is a revision that went down within one lifetime of a room.
type revisionDrop struct {
	Room           string
	Lifetime       time.Time
	Before, After  int64
	SeenAt, DropAt time.Time
}

// revisionTracker follows each room's revision across readings and reports
// every decrease within a lifetime. A lifetime ends when the room document
// is deleted; the next creation starts a new one (another createdAt) from
// any revision.
type revisionTracker struct {
	last      map[string]revisionSeen
	lifetimes map[string]map[time.Time]bool
}

func newRevisionTracker() *revisionTracker {
	return &revisionTracker{last: map[string]revisionSeen{}, lifetimes: map[string]map[time.Time]bool{}}
}

// observe records a reading of room and returns the drop it shows, if any.
func (t *revisionTracker) observe(room string, s revisionSeen) *revisionDrop {
	prev, had := t.last[room]
	if !s.Exists {
		delete(t.last, room)
		return nil
	}
	if t.lifetimes[room] == nil {
		t.lifetimes[room] = map[time.Time]bool{}
	}
	t.lifetimes[room][s.Lifetime] = true
	t.last[room] = s
	if had && prev.Lifetime.Equal(s.Lifetime) && s.Revision < prev.Revision {
		return &revisionDrop{Room: room, Lifetime: s.Lifetime, Before: prev.Revision, After: s.Revision, SeenAt: prev.At, DropAt: s.At}
	}
	return nil
}

// lifetimeCount is how many distinct lifetimes the readings saw, all rooms
// together.
func (t *revisionTracker) lifetimeCount() int {
	n := 0
	for _, l := range t.lifetimes {
		n += len(l)
	}
	return n
}

// Document kinds after a drain.
const (
	docRoom      = "room"               // rooms/{id}: a room not torn down
	docUnderRoom = "underRoom"          // anything beneath rooms/{id}: left behind
	docClosing   = "roomClosings"       // kept: the record of a teardown
	docControl   = "roomlease"          // kept: config, sweep status, watermark
	docUserRooms = "roomleaseUsers"     // kept: the rooms cap's per-user list
	docPolicy    = "roomPolicies"       // kept: operator-written
	docCandidate = "teardownCandidates" // kept: the rollout's evidence, until TTL
	docOther     = "other"
)

// classifyDocument says what a document path (relative to the database's
// documents, "rooms/r/participants/u") is, and whether the design keeps it
// after every room has been torn down and purged.
func classifyDocument(path string) (kind string, kept bool) {
	parts := strings.Split(path, "/")
	switch {
	case len(parts) < 2:
		return docOther, false
	case parts[0] == firestoredb.RoomsCollection && len(parts) == 2:
		return docRoom, false
	case parts[0] == firestoredb.RoomsCollection:
		return docUnderRoom, false
	case parts[0] == firestoredb.ClosingsCollection:
		return docClosing, true
	case parts[0] == firestoredb.ControlCollection:
		return docControl, true
	case parts[0] == firestoredb.UsersCollection:
		return docUserRooms, true
	case parts[0] == firestoredb.PoliciesCollection:
		return docPolicy, true
	case parts[0] == firestoredb.CandidatesCollection:
		return docCandidate, true
	}
	return docOther, false
}
