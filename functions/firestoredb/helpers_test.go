package firestoredb_test

import (
	"context"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	vkit "cloud.google.com/go/firestore/apiv1"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
)

type fixture struct {
	store *firestoredb.Store
	// other is a second store on its own Firestore client with the same
	// clock: another function instance, as far as Firestore can tell.
	other  *firestoredb.Store
	clock  *testclock.Clock
	client *firestore.Client
	// project is the emulator project of this fixture, for more instances.
	project string
	ctx     context.Context
}

// MustOpenStore returns a Store on a fresh emulator project with the default
// settings and a stopped clock.
func MustOpenStore(tb testing.TB) *fixture {
	tb.Helper()
	client, project := emulatortest.Firestore(tb)
	otherClient, err := firestore.NewClient(context.Background(), project)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { otherClient.Close() })
	clock := testclock.New(testclock.Start)
	return &fixture{
		store:   withTokens(firestoredb.New(client, presence.DefaultSettings(), clock.Now)),
		other:   withTokens(firestoredb.New(otherClient, presence.DefaultSettings(), clock.Now)),
		clock:   clock,
		client:  client,
		project: project,
		ctx:     context.Background(),
	}
}

func (f *fixture) mustJoin(tb testing.TB, room, uid, session string) presence.JoinResult {
	tb.Helper()
	res, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: session}})
	if err != nil {
		tb.Fatalf("join %s/%s/%s: %v", room, uid, session, err)
	}
	return res
}

func ref(room, uid, session string, gen int64) presence.SessionRef {
	return presence.SessionRef{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: session}, Generation: gen}
}

// liveIDs reads the roster as caller and returns the listed uids, sorted.
func (f *fixture) liveIDs(tb testing.TB, room, caller string) ([]string, presence.Roster) {
	tb.Helper()
	r, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: room, CallerID: caller})
	if err != nil {
		tb.Fatalf("roster of %s as %s: %v", room, caller, err)
	}
	ids := make([]string, 0, len(r.Participants))
	for _, p := range r.Participants {
		ids = append(ids, p.ID)
	}
	sort.Strings(ids)
	return ids, r
}

// readRoom returns the stored room document's fields.
// wantCreatedOnce checks that room lists exactly uids (sorted), at a
// revision of one per join, in the one lifetime its creation opened
// (generation 1): however many joins raced to create it, it was created
// once and nobody was counted twice.
func (f *fixture) wantCreatedOnce(tb testing.TB, room string, uids ...string) {
	tb.Helper()
	ids, r := f.liveIDs(tb, room, uids[0])
	if !slices.Equal(ids, uids) || r.Revision != int64(len(uids)) {
		tb.Fatalf("roster %v at revision %d, want %v at %d", ids, r.Revision, uids, len(uids))
	}
	if gen := f.readRoom(tb, room)[firestoredb.FieldGeneration]; gen != int64(1) {
		tb.Fatalf("generation %v, want 1: the room was created once", gen)
	}
}

func (f *fixture) readRoom(tb testing.TB, room string) map[string]any {
	tb.Helper()
	snap, err := f.client.Collection(firestoredb.RoomsCollection).Doc(room).Get(f.ctx)
	if err != nil {
		tb.Fatalf("reading room %s: %v", room, err)
	}
	return snap.Data()
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("got no error, want %s", code)
	}
	if got := presence.ErrorCode(err); got != code {
		tb.Fatalf("got error %v (code %s), want code %s", err, got, code)
	}
}

// instance returns a store on a Firestore client of its own, with a clock of
// its own: another function instance, whose idea of now may differ from the
// fixture's by a few milliseconds, as real instances' clocks and request
// times do.
func (f *fixture) instance(tb testing.TB, now func() time.Time) *firestoredb.Store {
	tb.Helper()
	client, err := firestore.NewClient(context.Background(), f.project)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	return withTokens(firestoredb.New(client, presence.DefaultSettings(), now))
}

// testTokenKey is the lease token key every test store shares, as every
// instance of a deployment does.
var testTokenKey = []byte("a lease token key for tests only, 32+ bytes")

// withTokens makes s issue and honour lease tokens signed with
// testTokenKey.
func withTokens(s *firestoredb.Store) *firestoredb.Store {
	signer, err := leasetoken.NewSigner(testTokenKey)
	if err != nil {
		panic(err)
	}
	s.UseLeaseTokens(signer)
	s.ReadAggregationsWith(sharedAggregations())
	if emulatortest.LeasesByShard() {
		s.ListLeasesByShard()
	}
	return s
}

// sharedAggregations is the generated client every test store reads its
// claims' snapshots through, as every store of a deployment does
// (functions/app): one for the test binary, since its requests name their
// project.
var sharedAggregations = sync.OnceValue(func() *vkit.Client {
	c, err := firestoredb.DialAggregations(context.Background())
	if err != nil {
		panic(err)
	}
	return c
})

// withToken returns r carrying token.
func withToken(r presence.SessionRef, token string) presence.SessionRef {
	r.Token = token
	return r
}

// fixedClock returns a clock that always reads t.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// errOf is the error of a call that also returns a value the test ignores.
func errOf[T any](_ T, err error) error { return err }

// setClock moves the fixture's clock to t.
func (f *fixture) setClock(t time.Time) { f.clock.Advance(t.Sub(f.clock.Now())) }

// instanceDied is what instanceDies panics with: a request that ends where
// it stands, as on an instance that dies (killed, scaled in), with nothing
// after that point run.
type instanceDied struct{}

// instanceDies, installed as a hook, ends the request there. Only for
// hooks outside a transaction (the emptiness check's), where nothing is
// held that a dead instance would leave locked.
func instanceDies() { panic(instanceDied{}) }

// diesDuring runs f and reports whether its instance died (instanceDies).
func diesDuring(f func()) (died bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(instanceDied); !ok {
				panic(r)
			}
			died = true
		}
	}()
	f()
	return false
}
