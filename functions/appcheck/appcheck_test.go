package appcheck_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/appcheck"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/appchecktest"
	"github.com/roomlease/roomlease/internal/testclock"
)

const project = "demo-roomlease"

func TestVerifier_Tokens(t *testing.T) {
	iss := appchecktest.Start(t)
	v := appcheck.NewVerifier(project, time.Now)
	ctx := context.Background()

	t.Run("ValidToken", func(t *testing.T) {
		if err := v.VerifyAppCheckToken(ctx, iss.Valid(t, project)); err != nil {
			t.Fatalf("valid token refused: %v", err)
		}
	})
	for _, tc := range []struct {
		name, token, message string
	}{
		{"Expired", iss.Token(t, project, time.Now().Add(-time.Minute)), "expired"},
		{"WrongProject", iss.Valid(t, "someone-else"), "another project"},
		{"SignedByAnotherKey", iss.Forged(t, project), "not valid"},
		{"NotAJWT", "not-a-token", "not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.VerifyAppCheckToken(ctx, tc.token)
			if presence.ErrorCode(err) != presence.EUnauthenticated {
				t.Fatalf("got %v, want %s", err, presence.EUnauthenticated)
			}
			msg := presence.ErrorMessage(err)
			if !strings.Contains(msg, tc.message) {
				t.Errorf("message %q does not say %q", msg, tc.message)
			}
			if strings.Contains(msg, tc.token) {
				t.Errorf("message repeats the token: %q", msg)
			}
		})
	}
	t.Run("KeySetFetchedOnce", func(t *testing.T) {
		if n := iss.Fetches(); n != 1 {
			t.Fatalf("key set fetched %d times for these verifications, want 1", n)
		}
	})
}

// An unreachable key set is "could not verify" (503), not "invalid"; the
// failure is remembered for RetryKeysAfter so that a burst of requests does
// not fetch once each, and the next request after it fetches again.
func TestVerifier_KeySetUnavailable(t *testing.T) {
	iss := appchecktest.Start(t)
	clock := testclock.New(testclock.Start)
	v := appcheck.NewVerifier(project, clock.Now)
	ctx := context.Background()
	token := iss.Valid(t, project)

	iss.SetDown(true)
	for range 3 {
		if err := v.VerifyAppCheckToken(ctx, token); presence.ErrorCode(err) != presence.EUnavailable {
			t.Fatalf("with the key set down: %v, want %s", err, presence.EUnavailable)
		}
	}
	if n := iss.Fetches(); n != 1 {
		t.Fatalf("%d fetches within RetryKeysAfter, want 1", n)
	}
	iss.SetDown(false)
	clock.Advance(appcheck.RetryKeysAfter - time.Millisecond)
	if err := v.VerifyAppCheckToken(ctx, token); presence.ErrorCode(err) != presence.EUnavailable {
		t.Fatalf("just before the retry time: %v, want %s still", err, presence.EUnavailable)
	}
	clock.Advance(time.Millisecond)
	if err := v.VerifyAppCheckToken(ctx, token); err != nil {
		t.Fatalf("after the retry time, with the key set back: %v", err)
	}
	if n := iss.Fetches(); n != 2 {
		t.Fatalf("%d fetches in all, want 2", n)
	}
}

// A key server that never answers costs a request the fetch's bound, not
// its whole deadline: the Admin SDK's fetch must honour the context the
// Verifier gives it. The caller's deadline is ten minutes away, the bound
// 200 ms: an answer within 5 s (25 times the bound, a margin for a loaded
// machine) can only come from the bound.
func TestVerifier_KeySetFetchIsBounded(t *testing.T) {
	iss := appchecktest.Start(t)
	iss.SetHang(true)
	v := appcheck.NewVerifier(project, time.Now)
	appcheck.SetFetchTimeout(v, 200*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- v.VerifyAppCheckToken(ctx, iss.Valid(t, project)) }()
	select {
	case err := <-done:
		if presence.ErrorCode(err) != presence.EUnavailable {
			t.Fatalf("with the key server silent: %v, want %s", err, presence.EUnavailable)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("the verification gave up after %v; the fetch's bound is 200 ms", took)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the verification still waits for the silent key server after 30 s: the fetch is not bounded")
	}
	if n := iss.Fetches(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}
}
