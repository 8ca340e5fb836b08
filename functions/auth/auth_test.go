package auth_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	firebase "firebase.google.com/go/v4"
	fbauth "firebase.google.com/go/v4/auth"
	"google.golang.org/api/option"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
)

const every = 30 * time.Second

// fixture is a Verifier whose user lookups go to the Auth emulator, counted,
// and can be made to fail.
//
// The token half is the Admin SDK's VerifyIDToken, but taken once per token,
// before the test changes the user (tokens). In production that half is
// local work and never looks at the user; in emulator mode the SDK looks
// the user up on every call and refuses a disabled user or a revoked token
// by itself, which would hide whether the check under test works. So the
// user half, the one these tests are about, is the only one that sees the
// changes.
type fixture struct {
	admin   *fbauth.Client
	clock   *testclock.Clock
	v       *auth.Verifier
	lookups atomic.Int32
	failing atomic.Bool

	mu     sync.Mutex
	tokens map[string]*fbauth.Token
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	emulatortest.AuthHost(t)
	ctx := context.Background()
	app, err := firebase.NewApp(ctx, &firebase.Config{ProjectID: emulatortest.AuthProjectID()}, option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	admin, err := app.Auth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{admin: admin, clock: testclock.New(testclock.Start), tokens: map[string]*fbauth.Token{}}
	lookup := func(ctx context.Context, uid string) (*fbauth.UserRecord, error) {
		f.lookups.Add(1)
		if f.failing.Load() {
			return nil, errors.New("Firebase Auth unreachable (injected)")
		}
		return admin.GetUser(ctx, uid)
	}
	decode := func(ctx context.Context, token string) (*fbauth.Token, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if tok, ok := f.tokens[token]; ok {
			return tok, nil
		}
		tok, err := admin.VerifyIDToken(ctx, token)
		if err == nil {
			f.tokens[token] = tok
		}
		return tok, err
	}
	f.v, err = auth.NewVerifierWith(decode, lookup, auth.Options{CheckEvery: every, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// signUp creates a user and has its token's half verified while the user is
// untouched.
func (f *fixture) signUp(t *testing.T) emulatortest.User {
	t.Helper()
	u := emulatortest.SignUp(t)
	if _, err := f.v.VerifyIDToken(context.Background(), u.IDToken); err != nil {
		t.Fatalf("a fresh user's token was refused: %v", err)
	}
	return u
}

// issuedAt registers a token of uid issued at the given second, as the token
// half would decode it, and returns its name.
func (f *fixture) issuedAt(uid string, sec int64) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := uid + "@" + time.Unix(sec, 0).UTC().Format(time.RFC3339)
	f.tokens[name] = &fbauth.Token{UID: uid, IssuedAt: sec}
	return name
}

func (f *fixture) verify(token string) (string, error) {
	who, err := f.v.VerifyIDToken(context.Background(), token)
	return who.UID, err
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if presence.ErrorCode(err) != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func TestVerifier_DisabledUserRefusedOnceTheCheckExpires(t *testing.T) {
	f := newFixture(t)
	u := f.signUp(t)
	if _, err := f.admin.UpdateUser(context.Background(), u.UID, (&fbauth.UserToUpdate{}).Disabled(true)); err != nil {
		t.Fatal(err)
	}
	// Within the period, the instance still trusts its last lookup: the
	// bound on how long a disabled user keeps working.
	f.clock.Advance(every - time.Millisecond)
	if uid, err := f.verify(u.IDToken); err != nil || uid != u.UID {
		t.Fatalf("within the period: %q, %v; want the cached answer", uid, err)
	}
	f.clock.Advance(time.Millisecond)
	_, err := f.verify(u.IDToken)
	wantCode(t, err, presence.EUnauthenticated)
	_, err = f.verify(u.IDToken)
	wantCode(t, err, presence.EUnauthenticated)
	if n := f.lookups.Load(); n != 2 {
		t.Errorf("lookups = %d, want 2 (one per period)", n)
	}
}

// A revocation refuses every token issued in an earlier second. Firebase
// keeps both times to the second, so a token of the revocation's own second
// may predate it; it is accepted, as the Admin SDK accepts it (see judge).
func TestVerifier_RevokedTokenRefused(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.signUp(t)
	if err := f.admin.RevokeRefreshTokens(ctx, u.UID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(every)
	rec, err := f.admin.GetUser(ctx, u.UID)
	if err != nil {
		t.Fatal(err)
	}
	revokedAt := rec.TokensValidAfterMillis / 1000
	if revokedAt == 0 {
		t.Fatal("the revocation set no validSince")
	}

	_, err = f.verify(f.issuedAt(u.UID, revokedAt-1))
	wantCode(t, err, presence.EUnauthenticated)
	for _, sec := range []int64{revokedAt, revokedAt + 1} {
		if uid, err := f.verify(f.issuedAt(u.UID, sec)); err != nil || uid != u.UID {
			t.Fatalf("a token of second %d (revoked at %d): %q, %v; want it accepted", sec, revokedAt, uid, err)
		}
	}
	// The sign-up's own token, issued before the revocation call: refused
	// unless the two fell into the same second.
	_, err = f.verify(u.IDToken)
	if iat := emulatortest.IssuedAt(t, u.IDToken); iat < revokedAt {
		wantCode(t, err, presence.EUnauthenticated)
	} else if err != nil {
		t.Fatalf("a token of the revocation's own second: %v; want it accepted", err)
	}
}

// Firebase sets validSince when an email account is created and when its
// password changes, to the second of the token that call returns. That token
// must work at once and for its whole hour: a check that refused the
// validSince second itself refused every new account's first token.
func TestVerifier_SignUpAndPasswordChangeTokensAccepted(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	email := fmt.Sprintf("ada-%d@example.com", time.Now().UnixNano())
	u := emulatortest.SignUpWithEmail(t, email, "first-secret")
	rec, err := f.admin.GetUser(ctx, u.UID)
	if err != nil {
		t.Fatal(err)
	}
	// The case under test: without this the sign-up set no validSince and
	// the assertions below would pass whatever the check does.
	if iat := emulatortest.IssuedAt(t, u.IDToken); rec.TokensValidAfterMillis != iat*1000 {
		t.Fatalf("validSince %d ms, token issued at %d s: the sign-up no longer sets validSince to its token's second",
			rec.TokensValidAfterMillis, iat)
	}
	if uid, err := f.verify(u.IDToken); err != nil || uid != u.UID {
		t.Fatalf("the sign-up's own token: %q, %v; want it accepted", uid, err)
	}
	f.clock.Advance(every - time.Millisecond)
	if _, err := f.verify(u.IDToken); err != nil {
		t.Fatalf("the sign-up's token later on: %v", err)
	}

	changed := emulatortest.ChangePassword(t, u.IDToken, "second-secret")
	f.clock.Advance(every) // the check looks the user up again
	if uid, err := f.verify(changed.IDToken); err != nil || uid != u.UID {
		t.Fatalf("the token the password change returned: %q, %v; want it accepted", uid, err)
	}
	// The older token is now refused, unless it fell into the change's
	// own second.
	rec, err = f.admin.GetUser(ctx, u.UID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.verify(u.IDToken)
	if emulatortest.IssuedAt(t, u.IDToken)*1000 < rec.TokensValidAfterMillis {
		wantCode(t, err, presence.EUnauthenticated)
	} else if err != nil {
		t.Fatalf("a token of the password change's own second: %v; want it accepted", err)
	}
	if n := f.lookups.Load(); n != 2 {
		t.Errorf("lookups = %d, want 2 (one per period)", n)
	}
}

func TestVerifier_DeletedUserRefused(t *testing.T) {
	f := newFixture(t)
	u := f.signUp(t)
	if err := f.admin.DeleteUser(context.Background(), u.UID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(every)
	_, err := f.verify(u.IDToken)
	wantCode(t, err, presence.EUnauthenticated)
}

func TestVerifier_UntouchedUserCostsOneLookupPerPeriod(t *testing.T) {
	f := newFixture(t)
	u := f.signUp(t) // the first lookup, at the start of period 0
	const periods, perPeriod = 10, 20
	for i := 1; i < periods*perPeriod; i++ {
		f.clock.Advance(every / perPeriod)
		if _, err := f.verify(u.IDToken); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if n := f.lookups.Load(); n != periods {
		t.Errorf("%d requests over %d periods cost %d lookups, want %d", periods*perPeriod, periods, n, periods)
	}

	// A burst when the answer has just gone stale: one lookup, shared.
	f.clock.Advance(every)
	before := f.lookups.Load()
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := f.verify(u.IDToken); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := f.lookups.Load() - before; n != 1 {
		t.Errorf("a burst of 50 requests cost %d lookups, want 1", n)
	}
}

func TestVerifier_FailedLookupIsNotKeptAsSuccess(t *testing.T) {
	t.Run("no answer yet: 503, and no lookup per request", func(t *testing.T) {
		f := newFixture(t)
		u := emulatortest.SignUp(t)
		f.failing.Store(true)
		_, err := f.verify(u.IDToken)
		wantCode(t, err, presence.EUnavailable)
		_, err = f.verify(u.IDToken)
		wantCode(t, err, presence.EUnavailable)
		if n := f.lookups.Load(); n != 1 {
			t.Errorf("lookups = %d, want 1: a failure pauses lookups of that user for %v", n, auth.RetryPause)
		}
		f.failing.Store(false)
		f.clock.Advance(auth.RetryPause)
		if _, err := f.verify(u.IDToken); err != nil {
			t.Fatalf("after the outage: %v", err)
		}
		if n := f.lookups.Load(); n != 2 {
			t.Errorf("lookups = %d, want 2", n)
		}
	})
	t.Run("a last good answer is served until it is StaleLimit old", func(t *testing.T) {
		f := newFixture(t)
		u := f.signUp(t)
		f.failing.Store(true)
		f.clock.Advance(every)
		if _, err := f.verify(u.IDToken); err != nil {
			t.Fatalf("with a recent good answer: %v", err)
		}
		f.clock.Advance(auth.StaleLimit - every - time.Millisecond)
		if _, err := f.verify(u.IDToken); err != nil {
			t.Fatalf("just before StaleLimit: %v", err)
		}
		f.clock.Advance(time.Millisecond)
		_, err := f.verify(u.IDToken)
		wantCode(t, err, presence.EUnavailable)
	})
	t.Run("a disabled user stays refused while lookups fail", func(t *testing.T) {
		f := newFixture(t)
		u := f.signUp(t)
		if _, err := f.admin.UpdateUser(context.Background(), u.UID, (&fbauth.UserToUpdate{}).Disabled(true)); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(every)
		_, err := f.verify(u.IDToken)
		wantCode(t, err, presence.EUnauthenticated)
		f.failing.Store(true)
		f.clock.Advance(every)
		_, err = f.verify(u.IDToken)
		wantCode(t, err, presence.EUnauthenticated)
	})
}

func TestNewVerifier_RefusesAPeriodAboveAMinute(t *testing.T) {
	noop := func(context.Context, string) (*fbauth.Token, error) { return nil, nil }
	lookup := func(context.Context, string) (*fbauth.UserRecord, error) { return nil, nil }
	if _, err := auth.NewVerifierWith(noop, lookup, auth.Options{CheckEvery: auth.MaxCheckEvery + time.Second}); err == nil {
		t.Error("a period above MaxCheckEvery was accepted")
	}
}
