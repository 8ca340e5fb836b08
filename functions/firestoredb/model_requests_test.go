package firestoredb_test

import (
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// The model's requests beyond joins, heartbeats and leaves: away toggles,
// state updates, and a departure whose instance dies between its steps.

// away sends k's heartbeat with its away flag, most often the other one
// than its session holds (a toggle, a visible change when it changes the
// user's), with one of its tokens.
func (m *model) away(i int, k clientKey) {
	c := m.tab(k)
	gen := max(c.gen, 1)
	away := c.away != (m.rng.IntN(4) != 0)
	r, which := m.withSomeToken(m.ref(k, gen), c)
	m.run(i, k, func(s *firestoredb.Store) {
		g, err := s.HeartbeatAway(m.ctx, presence.AwayRequest{SessionRef: r, Away: away})
		m.logf("#%d away %v %s gen %d (%s token) → lease %s away %v, %v", i, away, k, gen, which, stamp(g.LeaseExpiresAt), g.Away, err)
		m.answered(i, k, c, c.gen == 0, err, func() { c.granted(g); c.away = g.Away })
	})
}

var modelMoods = []string{"here", "busy", "lunch"}

// state sets k's user's state in k's room to one of a few moods.
func (m *model) state(i int, k clientKey) {
	c := m.tab(k)
	gen := max(c.gen, 1)
	st := presence.State{"mood": modelMoods[m.rng.IntN(len(modelMoods))]}
	m.run(i, k, func(s *firestoredb.Store) {
		res, err := s.SetState(m.ctx, presence.StateRequest{SessionRef: m.ref(k, gen), State: st})
		m.logf("#%d state %s gen %d %v → revision %d, %v", i, k, gen, st["mood"], res.Revision, err)
		m.answered(i, k, c, c.gen == 0, err, func() {})
	})
}

// death is where an instance's request in flight dies.
type death int

const (
	lives death = iota
	// diesMidDeparture: a departure's emptiness check dies after its
	// write and before its recount's revive, with a join slipped in
	// between its count and its write (the state docs/races.md, "A
	// teardown under a lease at its edge", starts from); or, without a
	// join, at its write.
	diesMidDeparture
	// diesBeforeRoomWrite: the emptiness check dies before it would write
	// the room (for a request run inside a teardown, which holds the room
	// until it commits).
	diesBeforeRoomWrite
)

// lastTab returns a live tab that is the only one its room shows live:
// its leave is the room's last departure.
func (m *model) lastTab() (clientKey, bool) {
	now := m.clock.Now()
	perRoom := map[string][]clientKey{}
	for k, c := range m.clients {
		if c.live && c.leaseEnd.After(now) {
			perRoom[k.room] = append(perRoom[k.room], k)
		}
	}
	for _, n := range m.rng.Perm(len(modelRooms)) {
		if tabs := perRoom[modelRooms[n]]; len(tabs) == 1 {
			return tabs[0], true
		}
	}
	return clientKey{}, false
}

// dyingLeave is the leave of a room's last tab whose instance dies after
// its commit, in its emptiness check (see diesMidDeparture). Nothing of
// the check after that point runs; the sweeper's repair and teardown must
// cope. With no such tab, it is a join.
func (m *model) dyingLeave(i int) {
	k, ok := m.lastTab()
	if !ok {
		m.join(i, m.pickKey())
		return
	}
	m.dies[i] = diesMidDeparture
	defer func() { m.dies[i] = lives }()
	c := m.tab(k)
	gen := max(c.gen, 1)
	m.logf("#%d's next leave dies in its emptiness check", i)
	if diesDuring(func() { m.leave(i, k) }) {
		m.logf("#%d leave %s gen %d → committed; the instance died in its emptiness check", i, k, gen)
		c.live = false
	}
}

// dieInEmptiness is instance i's emptiness check reaching a room write
// (atWrite: step 2's; otherwise step 3's revive) on an instance that dies
// (m.dies[i]); other runs a request slipped in.
func (m *model) dieInEmptiness(i int, other int, atWrite bool) {
	k := m.inFlight[i]
	if m.dies[i] == diesMidDeparture && atWrite && m.depth.Load() == 0 && m.rng.IntN(4) != 0 {
		m.depth.Add(1)
		m.nested.Add(1)
		m.logf("  seam: a join slips into %s before #%d's emptiness write", k.room, i)
		j := clientKey{k.room, modelUsers[m.rng.IntN(len(modelUsers))], modelSessions[m.rng.IntN(len(modelSessions))]}
		m.join(other, j)
		m.depth.Add(-1)
		return // it dies at the revive its recount asks for
	}
	if atWrite {
		m.logf("  #%d dies before its emptiness check writes the room", i)
	} else {
		m.logf("  #%d dies before its recount revives the room", i)
	}
	instanceDies()
}
