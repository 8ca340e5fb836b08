// Package fanout measures what one change in a room costs everyone who
// listens to it. A client keeps five listeners on a joined room (the room
// document, the roster, recently left (with the retired count), typing and
// receipts: clients/js/src/room-listeners.js and revision.js; the revision
// shards only in a room created before changes were carried), and
// Firestore bills each listener one read per document a snapshot adds or
// changes; a deleted document costs no read. So a visible change that
// writes one listened document (a roster entry or a departure record,
// which carries the revision) costs each of the room's N participants one
// read: N in all, on top of what the writer's own request reads and
// writes. Documents a snapshot removes are counted apart.
//
// Every participant of a room runs the same six queries, so each receives
// the same documents; the benchmark attaches the listeners of a sample of
// them (all of them in small rooms), counts what each receives, checks that
// they agree, and multiplies by the room's size.
package fanout

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"
	"golang.org/x/sync/errgroup"

	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// Change is one operation whose fan-out is measured.
type Change struct {
	Name string
	// Do performs the change as participant 0 of the room.
	Do func(ctx context.Context, r *Room) error
}

// Changes are the operations the report prices: the two visible changes of
// issue 20 (state, away), the way back from away, and two that must wake
// nobody's roster (a heartbeat, and typing, which wakes the typing
// listener only).
var Changes = []Change{
	{"state update", func(ctx context.Context, r *Room) error {
		r.stateN++
		_, err := r.store.SetState(ctx, presence.StateRequest{SessionRef: r.refs[0], State: presence.State{"status": fmt.Sprintf("busy %d", r.stateN)}})
		return err
	}},
	{"away toggle (tab hidden)", func(ctx context.Context, r *Room) error {
		return r.granted(r.store.HeartbeatAway(ctx, presence.AwayRequest{SessionRef: r.refs[0], Away: true}))
	}},
	{"back from away", func(ctx context.Context, r *Room) error {
		return r.granted(r.store.HeartbeatAway(ctx, presence.AwayRequest{SessionRef: r.refs[0], Away: false}))
	}},
	{"heartbeat that renews", func(ctx context.Context, r *Room) error {
		// At renewAt, as a client sends it, with its lease token.
		r.clock.Advance(r.grant.RenewAt.Sub(r.clock.Now()))
		return r.granted(r.store.Renew(ctx, r.refs[0]))
	}},
	{"typing signal", func(ctx context.Context, r *Room) error {
		return r.granted(r.store.SetTyping(ctx, r.refs[0], true))
	}},
	{"join of a new user", func(ctx context.Context, r *Room) error {
		res, err := r.store.Join(ctx, presence.JoinRequest{SessionKey: r.newcomer.SessionKey, DisplayName: "newcomer", HasDisplayName: true})
		r.newcomer.Generation = res.Session.Generation
		return err
	}},
	{"leave", func(ctx context.Context, r *Room) error {
		_, err := r.store.Leave(ctx, r.newcomer)
		return err
	}},
	{"return after a leave", func(ctx context.Context, r *Room) error {
		res, err := r.store.Join(ctx, presence.JoinRequest{SessionKey: r.newcomer.SessionKey, DisplayName: "newcomer", HasDisplayName: true})
		r.newcomer.Generation = res.Session.Generation
		return err
	}},
}

// VisibleChanges are the Changes that move the revision: each must cost a
// listener at most one read.
var VisibleChanges = map[string]bool{"state update": true, "away toggle (tab hidden)": true, "back from away": true,
	"join of a new user": true, "leave": true, "return after a leave": true}

// Result is one change measured in a room of Listeners participants.
type Result struct {
	Change    string `json:"change"`
	Listeners int    `json:"listeners"`
	// Sampled is how many participants' listeners were attached and counted.
	Sampled int `json:"sampled"`
	// WriterReads and WriterWrites are the request's own Firestore
	// operations (the store's counters).
	WriterReads  int64 `json:"writerReads"`
	WriterWrites int64 `json:"writerWrites"`
	// DocsPerListener is what each sampled participant's listeners received
	// added or changed, the documents billed as reads (the same for all of
	// them, or the run fails); RemovedPerListener what their snapshots
	// removed (deleted documents: no read).
	DocsPerListener    int64 `json:"docsPerListener"`
	RemovedPerListener int64 `json:"removedPerListener"`
	// ListenerReads is DocsPerListener × Listeners: what the room's
	// listeners pay for the change.
	ListenerReads int64 `json:"listenerReads"`
}

// CheckChanges fails unless every visible change cost each listener at
// most one read, in every room measured (issue 30's bound, asserted from
// the bench's own counts rather than read off its table).
func CheckChanges(results []Result) error {
	for _, r := range results {
		if VisibleChanges[r.Change] && r.DocsPerListener > 1 {
			return fmt.Errorf("room of %d: %s cost each listener %d reads, more than one", r.Listeners, r.Change, r.DocsPerListener)
		}
	}
	return nil
}

// Options says which rooms to build. Sample bounds the participants whose
// listeners are attached (six listen streams each).
type Options struct {
	Sizes  []int
	Sample int
	// Settle is how long a listener must stay quiet before its count is
	// read; the emulator delivers within milliseconds.
	Settle time.Duration
	Log    func(format string, args ...any)
}

// Measure builds one room per size on client's project and measures every
// change in it. Each room is a new one, so its listeners start from its
// full state and count only what the changes deliver.
func Measure(ctx context.Context, client *firestore.Client, opts Options) ([]Result, error) {
	if opts.Sample <= 0 {
		opts.Sample = 20
	}
	if opts.Settle <= 0 {
		opts.Settle = 750 * time.Millisecond
	}
	var out []Result
	for _, n := range opts.Sizes {
		room, err := newRoom(ctx, client, fmt.Sprintf("fanout-%d-%d", n, time.Now().UnixNano()), n)
		if err != nil {
			return nil, fmt.Errorf("room of %d: %w", n, err)
		}
		res, err := room.measure(ctx, min(n, opts.Sample), opts.Settle)
		room.close()
		if err != nil {
			return nil, fmt.Errorf("room of %d: %w", n, err)
		}
		if opts.Log != nil {
			for _, r := range res {
				opts.Log("fanout: %d listeners, %s: %d docs each, %d reads in all", r.Listeners, r.Change, r.DocsPerListener, r.ListenerReads)
			}
		}
		out = append(out, res...)
	}
	return out, nil
}

// Room is a room of n participants, each with one session, joined through
// the store on a clock the benchmark moves.
type Room struct {
	client   *firestore.Client
	store    *firestoredb.Store
	settings presence.Settings
	clock    *measure.StoppedClock
	id       string
	refs     []presence.SessionRef
	stateN   int
	stops    []func()
	// grant is participant 0's latest lease grant: when to renew, and the
	// token its next heartbeat carries.
	grant presence.Grant
	// newcomer is the user who joins, leaves and comes back.
	newcomer presence.SessionRef
}

// granted keeps participant 0's latest grant, as a client does.
func (r *Room) granted(g presence.Grant, err error) error {
	if err != nil {
		return err
	}
	r.grant = g
	if g.Token != "" {
		r.refs[0].Token = g.Token
	}
	return nil
}

func newRoom(ctx context.Context, client *firestore.Client, id string, n int) (*Room, error) {
	settings := presence.DefaultSettings()
	// Room for n and for the churn that large-room mode adds.
	settings.MaxParticipants = max(settings.MaxParticipants, n+1000)
	c := measure.NewStoppedClock(time.Now().UTC())
	r := &Room{client: client, settings: settings, clock: c, id: id, refs: make([]presence.SessionRef, n),
		newcomer: presence.SessionRef{SessionKey: presence.SessionKey{RoomID: id, ParticipantID: "newcomer", SessionID: "tab"}}}
	r.store = firestoredb.New(client, settings, c.Now)
	if err := measure.UseLeaseTokens(r.store); err != nil {
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i := range n {
		g.Go(func() error {
			key := presence.SessionKey{RoomID: id, ParticipantID: fmt.Sprintf("user-%04d", i), SessionID: "tab"}
			res, err := r.store.Join(gctx, presence.JoinRequest{SessionKey: key, DisplayName: key.ParticipantID, HasDisplayName: true})
			if err != nil {
				return err
			}
			r.refs[i] = presence.SessionRef{SessionKey: key, Generation: res.Session.Generation, Token: res.Grant.Token}
			if i == 0 {
				r.grant = res.Grant
			}
			return nil
		})
	}
	return r, g.Wait()
}

func (r *Room) close() {
	for _, stop := range r.stops {
		stop()
	}
}

// measure attaches sample participants' listeners, then runs each change
// and counts what every listener received once all are quiet.
func (r *Room) measure(ctx context.Context, sample int, settle time.Duration) ([]Result, error) {
	counters := make([]*listenerSet, sample)
	for i := range counters {
		ls, err := r.listen(ctx)
		if err != nil {
			return nil, err
		}
		counters[i] = ls
	}
	var out []Result
	for _, ch := range Changes {
		before, removedBefore := make([]int64, sample), make([]int64, sample)
		for i, ls := range counters {
			before[i], removedBefore[i] = ls.delivered(), ls.removed.Load()
		}
		ops := r.store.Ops()
		if err := ch.Do(ctx, r); err != nil {
			return nil, fmt.Errorf("%s: %w", ch.Name, err)
		}
		own := r.store.Ops().Sub(ops)
		quiet(counters, settle)
		var docs, removed int64 = -1, -1
		for i, ls := range counters {
			got, gone := ls.delivered()-before[i], ls.removed.Load()-removedBefore[i]
			if err := ls.failure(); err != nil {
				return nil, fmt.Errorf("%s: a listener failed: %w", ch.Name, err)
			}
			if docs >= 0 && (got != docs || gone != removed) {
				return nil, fmt.Errorf("%s: listeners disagree: %d documents and %d, %d removed and %d", ch.Name, docs, got, removed, gone)
			}
			docs, removed = got, gone
		}
		out = append(out, Result{
			Change: ch.Name, Listeners: len(r.refs), Sampled: sample,
			WriterReads: own.Reads, WriterWrites: own.Writes,
			DocsPerListener: docs, RemovedPerListener: removed, ListenerReads: docs * int64(len(r.refs)),
		})
	}
	return out, nil
}

// quiet waits until no listener has received anything for settle.
func quiet(sets []*listenerSet, settle time.Duration) {
	total := func() (n int64) {
		for _, s := range sets {
			n += s.delivered() + s.removed.Load()
		}
		return n
	}
	last, since := total(), time.Now()
	for time.Since(since) < settle {
		time.Sleep(settle / 10)
		if n := total(); n != last {
			last, since = n, time.Now()
		}
	}
}

// listenerSet is one participant's five listeners, counting the documents
// their snapshots carry after the first (the room as it was when it
// started listening): added or changed, and removed.
type listenerSet struct {
	docs    atomic.Int64
	removed atomic.Int64
	mu      sync.Mutex
	err     error
}

func (ls *listenerSet) delivered() int64 { return ls.docs.Load() }

func (ls *listenerSet) failure() error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.err
}

func (ls *listenerSet) fail(err error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.err == nil {
		ls.err = err
	}
}

// listen starts what a joined client listens to (room-listeners.js),
// through firestoredb's schema names, and returns once each listener has
// its first snapshot.
func (r *Room) listen(ctx context.Context) (*listenerSet, error) {
	ls := &listenerSet{}
	ctx, cancel := context.WithCancel(ctx)
	r.stops = append(r.stops, cancel)
	roomRef := r.client.Collection(firestoredb.RoomsCollection).Doc(r.id)
	queries := []firestore.Query{
		roomRef.Collection(firestoredb.ParticipantsCollection).Query,
		roomRef.Collection(firestoredb.RecentlyLeftCollection).Query,
		roomRef.Collection(firestoredb.TypingCollection).Query,
		roomRef.Collection(firestoredb.ReceiptsCollection).Query,
	}
	for _, q := range queries {
		it := q.Snapshots(ctx)
		if _, err := it.Next(); err != nil {
			it.Stop()
			return nil, err
		}
		go func() {
			defer it.Stop()
			for {
				snap, err := it.Next()
				if err != nil {
					if ctx.Err() == nil {
						ls.fail(err)
					}
					return
				}
				for _, ch := range snap.Changes {
					if ch.Kind == firestore.DocumentRemoved {
						ls.removed.Add(1)
					} else {
						ls.docs.Add(1)
					}
				}
			}
		}()
	}
	// The room document (the retired count is among the departure records).
	doc := roomRef.Snapshots(ctx)
	if _, err := doc.Next(); err != nil {
		doc.Stop()
		return nil, err
	}
	go func() {
		defer doc.Stop()
		for {
			snap, err := doc.Next()
			if err != nil {
				if ctx.Err() == nil {
					ls.fail(err)
				}
				return
			}
			if snap.Exists() {
				ls.docs.Add(1)
			} else {
				ls.removed.Add(1)
			}
		}
	}()
	return ls, nil
}
