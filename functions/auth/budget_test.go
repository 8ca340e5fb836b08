package auth_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	fbauth "firebase.google.com/go/v4/auth"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
	"github.com/roomlease/roomlease/internal/testlog"
)

// budgetFixture is a Verifier whose tokens are their own uid and whose
// lookups are counted and always answer "an ordinary user": what is under
// test is only how many lookups are made, and who is refused.
type budgetFixture struct {
	v       *auth.Verifier
	clock   *testclock.Clock
	lookups atomic.Int32
	logs    *testlog.Buffer
}

func newBudgetFixture(t *testing.T, rate float64, burst int) *budgetFixture {
	t.Helper()
	f := &budgetFixture{clock: testclock.New(testclock.Start), logs: &testlog.Buffer{}}
	decode := func(_ context.Context, token string) (*fbauth.Token, error) {
		return &fbauth.Token{UID: token, IssuedAt: f.clock.Now().Unix()}, nil
	}
	lookup := func(_ context.Context, uid string) (*fbauth.UserRecord, error) {
		f.lookups.Add(1)
		return &fbauth.UserRecord{UserInfo: &fbauth.UserInfo{UID: uid}}, nil
	}
	var err error
	f.v, err = auth.NewVerifierWith(decode, lookup, auth.Options{CheckEvery: every, Now: f.clock.Now,
		LookupRate: rate, LookupBurst: burst, Logger: logging.New(f.logs, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// flood presents n uids the instance has never seen and returns how many
// were refused with ERateLimited; it fails on any other outcome.
func (f *budgetFixture) flood(t *testing.T, round, n int) (refused int, retryAfter time.Duration) {
	t.Helper()
	for i := range n {
		_, err := f.v.VerifyIDToken(context.Background(), fmt.Sprintf("minted-%d-%d", round, i))
		switch code := presence.ErrorCode(err); {
		case err == nil:
		case code == presence.ERateLimited:
			refused++
			var e *presence.Error
			if !errors.As(err, &e) || e.RetryAfter <= 0 {
				t.Fatalf("a refusal without a wait: %v", err)
			}
			retryAfter = e.RetryAfter
		default:
			t.Fatalf("minted uid %d: %v", i, err)
		}
	}
	return refused, retryAfter
}

// A client minting uids cannot spend more lookups than the budget, and a
// user the instance knows keeps being served: their refreshes take from a
// reserve new uids cannot reach, and once even that is spent their last
// answer is served.
func TestVerifier_LookupBudget(t *testing.T) {
	// Burst 4 (2 for new uids, 2 more for refreshes), refilled at one
	// lookup every 100 s: over this test, the burst is all there is.
	f := newBudgetFixture(t, 0.01, 4)
	known := func(when string) {
		t.Helper()
		if who, err := f.v.VerifyIDToken(context.Background(), "ada"); err != nil || who.UID != "ada" {
			t.Fatalf("%s: the known user got %q, %v", when, who.UID, err)
		}
	}
	known("first request") // a lookup: 3 left

	refused, wait := f.flood(t, 1, 100)
	if refused != 99 || f.lookups.Load() != 2 {
		t.Fatalf("100 minted uids: %d refused, %d lookups in all; want 99 refused and 2 lookups (1 for ada, 1 minted)", refused, f.lookups.Load())
	}
	// 2 left, a new uid needs 3: one more lookup, at 0.01 a second.
	if wait < 99*time.Second || wait > 100*time.Second {
		t.Errorf("Retry-After %v, want about 100 s", wait)
	}
	known("within the period")

	f.clock.Advance(every) // ada's answer is due for a refresh
	known("refreshed from the reserve")
	if n := f.lookups.Load(); n != 3 {
		t.Fatalf("lookups = %d, want 3: the refresh should have taken from the reserve", n)
	}
	if refused, _ := f.flood(t, 2, 100); refused != 100 || f.lookups.Load() != 3 {
		t.Fatalf("minted uids against the reserve: %d refused, %d lookups; want all refused, no lookup", refused, f.lookups.Load())
	}

	f.clock.Advance(every)
	known("the reserve's last lookup") // 1.6 left: the last one
	f.clock.Advance(every)
	known("served from the last answer") // 0.9 left: no lookup
	if n := f.lookups.Load(); n != 4 {
		t.Fatalf("lookups = %d, want 4", n)
	}
	// 90 s of test clock: one warning at the first refusal, one a minute
	// later with the counts since, not one per refused request.
	warned := f.logs.Lines(t, map[string]any{"message": "user lookup budget spent", "severity": "WARNING"})
	if len(warned) != 2 || warned[0]["refused"] != 1.0 || warned[1]["refused"] != 198.0 || warned[1]["servedLastAnswer"] != 1.0 {
		t.Fatalf("budget warnings %v, want two: 1 refused, then 198 refused and 1 served from a last answer", warned)
	}
}

func TestNewVerifier_RefusesABudgetThatAdmitsNothing(t *testing.T) {
	noop := func(context.Context, string) (*fbauth.Token, error) { return nil, nil }
	lookup := func(context.Context, string) (*fbauth.UserRecord, error) { return nil, nil }
	for _, o := range []auth.Options{{LookupRate: -1}, {LookupBurst: -1}} {
		if _, err := auth.NewVerifierWith(noop, lookup, o); err == nil {
			t.Errorf("%+v was accepted", o)
		}
	}
}
