package firestoredb_test

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// The model's sweepers. A pass takes time: by its teardown step the leases
// its expiry step judged running may have ended. And a teardown is a
// window: requests of the room's users on other instances, whose clocks
// may still judge a lease running that the sweeper's judges ended, run
// between its check and its commit, and between its commit and the purge
// (docs/races.md, "A teardown under a lease at its edge").

// sweeperStore is what instance i's sweeper uses: its store, with the
// model's hooks around the teardown step and the purge.
type sweeperStore struct {
	*firestoredb.Store
	m *model
	i int
}

// DueRooms lists the rooms due for teardown after the pass has stalled
// (see stall), at the clock the stall left.
func (s sweeperStore) DueRooms(ctx context.Context, _ time.Time, limit int, unreportedOnly bool) (presence.Listing[presence.Room], error) {
	s.m.stall(s.i)
	return s.Store.DueRooms(ctx, s.m.nowOf(s.i), limit, unreportedOnly)
}

func (s sweeperStore) TearDown(ctx context.Context, c presence.TeardownCandidate, enforce bool) (presence.TeardownResult, error) {
	s.m.tearingDown[s.i] = c.RoomID
	res, err := s.Store.TearDown(ctx, c, enforce)
	s.m.tearingDown[s.i] = ""
	if res.Closing != nil {
		s.m.logf("  #%d tore down %s", s.i, c.RoomID)
		s.m.closed[s.i] = append(s.m.closed[s.i], c.RoomID)
	}
	return res, err
}

func (s sweeperStore) PurgeClosed(ctx context.Context, limit int) (int, error) {
	for _, room := range s.m.closed[s.i] {
		s.m.atSeam(func() {
			s.m.logf("  seam: #%d has torn down %s and not yet purged it", s.i, room)
			s.m.requestIn(s.m.behind(s.i), room, lives)
		})
	}
	s.m.closed[s.i] = nil
	return s.Store.PurgeClosed(ctx, limit)
}

// stall lets time pass in instance i's pass before its teardown step: a
// few milliseconds, or, most often when a tab in a suspected_empty room
// holds a lease that ends after the room's grace and within a lease from
// now, up to that lease's end (a pass that stalled into it: a starved or
// frozen instance), so that the sweeper's now is just past the end while
// another instance's, if one is behind, is not yet.
func (m *model) stall(i int) {
	if m.draining || m.settling {
		return
	}
	now := m.nowOf(i)
	suspected, err := m.client.Collection(firestoredb.RoomsCollection).Where(firestoredb.FieldState, "==", string(presence.StateSuspectedEmpty)).Documents(m.ctx).GetAll()
	m.must(err)
	var edge time.Time
	for _, snap := range suspected {
		cleanup, _ := snap.Data()[firestoredb.FieldCleanupAfter].(time.Time)
		for k, c := range m.clients {
			if k.room == snap.Ref.ID && c.live && c.leaseEnd.After(now) && !c.leaseEnd.Before(cleanup) &&
				c.leaseEnd.Sub(now) <= m.settings.Lease && (edge.IsZero() || c.leaseEnd.Before(edge)) {
				edge = c.leaseEnd
			}
		}
	}
	d := time.Duration(m.rng.IntN(4)) * time.Millisecond
	if !edge.IsZero() && m.rng.IntN(4) != 0 {
		behind := time.Millisecond
		m.mu.Lock()
		for _, s := range m.skews {
			behind = max(behind, m.skews[i]-s)
		}
		m.mu.Unlock()
		d = edge.Sub(now) + time.Duration(m.rng.Int64N(int64(behind)))
	}
	m.clock.Advance(d)
	m.logf("  #%d's pass stalls %v before its teardown step, to %s", i, d, stamp(m.nowOf(i)))
}

// behind is the instance other than i that a request nested in i's runs
// on: most often the one whose clock is furthest behind.
func (m *model) behind(i int) int {
	j := m.otherThan(i)
	if m.rng.IntN(4) == 0 {
		return j
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range modelInstances {
		if k != i && m.skews[k] < m.skews[j] {
			j = k
		}
	}
	return j
}

// installTeardownSeam has instance i's teardown, between its check and its
// commit, run a request of a user of the room on another instance. The
// teardown holds only the room document, which none of those requests
// writes: the expiry, whose emptiness check could, dies before it does.
func (m *model) installTeardownSeam(i int) {
	m.stores[i].SetAfterTeardownCheck(func() {
		room := m.tearingDown[i]
		if room == "" {
			return
		}
		m.atSeam(func() {
			m.logf("  seam: #%d pauses its teardown of %s after its check", i, room)
			m.requestIn(m.behind(i), room, diesBeforeRoomWrite)
		})
	})
}

// atSeam runs f as a request nested in another, three times in four,
// unless the schedule is draining or settling or a request is nested
// already.
func (m *model) atSeam(f func()) {
	if m.draining || m.settling || m.depth.Load() > 0 || m.rng.IntN(4) == 0 {
		return
	}
	m.depth.Add(1)
	defer m.depth.Add(-1)
	m.nested.Add(1)
	f()
}

func (m *model) otherThan(i int) int { return (i + 1 + m.rng.IntN(modelInstances-1)) % modelInstances }

// requestIn runs, on instance j, a request of a tab in room that believes
// itself live (or of any tab of the room): a renewal, an away toggle, a
// state update, or the expiry step of j's sweeper for the room, whose
// instance dies as d says.
func (m *model) requestIn(j int, room string, d death) {
	var tabs []clientKey
	for k, c := range m.clients {
		if k.room == room && c.live {
			tabs = append(tabs, k)
		}
	}
	k := clientKey{room, modelUsers[m.rng.IntN(len(modelUsers))], modelSessions[m.rng.IntN(len(modelSessions))]}
	if len(tabs) > 0 {
		k = tabs[m.rng.IntN(len(tabs))]
	}
	switch n := m.rng.IntN(8); {
	case n < 5:
		m.heartbeat(j, k, false)
	case n == 5:
		m.away(j, k)
	case n == 6:
		m.state(j, k)
	default:
		m.expireIn(j, room, d)
	}
}

// expireIn runs the expiry step of instance j's sweeper for room's
// sessions only.
func (m *model) expireIn(j int, room string, d death) {
	listing, err := m.stores[j].ExpiredSessions(m.ctx, m.nowOf(j), 100)
	if err != nil {
		m.violate("listing expired sessions on #%d: %v", j, err)
		return
	}
	for _, c := range listing.Items {
		if c.RoomID != room {
			continue
		}
		var res presence.ExpiryResult
		m.dies[j] = d
		died := diesDuring(func() { res, err = m.stores[j].ExpireSession(m.ctx, c) })
		m.dies[j] = lives
		m.logf("#%d expires %s/%s/%s → %v, died %v, %v", j, c.RoomID, c.ParticipantID, c.SessionID, res.Outcome, died, err)
		if err != nil && !died {
			m.violate("expiring %s/%s/%s on #%d: %v", c.RoomID, c.ParticipantID, c.SessionID, j, err)
		}
	}
}
