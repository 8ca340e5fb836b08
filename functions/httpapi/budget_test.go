package httpapi_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/ratelimit"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
)

// Anonymous uids are free, and each new one costs the instance a lookup at
// Firebase Auth. Many fresh uids spend the instance's lookup budget and are
// refused, 429 with Retry-After, writing nothing; users the instance knows
// keep working, refreshed from the part of the budget new uids cannot
// reach, then served from their last answer.
func TestAPI_LookupBudgetRefusesNewUidsNotKnownUsers(t *testing.T) {
	clock := testclock.New(time.Now())
	// Burst 4, half of it kept for refreshes; one more lookup every 100 s.
	f, logs := mustOpenGuardedAPIWith(t, auth.Options{Now: clock.Now, LookupRate: 0.01, LookupBurst: 4}, func(*httpapi.Options) {})
	ada, bob := emulatortest.SignUp(t), emulatortest.SignUp(t)
	adaSess, bobSess := f.joinAt(t, "budget", ada), f.joinAt(t, "budget", bob) // 2 lookups, 2 left

	minted := func(round int) {
		t.Helper()
		for i := range 10 {
			room := fmt.Sprintf("minted-%d-%d", round, i)
			r := f.do(t, "POST", "/v1/rooms/"+room+"/join", emulatortest.SignUp(t).IDToken, `{"sessionId":"s"}`)
			if r.status != 429 || errCode(r) != "rate_limited" {
				t.Fatalf("a minted uid's join: %d %s, want 429 rate_limited", r.status, r.raw)
			}
			if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 {
				t.Fatalf("Retry-After %q, want whole seconds, at least 1", r.header.Get("Retry-After"))
			}
			if r.header.Get("WWW-Authenticate") != "" {
				t.Fatal("a 429 asks for credentials (WWW-Authenticate): signing in again would not help")
			}
			if roomExists(t, f.client, room) {
				t.Fatal("a refused join wrote its room")
			}
		}
	}
	heartbeats := func(when string) {
		t.Helper()
		for name, c := range map[string]struct{ token, body string }{"ada": {ada.IDToken, adaSess}, "bob": {bob.IDToken, bobSess}} {
			if r := f.do(t, "POST", "/v1/rooms/budget/heartbeat", c.token, c.body); r.status != 200 {
				t.Fatalf("%s: %s's heartbeat: %d %s", when, name, r.status, r.raw)
			}
		}
	}

	minted(1)
	heartbeats("answers fresh")
	clock.Advance(auth.DefaultCheckEvery)
	heartbeats("refreshed from the reserve") // 2 lookups, none left
	minted(2)
	clock.Advance(auth.DefaultCheckEvery)
	heartbeats("served from their last answer")

	if n := len(logs.Lines(t, map[string]any{"message": "user lookup budget spent", "severity": "WARNING"})); n == 0 {
		t.Fatalf("the budget refused requests without a warning; log:\n%s", logs)
	}
}

// countingTokens counts the tokens the handler asks to have verified.
type countingTokens struct {
	httpapi.TokenVerifier
	calls atomic.Int32
}

func (c *countingTokens) VerifyIDToken(ctx context.Context, token string) (presence.Identity, error) {
	c.calls.Add(1)
	return c.TokenVerifier.VerifyIDToken(ctx, token)
}

// The per-address limit is the first gate: over it, a request is refused
// 429 before its token is looked at, whatever uid it names. The address is
// the right-most X-Forwarded-For entry (what Cloud Run's front end saw);
// what a client writes to its left changes nothing.
func TestAPI_AddressLimitComesBeforeTheToken(t *testing.T) {
	clock := testclock.New(testclock.Start)
	lim, err := ratelimit.New(ratelimit.Config{Rate: 0.5, Burst: 2, MaxKeys: 100}, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	var tokens *countingTokens
	f, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) {
		tokens = &countingTokens{TokenVerifier: o.Tokens}
		o.Tokens, o.IPRateLimiter = tokens, lim
	})
	ada := emulatortest.SignUp(t)
	from := func(xff string) []string { return []string{"X-Forwarded-For", xff} }

	for i := range 2 {
		if r := f.do(t, "GET", "/v1/rooms/nowhere", ada.IDToken, "", from("10.0.0.1, 203.0.113.7")...); r.status != 404 {
			t.Fatalf("request %d within the burst: %d %s", i+1, r.status, r.raw)
		}
	}
	refusedAs := func(what, token, xff string) {
		t.Helper()
		before := tokens.calls.Load()
		r := f.do(t, "POST", "/v1/rooms/addr/join", token, `{"sessionId":"s"}`, from(xff)...)
		if r.status != 429 || errCode(r) != "rate_limited" || r.header.Get("Retry-After") != "2" {
			t.Fatalf("%s: %d Retry-After=%q %s, want 429 rate_limited, Retry-After 2", what, r.status, r.header.Get("Retry-After"), r.raw)
		}
		if n := tokens.calls.Load() - before; n != 0 {
			t.Fatalf("%s: %d token verifications, want none", what, n)
		}
	}
	refusedAs("another uid's token, another forged left part", emulatortest.SignUp(t).IDToken, "6.6.6.6, 203.0.113.7")
	refusedAs("a token that is not one", "not-a-jwt", "203.0.113.7")
	if roomExists(t, f.client, "addr") {
		t.Fatal("a refused join wrote the room")
	}
	if r := f.do(t, "POST", "/v1/rooms/addr/join", ada.IDToken, `{"sessionId":"s"}`, from("203.0.113.7, 198.51.100.9")...); r.status != 200 {
		t.Fatalf("another address (right-most entry): %d %s", r.status, r.raw)
	}

	// IPv6 counts by /64.
	for i, addr := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2"} {
		if r := f.do(t, "GET", "/v1/rooms/nowhere", ada.IDToken, "", from(addr)...); r.status != 404 {
			t.Fatalf("IPv6 request %d: %d %s", i+1, r.status, r.raw)
		}
	}
	refusedAs("a third address of the same /64", ada.IDToken, "2001:db8:1:2:ffff:ffff:ffff:ffff")
	clock.Advance(2 * time.Second)
	if r := f.do(t, "GET", "/v1/rooms/nowhere", ada.IDToken, "", from("2001:db8:1:2::3")...); r.status != 404 {
		t.Fatalf("after the wait: %d %s", r.status, r.raw)
	}
}
