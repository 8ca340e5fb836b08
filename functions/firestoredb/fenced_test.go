package firestoredb_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// Renewals fenced without a read (docs/races.md, "Renewals fenced without
// a read"): what they cost, and that no token changes an answer.

// renew heartbeats r with token on store and fails the test on an error.
func renew(t *testing.T, f *fixture, store *firestoredb.Store, r presence.SessionRef, token string) presence.Grant {
	t.Helper()
	g, err := store.Renew(f.ctx, withToken(r, token))
	if err != nil {
		t.Fatalf("heartbeat of %s gen %d: %v", r.SessionID, r.Generation, err)
	}
	return g
}

// A client that heartbeats at renewAt with its token pays one write and no
// read per renewal; without the token, one read and one write (the counts
// in docs/data-model.md).
func TestFenced_ARenewalWithATokenCostsOneWriteAndNoRead(t *testing.T) {
	for _, tc := range []struct {
		name      string
		withToken bool
		want      firestoredb.OpCounts
	}{
		{"WithToken", true, firestoredb.OpCounts{Reads: 0, Writes: 1}},
		{"WithoutToken", false, firestoredb.OpCounts{Reads: 1, Writes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := MustOpenStore(t)
			j := f.mustJoin(t, "cost", "alice", "tab")
			if j.Grant.Token == "" || !j.Grant.RenewAt.Equal(j.Session.LeaseExpiresAt.Add(-5*time.Second)) {
				t.Fatalf("join grant %+v: want a token and renewAt 5 s before the lease end", j.Grant)
			}
			r := ref("cost", "alice", "tab", j.Session.Generation)
			g := j.Grant
			token := func() string {
				if tc.withToken {
					return g.Token
				}
				return ""
			}
			// The first heartbeat also reads the room's policy, once per
			// instance and minute.
			f.setClock(g.RenewAt)
			g = renew(t, f, f.store, r, token())
			for range 5 {
				f.setClock(g.RenewAt)
				before := f.store.Ops()
				next := renew(t, f, f.store, r, token())
				if got := f.store.Ops().Sub(before); got != tc.want {
					t.Fatalf("a heartbeat at renewAt cost %+v, want %+v", got, tc.want)
				}
				if !next.LeaseExpiresAt.Equal(f.clock.Now().Add(15*time.Second)) || !next.RenewAt.Equal(f.clock.Now().Add(10*time.Second)) {
					t.Fatalf("renewed to %v, renew at %v; want a lease from now and renewAt 10 s on", next.LeaseExpiresAt, next.RenewAt)
				}
				if next.Token == "" || next.Token == g.Token {
					t.Fatal("a renewal answered no fresh token")
				}
				g = next
			}
		})
	}
}

// A heartbeat that comes early, token or not, is answered as before: one
// read, no write, the lease as it stands, and a token that still serves
// the renewal when it is due.
func TestFenced_AnEarlyHeartbeatReadsAndWritesNothing(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "early", "alice", "tab")
	r := ref("early", "alice", "tab", j.Session.Generation)
	renew(t, f, f.store, r, "") // warms the policy cache
	f.clock.Advance(time.Second)
	before := f.store.Ops()
	g := renew(t, f, f.store, r, j.Grant.Token)
	if got := f.store.Ops().Sub(before); got != (firestoredb.OpCounts{Reads: 1}) {
		t.Fatalf("an early heartbeat cost %+v, want one read", got)
	}
	if !g.LeaseExpiresAt.Equal(j.Session.LeaseExpiresAt) || g.Token == "" {
		t.Fatalf("early answer %+v, want the joined lease end and a token", g)
	}
	f.setClock(g.RenewAt)
	before = f.store.Ops()
	renew(t, f, f.store, r, g.Token)
	if got := f.store.Ops().Sub(before); got != (firestoredb.OpCounts{Writes: 1}) {
		t.Fatalf("the renewal with the early answer's token cost %+v, want one write", got)
	}
}

// sessionUpdateTime is the stored session's update time: what a forger
// would have to guess.
func sessionUpdateTime(t *testing.T, f *fixture, room, uid, session string) time.Time {
	t.Helper()
	snap, err := f.client.Doc("rooms/" + room + "/participants/" + uid + "/sessions/" + session).Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return snap.UpdateTime
}

// A token the server did not sign for this session is ignored: the read
// path answers. Here the lease has ended (not yet swept), and the forged
// token claims it runs on, with the session's true update time, so that
// the write's condition would hold: only the signature stands between the
// claim and a revived lease, which the control case shows.
func TestFenced_AForgedTokenDoesNotRenew(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "forge", "alice", "tab")
	r := ref("forge", "alice", "tab", j.Session.Generation)
	f.setClock(j.Session.LeaseExpiresAt.Add(time.Second))
	doc := "projects/" + f.project + "/databases/(default)/documents/rooms/forge/participants/alice/sessions/tab"
	claims := leasetoken.Claims{Generation: j.Session.Generation, LeaseExpiresAt: f.clock.Now().Add(time.Second),
		UpdateTime: sessionUpdateTime(t, f, "forge", "alice", "tab"), RefreshAt: f.clock.Now().Add(29 * 24 * time.Hour)}
	otherKey, _ := leasetoken.NewSigner([]byte("not the deployment's key, but 32 bytes long"))
	tampered := []byte(j.Grant.Token)
	tampered[20] ^= 2
	for name, token := range map[string]string{
		"SignedWithAnotherKey": otherKey.Sign(doc, claims),
		"Tampered":             string(tampered),
		"ForAnotherSession":    f.mustJoin(t, "forge", "bob", "tab").Grant.Token,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := f.store.Renew(f.ctx, withToken(r, token))
			wantCode(t, err, presence.EStaleGeneration)
		})
	}
	t.Run("ControlSignedWithTheKey", func(t *testing.T) {
		// The same claims, signed with the deployment's key, pass: were
		// tokens not signed, a client could revive its ended lease.
		right, _ := leasetoken.NewSigner(testTokenKey)
		if _, err := f.store.Renew(f.ctx, withToken(r, right.Sign(doc, claims))); err != nil {
			t.Fatalf("the control token was refused (%v): the forged cases prove nothing", err)
		}
	})
}

// A token already used (replayed: a retried request, a copy) finds the
// session changed since: the condition fails, nothing is written by it,
// and the read path answers what it would without a token.
func TestFenced_AReplayedTokenTakesTheReadPath(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "replay", "alice", "tab")
	r := ref("replay", "alice", "tab", j.Session.Generation)
	f.setClock(j.Grant.RenewAt)
	g := renew(t, f, f.store, r, j.Grant.Token)

	before := f.store.Ops()
	again := renew(t, f, f.store, r, j.Grant.Token)
	if got := f.store.Ops().Sub(before); got != (firestoredb.OpCounts{Reads: 1}) {
		t.Fatalf("the replay cost %+v, want one read (the read path, renewal not due)", got)
	}
	if !again.LeaseExpiresAt.Equal(g.LeaseExpiresAt) {
		t.Fatalf("the replay moved the lease to %v from %v", again.LeaseExpiresAt, g.LeaseExpiresAt)
	}

	// After a leave, neither the old token nor the newest renews.
	if _, err := f.store.Leave(f.ctx, r); err != nil {
		t.Fatal(err)
	}
	f.setClock(g.RenewAt)
	for _, token := range []string{j.Grant.Token, g.Token} {
		_, err := f.store.Renew(f.ctx, withToken(r, token))
		wantCode(t, err, presence.EStaleGeneration)
	}
}

// A stale token: the session was joined again (a new generation). The
// old generation's heartbeat is refused at once, with a lease still
// running; the new generation's, sent with the old token (a client that
// kept the wrong one), takes the read path and is served.
func TestFenced_AStaleTokenAfterARejoin(t *testing.T) {
	f := MustOpenStore(t)
	a := f.mustJoin(t, "stale", "alice", "tab")
	f.clock.Advance(time.Second)
	b := f.mustJoin(t, "stale", "alice", "tab")
	f.setClock(a.Grant.RenewAt)
	before := emulatortest.Snapshot(t, f.client)
	_, err := f.store.Renew(f.ctx, withToken(ref("stale", "alice", "tab", a.Session.Generation), a.Grant.Token))
	wantCode(t, err, presence.EStaleGeneration)
	if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
		t.Fatalf("the superseded generation's heartbeat wrote %v", changed)
	}
	f.setClock(b.Grant.RenewAt)
	g := renew(t, f, f.store, ref("stale", "alice", "tab", b.Session.Generation), a.Grant.Token)
	if !g.LeaseExpiresAt.Equal(f.clock.Now().Add(15 * time.Second)) {
		t.Fatalf("the new generation's heartbeat answered %v", g.LeaseExpiresAt)
	}
}

// The sweeper's expiry against a fenced renewal, each order forced: the
// renewal just before the lease's end on one instance's clock, the expiry
// just after it on the sweeper's. Either the renewal commits first (the
// expiry then finds a live lease: Conflict) or the expiry does (the
// renewal's condition fails and the read path answers 409). And with the
// renewal sent while the expiry holds its read of the session (from inside
// the expiry's attempt, on another client): Firestore makes the write wait
// for the expiry's lock (the emulator aborts it after about 2 s, the read
// path then waits too, and the request ends unanswered); whatever it lets
// win, a 200 means the session is there with that lease.
func TestFenced_RenewalAgainstTheSweepersExpiry(t *testing.T) {
	setup := func(t *testing.T) (*fixture, presence.JoinResult, *firestoredb.Store, presence.ExpiryCandidate) {
		f := MustOpenStore(t)
		j := f.mustJoin(t, "sweep", "alice", "tab")
		edge := j.Session.LeaseExpiresAt
		f.setClock(edge.Add(time.Millisecond))
		c := presence.ExpiryCandidate{RoomID: "sweep", ParticipantID: "alice", SessionID: "tab",
			Generation: j.Session.Generation, LeaseExpiresAt: edge}
		return f, j, f.instance(t, fixedClock(edge.Add(-time.Millisecond))), c
	}
	r := func(j presence.JoinResult) presence.SessionRef {
		return withToken(ref("sweep", "alice", "tab", j.Session.Generation), j.Grant.Token)
	}
	t.Run("RenewalFirst", func(t *testing.T) {
		f, j, hb, c := setup(t)
		before := hb.Ops()
		if _, err := hb.Renew(f.ctx, r(j)); err != nil {
			t.Fatal(err)
		}
		if got := hb.Ops().Sub(before); got.Writes != 1 || got.Reads != 1 { // the policy, first on this instance
			t.Fatalf("the renewal cost %+v: not the fenced path", got)
		}
		res, err := f.store.ExpireSession(f.ctx, c)
		if err != nil || res.Outcome != presence.Conflict {
			t.Fatalf("expiry after the renewal: %v, %v; want Conflict", res.Outcome, err)
		}
	})
	t.Run("ExpiryFirst", func(t *testing.T) {
		f, j, hb, c := setup(t)
		if res, err := f.store.ExpireSession(f.ctx, c); err != nil || res.Outcome != presence.Done {
			t.Fatalf("expiry: %v, %v", res.Outcome, err)
		}
		_, err := hb.Renew(f.ctx, r(j))
		wantCode(t, err, presence.EStaleGeneration)
	})
	t.Run("RenewalWhileTheExpiryHoldsItsRead", func(t *testing.T) {
		f, j, hb, c := setup(t)
		var hbErr error
		var g presence.Grant
		var ran atomic.Bool
		f.store.SetAfterDepartureReads(func() {
			if ran.CompareAndSwap(false, true) {
				ctx, cancel := context.WithTimeout(f.ctx, 3*time.Second)
				defer cancel()
				g, hbErr = hb.Renew(ctx, r(j))
			}
		})
		res, err := f.store.ExpireSession(f.ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if !ran.Load() {
			t.Fatal("the expiry never reached its hook: the interleaving was not forced")
		}
		snap, getErr := f.client.Doc("rooms/sweep/participants/alice/sessions/tab").Get(f.ctx)
		switch {
		case hbErr == nil && (getErr != nil || !snap.Data()[firestoredb.FieldLeaseExpiresAt].(time.Time).Equal(g.LeaseExpiresAt)):
			t.Fatalf("the renewal answered 200 (lease to %v) but the session is %v (expiry %v)", g.LeaseExpiresAt, getErr, res.Outcome)
		case hbErr == nil && res.Outcome != presence.Conflict:
			t.Fatalf("both won: renewal 200 and expiry %v", res.Outcome)
		case hbErr != nil && presence.ErrorCode(hbErr) != presence.EStaleGeneration && presence.ErrorCode(hbErr) != presence.EUnavailable:
			t.Fatalf("the renewal: %v", hbErr)
		case hbErr != nil && res.Outcome != presence.Done:
			t.Fatalf("the renewal was refused but the expiry says %v", res.Outcome)
		}
		t.Logf("renewal: %v; expiry: %v", hbErr, res.Outcome)
	})
}

// A rejoin and a leave against a fenced renewal: the token of the
// generation before either is refused at once (409), lease or not.
func TestFenced_RenewalAfterALeave(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "gone", "alice", "tab")
	f.mustJoin(t, "gone", "host", "tab")
	r := withToken(ref("gone", "alice", "tab", j.Session.Generation), j.Grant.Token)
	if _, err := f.other.Leave(f.ctx, r); err != nil {
		t.Fatal(err)
	}
	f.setClock(j.Grant.RenewAt)
	_, err := f.store.Renew(f.ctx, r)
	wantCode(t, err, presence.EStaleGeneration)
}

// Typing with a token reads the roster entry only, and commits the signal
// with a renewal of the session: the answer carries the renewed lease and
// a fresh token. Without a token, or with a superseded one, it is today's
// read path and today's answers.
func TestFenced_TypingWithATokenReadsNoSession(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "type", "alice", "tab")
	r := ref("type", "alice", "tab", j.Session.Generation)
	renew(t, f, f.store, r, "") // warms the policy cache
	f.clock.Advance(2 * time.Second)
	before := f.store.Ops()
	g, err := f.store.SetTyping(f.ctx, withToken(r, j.Grant.Token), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.store.Ops().Sub(before); got != (firestoredb.OpCounts{Reads: 1, Writes: 2}) {
		t.Fatalf("fenced typing cost %+v, want the entry read and two writes", got)
	}
	if !g.LeaseExpiresAt.Equal(f.clock.Now().Add(15*time.Second)) || g.Token == "" {
		t.Fatalf("fenced typing answered %+v, want a renewed lease and a token", g)
	}
	// The answer's token serves the next renewal without a read.
	f.setClock(g.RenewAt)
	before = f.store.Ops()
	renew(t, f, f.store, r, g.Token)
	if got := f.store.Ops().Sub(before); got != (firestoredb.OpCounts{Writes: 1}) {
		t.Fatalf("the renewal after typing cost %+v", got)
	}

	before = f.store.Ops()
	if _, err := f.store.SetTyping(f.ctx, r, false); err != nil {
		t.Fatal(err)
	}
	if got := f.store.Ops().Sub(before); got != (firestoredb.OpCounts{Reads: 2, Writes: 1}) {
		t.Fatalf("typing without a token cost %+v, want today's two reads and one write", got)
	}

	// A rejoin supersedes the generation: its typing, token or not, is
	// refused and writes nothing.
	f.mustJoin(t, "type", "alice", "tab")
	snap := emulatortest.Snapshot(t, f.client)
	wantCode(t, errOf(f.store.SetTyping(f.ctx, withToken(r, g.Token), true)), presence.EStaleGeneration)
	if changed := emulatortest.Changed(snap, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
		t.Fatalf("refused typing wrote %v", changed)
	}
}

// A participant-hour, counted by the store's op counters: one join,
// heartbeats for an hour as the client schedules them, one leave, alone in
// a room on one instance. Before: heartbeats every 5 s, renewal when half
// the lease is left, the policy kept 10 s, no token. After: heartbeats at
// renewAt with the lease token, the policy kept two minutes. The figures are
// logged for docs/data-model.md; the assertions pin what the design
// promises: one write per renewal, and no session read on the fast path.
func TestFenced_AParticipantHour(t *testing.T) {
	before := presence.DefaultSettings()
	before.RenewWhenLeft, before.PolicyCache = 0.5, 10*time.Second
	for _, tc := range []struct {
		name       string
		settings   presence.Settings
		tokens     bool
		wantWrites int64 // heartbeats' writes
	}{
		{"Before", before, false, 360},
		{"AfterWithoutAKey", presence.DefaultSettings(), false, 360},
		{"AfterWithAKey", presence.DefaultSettings(), true, 360},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := MustOpenStore(t)
			store := firestoredb.New(f.client, tc.settings, f.clock.Now)
			if tc.tokens {
				withTokens(store)
			}
			start := store.Ops()
			j, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "hour", ParticipantID: "alice", SessionID: "tab"}})
			if err != nil {
				t.Fatal(err)
			}
			joined := store.Ops()
			r := ref("hour", "alice", "tab", j.Session.Generation)
			g, requests := j.Grant, 0
			end := f.clock.Now().Add(time.Hour)
			for f.clock.Now().Before(end) {
				if tc.name == "Before" {
					f.clock.Advance(tc.settings.Heartbeat) // the old client: every interval
				} else {
					f.setClock(g.RenewAt)
				}
				if g, err = store.Renew(f.ctx, withToken(r, g.Token)); err != nil {
					t.Fatal(err)
				}
				requests++
			}
			beats := store.Ops().Sub(joined)
			if _, err := store.Leave(f.ctx, r); err != nil {
				t.Fatal(err)
			}
			hour := store.Ops().Sub(start)
			t.Logf("%s: %d heartbeat requests: %d reads, %d writes; the hour with join and leave: %d reads, %d writes",
				tc.name, requests, beats.Reads, beats.Writes, hour.Reads, hour.Writes)
			if beats.Writes != tc.wantWrites {
				t.Errorf("heartbeats wrote %d times, want %d", beats.Writes, tc.wantWrites)
			}
			policyReads := int64(time.Hour / tc.settings.PolicyCache)
			if tc.tokens && beats.Reads > policyReads+1 {
				t.Errorf("fenced heartbeats read %d documents, want only the policy (%d)", beats.Reads, policyReads)
			}
		})
	}
}
