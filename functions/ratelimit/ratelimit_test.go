package ratelimit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/ratelimit"
	"github.com/roomlease/roomlease/internal/testclock"
)

func mustNew(t *testing.T, cfg ratelimit.Config) (*ratelimit.Limiter, *testclock.Clock) {
	t.Helper()
	clock := testclock.New(testclock.Start)
	l, err := ratelimit.New(cfg, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return l, clock
}

func TestLimiter_BurstThenRate(t *testing.T) {
	l, clock := mustNew(t, ratelimit.Config{Rate: 2, Burst: 3, MaxKeys: 10})

	t.Run("BurstAdmittedAtOnce", func(t *testing.T) {
		for i := range 3 {
			if ok, _ := l.Allow("ada"); !ok {
				t.Fatalf("request %d of the burst refused", i+1)
			}
		}
	})
	t.Run("OverTheBurstRefusedWithTheWait", func(t *testing.T) {
		ok, wait := l.Allow("ada")
		if ok || wait != 500*time.Millisecond {
			t.Fatalf("4th request at once: ok=%v wait=%v, want refused with 500ms (one token at 2/s)", ok, wait)
		}
	})
	t.Run("RefusalsConsumeNothing", func(t *testing.T) {
		// Hammering while refused must not push the next token away.
		for range 100 {
			l.Allow("ada")
		}
		clock.Advance(499 * time.Millisecond)
		if ok, wait := l.Allow("ada"); ok || wait != time.Millisecond {
			t.Fatalf("1ms before the token: ok=%v wait=%v", ok, wait)
		}
		clock.Advance(time.Millisecond)
		if ok, _ := l.Allow("ada"); !ok {
			t.Fatal("refused when the token is due")
		}
	})
	t.Run("OtherKeysUnaffected", func(t *testing.T) {
		if ok, _ := l.Allow("bob"); !ok {
			t.Fatal("bob refused because ada is over her limit")
		}
	})
	t.Run("SustainedRate", func(t *testing.T) {
		// One request every 500 ms is exactly the rate: always admitted.
		for i := range 20 {
			clock.Advance(500 * time.Millisecond)
			if ok, _ := l.Allow("ada"); !ok {
				t.Fatalf("request %d at the sustained rate refused", i)
			}
		}
	})
}

func TestLimiter_BoundedMemory(t *testing.T) {
	t.Run("IdleBucketsDropped", func(t *testing.T) {
		// Burst 4 at 2/s refills in 2 s.
		l, clock := mustNew(t, ratelimit.Config{Rate: 2, Burst: 4, MaxKeys: 100})
		for i := range 10 {
			l.Allow(fmt.Sprint("user-", i))
		}
		clock.Advance(1999 * time.Millisecond)
		l.Allow("fresh")
		if n := l.Len(); n != 11 {
			t.Fatalf("before the refill time: %d keys tracked, want 11", n)
		}
		clock.Advance(time.Millisecond)
		l.Allow("fresh")
		if n := l.Len(); n != 1 {
			t.Fatalf("after the refill time: %d keys tracked, want 1 (the ten idle ones dropped)", n)
		}
	})
	t.Run("DroppingAnIdleBucketChangesNoAnswer", func(t *testing.T) {
		l, clock := mustNew(t, ratelimit.Config{Rate: 1, Burst: 2, MaxKeys: 100})
		l.Allow("ada")
		l.Allow("ada")
		clock.Advance(2 * time.Second) // full again, and dropped on the next call
		for i := range 2 {
			if ok, _ := l.Allow("ada"); !ok {
				t.Fatalf("request %d after a full refill refused", i+1)
			}
		}
		if ok, _ := l.Allow("ada"); ok {
			t.Fatal("third request after the refill admitted: the bucket was not sized by the burst")
		}
	})
	t.Run("CapForgetsTheLeastRecentKey", func(t *testing.T) {
		l, clock := mustNew(t, ratelimit.Config{Rate: 1, Burst: 1, MaxKeys: 3})
		for _, k := range []string{"a", "b", "c"} {
			l.Allow(k)
		}
		clock.Advance(100 * time.Millisecond)
		l.Allow("a") // refused, but a is now the most recent
		l.Allow("d") // at the cap: b (least recent) goes
		if n := l.Len(); n != 3 {
			t.Fatalf("%d keys tracked, want the cap 3", n)
		}
		if ok, _ := l.Allow("a"); ok {
			t.Fatal("a was forgotten although it was used more recently than b")
		}
		if ok, _ := l.Allow("b"); !ok {
			t.Fatal("b still limited: it should have been forgotten at the cap")
		}
	})
}

func TestConfig_Validate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  ratelimit.Config
	}{
		{"ZeroRate", ratelimit.Config{Rate: 0, Burst: 1, MaxKeys: 1}},
		{"NegativeRate", ratelimit.Config{Rate: -1, Burst: 1, MaxKeys: 1}},
		{"ZeroBurst", ratelimit.Config{Rate: 1, Burst: 0, MaxKeys: 1}},
		{"ZeroKeys", ratelimit.Config{Rate: 1, Burst: 1, MaxKeys: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ratelimit.New(tc.cfg, time.Now); err == nil {
				t.Fatalf("%+v accepted", tc.cfg)
			}
		})
	}
}
