package firestoredb_test

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
)

// The model's invariants, checked against the stored documents.

// world is every presence document of the schedule's project.
type world struct {
	rooms    map[string]map[string]any            // room → fields
	entries  map[string]map[string]map[string]any // room → uid → fields
	sessions map[string][]sessionDoc              // room/uid → sessions
	// revision is, per room, its revision where the room keeps it: the sum
	// of its shards, or, in a room that keeps it on its entries
	// (entryrevision.go), what its listeners add up. Either way the events
	// check holds it against the outbox, one event per visible change.
	revision map[string]int64
	// carried is, per room, what its listeners add up: the changes on
	// its entries and departure records of the lifetime, and its retired
	// count (revision.go, "What listeners add up").
	carried map[string]int64
	others  []string // typing, receipts, shards: paths
}

type sessionDoc struct {
	id       string
	gen      int64
	leaseEnd time.Time
}

func (m *model) read() world {
	w := world{rooms: map[string]map[string]any{}, entries: map[string]map[string]map[string]any{},
		sessions: map[string][]sessionDoc{}, revision: map[string]int64{}, carried: map[string]int64{}}
	opened := map[string]time.Time{} // the rooms' lifetimes
	rooms, err := m.client.Collection(firestoredb.RoomsCollection).Documents(m.ctx).GetAll()
	m.must(err)
	for _, snap := range rooms {
		w.rooms[snap.Ref.ID] = snap.Data()
		opened[snap.Ref.ID], _ = snap.Data()["createdAt"].(time.Time)
	}
	// A document's changes count for its room's lifetime only.
	carry := func(snap *firestore.DocumentSnapshot, field string) {
		room := snap.Ref.Parent.Parent.ID
		n, _ := snap.Data()[field].(int64)
		at, _ := snap.Data()[firestoredb.FieldRoomOpenedAt].(time.Time)
		if field == firestoredb.FieldRetired || at.Equal(opened[room]) {
			w.carried[room] += n
		}
	}
	entries, err := m.client.CollectionGroup(firestoredb.ParticipantsCollection).Documents(m.ctx).GetAll()
	m.must(err)
	for _, snap := range entries {
		room := snap.Ref.Parent.Parent.ID
		if w.entries[room] == nil {
			w.entries[room] = map[string]map[string]any{}
		}
		w.entries[room][snap.Ref.ID] = snap.Data()
		carry(snap, firestoredb.FieldChanges)
	}
	sessions, err := m.client.CollectionGroup(firestoredb.SessionsCollection).Documents(m.ctx).GetAll()
	m.must(err)
	for _, snap := range sessions {
		d := snap.Data()
		entry := snap.Ref.Parent.Parent
		key := entry.Parent.Parent.ID + "/" + entry.ID
		end, _ := d[firestoredb.FieldLeaseExpiresAt].(time.Time)
		gen, _ := d[firestoredb.FieldGeneration].(int64)
		w.sessions[key] = append(w.sessions[key], sessionDoc{id: snap.Ref.ID, gen: gen, leaseEnd: end})
	}
	for _, group := range []string{firestoredb.RevisionsCollection, firestoredb.TypingCollection, firestoredb.ReceiptsCollection, firestoredb.RecentlyLeftCollection} {
		docs, err := m.client.CollectionGroup(group).Documents(m.ctx).GetAll()
		m.must(err)
		for _, snap := range docs {
			w.others = append(w.others, snap.Ref.Path)
			switch {
			case group == firestoredb.RecentlyLeftCollection && snap.Ref.ID == firestoredb.RetiredDoc:
				carry(snap, firestoredb.FieldRetired)
			case group == firestoredb.RevisionsCollection:
				n, _ := snap.Data()[firestoredb.FieldChanges].(int64)
				w.revision[snap.Ref.Parent.Parent.ID] += n
			case group == firestoredb.RecentlyLeftCollection:
				carry(snap, firestoredb.FieldChanges)
			}
		}
	}
	for room, fields := range w.rooms {
		if onEntries, _ := fields[firestoredb.FieldRevisionOnEntries].(bool); onEntries {
			w.revision[room] = w.carried[room]
		}
	}
	return w
}

func (m *model) must(err error) {
	if err != nil {
		m.violate("reading the documents: %v", err)
	}
}

// checkModel checks, after every step:
//   - every session whose lease is live by every instance's clock has its
//     user's roster entry;
//   - every tab that believes its lease live by every instance's clock
//     (its last join or heartbeat said so, and nobody was told to leave) still
//     has its session, with its generation: an answered renewal is never
//     undone;
//   - every session whose lease is live by every instance's clock has its
//     room: no teardown commits under a lease;
//   - within a room's lifetime the revision never decreases, rises by at
//     least the visible changes seen, and by exactly one per visible change
//     for a single request that ran alone; a lifetime that a single
//     request began counts just its changes (nothing of the room's lifetime
//     before carried over).
func (m *model) checkModel() {
	w := m.read()
	latest := m.latest()
	for key, sessions := range w.sessions {
		room, uid, _ := strings.Cut(key, "/")
		for _, s := range sessions {
			if s.leaseEnd.After(latest) && w.rooms[room] == nil {
				m.violate("session %s/%s holds a lease to %s (latest now %s) but room %s is gone",
					key, s.id, stamp(s.leaseEnd), stamp(latest), room)
			}
			if s.leaseEnd.After(latest) && w.entries[room][uid] == nil {
				m.violate("session %s/%s holds a lease to %s (latest now %s) but %s has no roster entry",
					key, s.id, stamp(s.leaseEnd), stamp(latest), uid)
			}
		}
	}
	for k, c := range m.clients {
		if !c.live || !c.leaseEnd.After(latest) || m.excluded[k.room] == k.user {
			continue
		}
		found := false
		for _, s := range w.sessions[k.room+"/"+k.user] {
			found = found || s.id == k.session && s.gen == c.gen
		}
		if !found {
			m.violate("false removal: %s was answered a lease to %s (latest now %s), but its session of generation %d is gone",
				k, stamp(c.leaseEnd), stamp(latest), c.gen)
		}
	}
	for _, room := range modelRooms {
		m.checkRevision(room, w)
	}
	m.checkEvents(w)
}

func (m *model) checkRevision(room string, w world) {
	fields := w.rooms[room]
	if fields == nil {
		delete(m.lifetimes, room)
		return
	}
	if w.carried[room] != w.revision[room] {
		m.violate("room %s: its listeners would add up to revision %d, the shards say %d", room, w.carried[room], w.revision[room])
	}
	// The store's own arithmetic (an instance's reply) against the
	// documents; the store reads beside any transaction, and no step runs
	// during the check.
	if rev, n, err := m.stores[0].RevisionForTest(m.ctx, room); err != nil {
		m.violate("room %s: reading the revision: %v", room, err)
	} else if rev != w.revision[room] || n != len(w.entries[room]) {
		m.violate("room %s: the store reads revision %d and %d entries, the documents say %d and %d", room, rev, n, w.revision[room], len(w.entries[room]))
	}
	createdAt, _ := fields["createdAt"].(time.Time)
	now := lifetime{createdAt: createdAt, revision: w.revision[room], entries: map[string]string{}}
	for uid, e := range w.entries[room] {
		now.entries[uid] = fmt.Sprintf("%v|%v|%v|%v|%v", e["sessionCount"], e["displayName"], e["joinedAt"], e["state"], e["away"])
	}
	before, seen := m.lifetimes[room]
	m.lifetimes[room] = now
	alone := m.exact && m.nested.Load() == 0
	if !seen || !before.createdAt.Equal(createdAt) {
		// A new lifetime: its revision starts afresh, and a request that
		// ran alone began it with one join, one visible change per entry.
		if alone && now.revision != int64(len(now.entries)) {
			m.violate("room %s: a new lifetime starts at revision %d with %d roster entries", room, now.revision, len(now.entries))
		}
		return
	}
	changes := 0
	for uid := range union(before.entries, now.entries) {
		if before.entries[uid] != now.entries[uid] {
			changes++
		}
	}
	delta := now.revision - before.revision
	switch {
	case delta < 0:
		m.violate("room %s: the revision went back from %d to %d within one lifetime", room, before.revision, now.revision)
	case delta < int64(changes):
		m.violate("room %s: %d visible changes, but the revision rose by %d", room, changes, delta)
	case alone && delta != int64(changes):
		m.violate("room %s: one request made %d visible changes, but the revision rose by %d", room, changes, delta)
	}
}

func union(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// settle aligns the instances' clocks, has one sweeper pass run, and
// checks that the per-user counts agree with the sessions: every session
// left holds a live lease, and every roster entry counts exactly its
// user's live sessions (at least one).
func (m *model) settle(i int) {
	// Every instance's clock moves to the latest any has had, so none
	// steps back.
	if d := m.latest().Sub(m.clock.Now()); d > 0 {
		m.clock.Advance(d)
	}
	m.mu.Lock()
	m.skews = [modelInstances]time.Duration{}
	m.mu.Unlock()
	m.logf("settle at %s", stamp(m.clock.Now()))
	m.settling = true
	m.pass(i)
	m.settling = false
	now := m.clock.Now()
	w := m.read()
	for key, sessions := range w.sessions {
		for _, s := range sessions {
			if !s.leaseEnd.After(now) {
				m.violate("after a pass at %s, session %s/%s with a lease that ended at %s is still there", stamp(now), key, s.id, stamp(s.leaseEnd))
			}
		}
	}
	for room, entries := range w.entries {
		for uid, e := range entries {
			live := 0
			for _, s := range w.sessions[room+"/"+uid] {
				if s.leaseEnd.After(now) {
					live++
				}
			}
			if count, _ := e["sessionCount"].(int64); live == 0 || count != int64(live) {
				m.violate("after a pass, %s/%s counts %d sessions, %d hold a live lease", room, uid, count, live)
			}
		}
	}
}

// drain ends the schedule: some tabs leave, the rest crash; the leases
// end, the sweepers run through the repair's settling time and the grace,
// and then nothing may be left of any room.
func (m *model) drain() {
	m.logf("drain")
	m.draining = true
	keys := make([]clientKey, 0, len(m.clients))
	for k, c := range m.clients {
		if c.live {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
	for _, k := range keys {
		if m.rng.IntN(2) == 0 {
			m.leave(m.rng.IntN(modelInstances), k)
		}
	}
	m.clock.Advance(m.settings.AwayLease + time.Second) // past every lease, away ones too
	m.settle(m.rng.IntN(modelInstances))
	for range 3 {
		m.clock.Advance(31 * time.Second) // past the repair's settling time and the grace
		sum := m.sweepers[m.rng.IntN(modelInstances)].Run(m.ctx)
		m.logf("run → %+v %s", sum.Counts, sum.LastError)
	}
	w := m.read()
	for room := range w.rooms {
		m.violate("room %s was not torn down after the drain: %v", room, w.rooms[room])
	}
	for room, entries := range w.entries {
		for uid := range entries {
			m.violate("roster entry %s/%s left after the drain", room, uid)
		}
	}
	for key, sessions := range w.sessions {
		m.violate("%d sessions of %s left after the drain", len(sessions), key)
	}
	for _, p := range w.others {
		m.violate("%s left after the drain", p)
	}
	pending, err := m.client.Collection(firestoredb.ClosingsCollection).Where(firestoredb.FieldPendingCleanup, "==", true).Documents(m.ctx).GetAll()
	m.must(err)
	for _, snap := range pending {
		m.violate("teardown %s still pending after the drain", snap.Ref.ID)
	}
	m.checkEvents(w)
}
