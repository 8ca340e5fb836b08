package firestoredb_test

import (
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// The model's requests. Each runs on one instance and updates what the
// tab believes from the answer, exactly as a client would; a refused
// request that a client may see (stale generation, a cap, a policy) is an
// answer, not a failure. Anything else a request answers is a violation:
// with nothing failing underneath, roomlease must not fail either.

// step runs one random step of the schedule.
func (m *model) step(n int) {
	m.nested.Store(0)
	r := m.rng.IntN(100)
	m.exact = r < 67
	switch {
	case r < 20:
		m.join(m.rng.IntN(modelInstances), m.pickKey())
	case r < 34:
		m.heartbeat(m.rng.IntN(modelInstances), m.pickKnown(), false)
	case r < 38:
		m.heartbeat(m.rng.IntN(modelInstances), m.pickKnown(), true)
	case r < 46:
		m.leave(m.rng.IntN(modelInstances), m.pickKnown())
	case r < 54:
		m.dyingLeave(m.rng.IntN(modelInstances))
	case r < 58:
		m.away(m.rng.IntN(modelInstances), m.pickKnown())
	case r < 62:
		m.state(m.rng.IntN(modelInstances), m.pickKnown())
	case r < 65:
		m.typing(m.rng.IntN(modelInstances), m.pickKnown())
	case r < 67:
		m.receipt(m.rng.IntN(modelInstances), m.pickKey())
	case r < 80:
		m.advance()
	case r < 92:
		m.pass(m.rng.IntN(modelInstances))
	case r < 96:
		m.settle(m.rng.IntN(modelInstances))
	default:
		m.policy()
	}
}

func (m *model) pickKey() clientKey {
	return clientKey{modelRooms[m.rng.IntN(len(modelRooms))], modelUsers[m.rng.IntN(len(modelUsers))],
		modelSessions[m.rng.IntN(len(modelSessions))]}
}

// pickKnown prefers a tab that has joined.
func (m *model) pickKnown() clientKey {
	var known []clientKey
	for _, room := range modelRooms {
		for _, user := range modelUsers {
			for _, s := range modelSessions {
				if c := m.clients[clientKey{room, user, s}]; c != nil && c.live {
					known = append(known, clientKey{room, user, s})
				}
			}
		}
	}
	if len(known) == 0 || m.rng.IntN(10) == 0 {
		return m.pickKey()
	}
	return known[m.rng.IntN(len(known))]
}

func (m *model) tab(k clientKey) *client {
	c := m.clients[k]
	if c == nil {
		c = &client{}
		m.clients[k] = c
	}
	return c
}

func (m *model) ref(k clientKey, gen int64) presence.SessionRef {
	return presence.SessionRef{SessionKey: presence.SessionKey{RoomID: k.room, ParticipantID: k.user, SessionID: k.session}, Generation: gen}
}

// run marks k's request in flight on instance i while f runs.
func (m *model) run(i int, k clientKey, f func(s *firestoredb.Store)) {
	m.inFlight[i] = k
	defer func() { m.inFlight[i] = clientKey{} }()
	f(m.stores[i])
}

// modelNames are the display names joins rename their users to.
var modelNames = []string{"Ada", "Grace", "Edsger"}

// join joins k; a third of the joins also rename the user.
func (m *model) join(i int, k clientKey) {
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: k.room, ParticipantID: k.user, SessionID: k.session}}
	if m.rng.IntN(3) == 0 {
		req.DisplayName, req.HasDisplayName = modelNames[m.rng.IntN(len(modelNames))], true
	}
	m.run(i, k, func(s *firestoredb.Store) {
		res, err := s.Join(m.ctx, req)
		m.logf("#%d join %s %q → gen %d lease %s, %v", i, k, req.DisplayName, res.Session.Generation, stamp(res.Session.LeaseExpiresAt), err)
		switch {
		case err == nil:
			*m.tab(k) = client{gen: res.Session.Generation, leaseEnd: res.Session.LeaseExpiresAt, live: true, token: res.Grant.Token, older: m.tab(k).token}
		case refusal(err, presence.EForbidden, presence.ETooManySessions, presence.ETooManyRooms, presence.ERoomFull):
		default:
			m.violate("join %s on #%d: %v", k, i, err)
		}
	})
}

// heartbeat renews k's lease; stale sends a generation older than the
// tab's, as a delayed request from an earlier connection would.
func (m *model) heartbeat(i int, k clientKey, stale bool) {
	c := m.tab(k)
	gen := c.gen
	if stale {
		gen--
	}
	if gen < 1 {
		gen, stale = 1, true // a tab that never joined: any generation is stale
	}
	r, which := m.withSomeToken(m.ref(k, gen), c)
	m.run(i, k, func(s *firestoredb.Store) {
		g, err := s.Renew(m.ctx, r)
		m.logf("#%d heartbeat %s gen %d (%s token) → lease %s, %v", i, k, gen, which, stamp(g.LeaseExpiresAt), err)
		m.answered(i, k, c, stale, err, func() { c.granted(g) })
	})
}

// withSomeToken returns r with the tab's last token (most often), the one
// before it (a replay), or none, and says which.
func (m *model) withSomeToken(r presence.SessionRef, c *client) (presence.SessionRef, string) {
	switch n := m.rng.IntN(10); {
	case n < 6:
		r.Token = c.token
		return r, "last"
	case n < 8:
		r.Token = c.older
		return r, "older"
	}
	return r, "no"
}

// granted records a successful answer's lease and token.
func (c *client) granted(g presence.Grant) {
	c.leaseEnd = g.LeaseExpiresAt
	if g.Token != c.token {
		c.token, c.older = g.Token, c.token
	}
}

func (m *model) typing(i int, k clientKey) {
	c := m.tab(k)
	gen := max(c.gen, 1)
	r, which := m.withSomeToken(m.ref(k, gen), c)
	m.run(i, k, func(s *firestoredb.Store) {
		g, err := s.SetTyping(m.ctx, r, m.rng.IntN(2) == 0)
		m.logf("#%d typing %s gen %d (%s token) → lease %s, %v", i, k, gen, which, stamp(g.LeaseExpiresAt), err)
		m.answered(i, k, c, c.gen == 0, err, func() { c.granted(g) })
	})
}

// answered judges a heartbeat's or typing's answer. A stale_generation for
// a tab whose lease, as last answered, ends after every instance's now is
// a false removal: nobody could have judged it ended.
func (m *model) answered(i int, k clientKey, c *client, stale bool, err error, ok func()) {
	switch code := codeOf(err); {
	case err == nil && !stale:
		ok()
	case err == nil && stale && c.gen > 1:
		m.violate("#%d accepted a generation of %s older than its %d", i, k, c.gen)
	case code == presence.EStaleGeneration && !stale:
		if c.live && c.leaseEnd.After(m.latest()) && m.excluded[k.room] != k.user {
			m.violate("false removal: #%d answered stale_generation to %s, whose lease runs to %s (latest now %s)",
				i, k, stamp(c.leaseEnd), stamp(m.latest()))
		}
		c.live = false
	case code == presence.EStaleGeneration, code == presence.EForbidden, code == presence.ERateLimited:
	case err != nil:
		m.violate("%s on #%d: %v", k, i, err)
	}
}

func (m *model) leave(i int, k clientKey) {
	c := m.tab(k)
	gen := max(c.gen, 1)
	m.run(i, k, func(s *firestoredb.Store) {
		res, err := s.Leave(m.ctx, m.ref(k, gen))
		m.logf("#%d leave %s gen %d → removed %v, %v", i, k, gen, res.Removed, err)
		if err != nil {
			m.violate("leave %s on #%d: %v", k, i, err)
		}
		c.live = false
	})
}

func (m *model) receipt(i int, k clientKey) {
	m.seq++
	seq := m.rng.Int64N(m.seq + 1)
	m.run(i, k, func(s *firestoredb.Store) {
		got, err := s.MarkRead(m.ctx, presence.ReceiptRequest{RoomID: k.room, ParticipantID: k.user, LastReadSeq: seq})
		m.logf("#%d receipt %s %d → %d, %v", i, k, seq, got, err)
		if err != nil && !refusal(err, presence.EForbidden) {
			m.violate("receipt %s on #%d: %v", k, i, err)
		}
		if err == nil && got < seq {
			m.violate("receipt %s on #%d stored %d below %d", k, i, got, seq)
		}
	})
}

// advance moves the shared clock on, mostly by small steps around the
// heartbeat interval, and often right to a lease's edge (within a few
// milliseconds of a live tab's lease end, where instances disagree about
// whether it holds); it sometimes redraws the instances' skews (a few
// milliseconds either way).
func (m *model) advance() {
	if m.rng.IntN(2) == 0 {
		m.toEdge()
	} else {
		steps := []time.Duration{time.Millisecond, 3 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second,
			5 * time.Second, 7 * time.Second, 10 * time.Second, 15 * time.Second, 31 * time.Second}
		m.clock.Advance(steps[m.rng.IntN(len(steps))])
	}
	if m.rng.IntN(2) == 0 {
		m.drawSkews()
	}
	m.logf("advance to %s, skews %v", stamp(m.clock.Now()), m.skews)
}

// drawSkews redraws the instances' skews, a few milliseconds either way.
func (m *model) drawSkews() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.skews {
		m.skews[i] = time.Duration(m.rng.IntN(9)-4) * time.Millisecond
	}
}

// nowOf is instance i's now.
func (m *model) nowOf(i int) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.clock.Now().Add(m.skews[i])
}

// toEdge moves the clock to within 3 ms of the earliest lease end of a live
// tab that is still ahead.
func (m *model) toEdge() {
	var edge time.Time
	for _, c := range m.clients {
		if c.live && c.leaseEnd.After(m.clock.Now()) && (edge.IsZero() || c.leaseEnd.Before(edge)) {
			edge = c.leaseEnd
		}
	}
	if edge.IsZero() {
		return
	}
	target := edge.Add(time.Duration(m.rng.IntN(7)-3) * time.Millisecond)
	if d := target.Sub(m.clock.Now()); d > 0 {
		m.clock.Advance(d)
	}
}

// pass runs one sweeper pass on instance i.
func (m *model) pass(i int) {
	r := m.sweepers[i].Pass(m.ctx)
	m.logf("#%d pass → %+v err %v item %v", i, r.Counts, r.Err, r.ItemErr)
	if r.Err != nil || r.ItemErr != nil {
		m.violate("pass on #%d: %v %v", i, r.Err, r.ItemErr)
	}
}

// policy restricts a room to two of the three users, or lifts its policy.
func (m *model) policy() {
	room := modelRooms[m.rng.IntN(len(modelRooms))]
	ref := m.client.Collection(firestoredb.PoliciesCollection).Doc(room)
	if m.excluded[room] != "" || m.rng.IntN(3) == 0 {
		if _, err := ref.Delete(m.ctx); err != nil {
			m.violate("lifting the policy of %s: %v", room, err)
		}
		delete(m.excluded, room)
		m.logf("policy %s lifted", room)
		return
	}
	out := modelUsers[m.rng.IntN(len(modelUsers))]
	var allowed []string
	for _, u := range modelUsers {
		if u != out {
			allowed = append(allowed, u)
		}
	}
	if _, err := ref.Set(m.ctx, map[string]any{"allowedUsers": allowed, "updatedAt": m.clock.Now()}); err != nil {
		m.violate("setting the policy of %s: %v", room, err)
	}
	m.excluded[room] = out
	// The excluded user's tabs are evicted at a pass from now on: an
	// answer they were given no longer promises anything.
	for _, session := range modelSessions {
		if c := m.clients[clientKey{room, out, session}]; c != nil {
			c.live = false
		}
	}
	m.logf("policy %s excludes %s", room, out)
}

// installSeams has instance i's store run another request, on another
// instance, at its seams: the interleavings of docs/races.md, chosen at
// random. Inside a transaction (after the sibling listing) only a
// heartbeat of a sibling tab of the request in flight runs: it touches
// only that sibling's session, which the paused transaction has not
// locked, so the two cannot deadlock. Outside a transaction (the emptiness
// check) any join or leave may run.
func (m *model) installSeams(i int) {
	other := func() int { return (i + 1 + m.rng.IntN(modelInstances-1)) % modelInstances }
	nest := func(f func()) {
		if m.draining || m.depth.Load() > 0 || m.rng.IntN(100) >= 35 {
			return
		}
		m.depth.Add(1)
		defer m.depth.Add(-1)
		m.nested.Add(1)
		f()
	}
	m.stores[i].SetAfterSiblingListing(func() {
		k := m.inFlight[i]
		if k.user == "" {
			return
		}
		nest(func() {
			for _, s := range modelSessions {
				if sib := (clientKey{k.room, k.user, s}); s != k.session && m.clients[sib] != nil {
					m.logf("  seam: #%d pauses after listing %s's sessions", i, k.user)
					m.heartbeat(other(), sib, false)
				}
			}
		})
	})
	emptiness := func(at string) func() {
		return func() {
			if m.dies[i] != lives {
				m.dieInEmptiness(i, other(), at == "before its emptiness write")
				return
			}
			nest(func() {
				m.logf("  seam: #%d pauses %s", i, at)
				if m.rng.IntN(2) == 0 {
					m.join(other(), m.pickKey())
				} else {
					m.leave(other(), m.pickKnown())
				}
			})
		}
	}
	m.stores[i].SetBeforeEmptinessWrite(emptiness("before its emptiness write"))
	m.stores[i].SetBeforeEmptinessRevive(emptiness("before its revive"))
	m.installTeardownSeam(i)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Sub(testclock.Start).String()
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return presence.ErrorCode(err)
}

// refusal reports whether err is one of the answers with codes.
func refusal(err error, codes ...string) bool {
	for _, c := range codes {
		if codeOf(err) == c {
			return true
		}
	}
	return false
}
