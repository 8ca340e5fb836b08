package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// Renew decides from the lease left whether a heartbeat writes. A heartbeat
// that skips must answer the lease end already stored (so a crash right
// after it ends no later than before) and must still be refused on a stale
// generation or an ended lease.
func TestSettings_Renew(t *testing.T) {
	s := presence.DefaultSettings() // 15 s lease, renew when at most half is left
	now := testclock.Start
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}, Generation: 7}
	stored := func(left time.Duration) *presence.Session {
		end := now.Add(left)
		return &presence.Session{RoomID: "r", ParticipantID: "alice", ID: "tab", Generation: 7,
			LeaseExpiresAt: end, ExpireAt: end.Add(s.SessionRetention)}
	}
	everyBeat := s
	everyBeat.RenewWhenLeft = 1
	tests := []struct {
		name      string
		s         presence.Settings
		stored    *presence.Session
		ref       presence.SessionRef
		wantWrite bool
		wantCode  string
	}{
		{"a whole lease left: answers the stored end, writes nothing", s, stored(s.Lease), ref, false, ""},
		{"a nanosecond more than half left: writes nothing", s, stored(s.Lease/2 + time.Nanosecond), ref, false, ""},
		{"exactly half left: renews", s, stored(s.Lease / 2), ref, true, ""},
		{"a third left: renews", s, stored(s.Lease / 3), ref, true, ""},
		{"a nanosecond left: renews", s, stored(time.Nanosecond), ref, true, ""},
		{"share 1: a whole lease left still renews", everyBeat, stored(s.Lease), ref, true, ""},
		{"stale generation with a whole lease left: refused", s, stored(s.Lease), presence.SessionRef{SessionKey: ref.SessionKey, Generation: 6}, false, presence.EStaleGeneration},
		{"no session: refused", s, nil, ref, false, presence.EStaleGeneration},
		{"at the lease end: refused, never revived", s, stored(0), ref, false, presence.EStaleGeneration},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, write, err := tc.s.Renew(now, tc.stored, tc.ref)
			if (tc.wantCode == "") != (err == nil) || (err != nil && presence.ErrorCode(err) != tc.wantCode) {
				t.Fatalf("err %v, want code %q", err, tc.wantCode)
			}
			if tc.wantCode != "" {
				if write {
					t.Fatal("a refused heartbeat asks for a write")
				}
				return
			}
			if write != tc.wantWrite {
				t.Fatalf("write = %v, want %v", write, tc.wantWrite)
			}
			wantEnd, wantExpire := tc.stored.LeaseExpiresAt, tc.stored.ExpireAt
			if write {
				wantEnd, wantExpire = now.Add(s.Lease), now.Add(s.Lease).Add(s.SessionRetention)
			}
			if !got.LeaseExpiresAt.Equal(wantEnd) || !got.ExpireAt.Equal(wantExpire) {
				t.Fatalf("lease end %v, expireAt %v; want %v, %v", got.LeaseExpiresAt, got.ExpireAt, wantEnd, wantExpire)
			}
		})
	}
}

// RenewWithin's argument, checked: a client whose heartbeats come at most a
// heartbeat interval apart never finds its lease ended, at any setting
// Validate accepts, whatever the phase and jitter of its schedule; a lease
// never ends later than a lease after the last heartbeat (ghost time does
// not grow); and at a window just below one heartbeat (which Validate
// refuses) a client on schedule does lose its lease.
func TestSettings_Renew_ClientOnScheduleNeverSeesItsLeaseEnd(t *testing.T) {
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}, Generation: 1}
	// run heartbeats for an hour at the given gaps (cycled) and returns the
	// first refusal, and the writes made.
	run := func(t *testing.T, s presence.Settings, gaps []time.Duration) (error, int) {
		t.Helper()
		now := testclock.Start
		sess := presence.Session{Generation: 1, LeaseExpiresAt: now.Add(s.Lease)} // joined at now
		writes := 0
		for i := 0; now.Sub(testclock.Start) < time.Hour; i++ {
			now = now.Add(gaps[i%len(gaps)])
			got, write, err := s.Renew(now, &sess, ref)
			if err != nil {
				return err, writes
			}
			if got.LeaseExpiresAt.After(now.Add(s.Lease)) {
				t.Fatalf("lease end %v more than a lease after the heartbeat at %v", got.LeaseExpiresAt, now)
			}
			if write {
				writes++
				sess = got
			}
		}
		return nil, writes
	}
	settings := func(hb, lease time.Duration, share float64) presence.Settings {
		s := presence.DefaultSettings()
		s.Heartbeat, s.Lease, s.RenewWhenLeft = hb, lease, share
		return s
	}
	for _, s := range []presence.Settings{
		settings(2*time.Second, 6*time.Second, 0.5),
		settings(5*time.Second, 15*time.Second, 0.5),
		settings(10*time.Second, 30*time.Second, 0.5),
		settings(5*time.Second, 10*time.Second, 0.5), // the window is exactly one heartbeat
		settings(5*time.Second, 15*time.Second, 0.34),
		settings(5*time.Second, 15*time.Second, 1),
	} {
		if err := s.Validate(); err != nil {
			t.Fatalf("%v/%v/%v: %v", s.Heartbeat, s.Lease, s.RenewWhenLeft, err)
		}
		h := s.Heartbeat
		for name, gaps := range map[string][]time.Duration{
			"on the beat":         {h},
			"jitter shortens":     {h, h * 7 / 10, h * 9 / 10, h / 3},
			"first beat early":    {h / 7, h, h, h},
			"one nanosecond less": {h - time.Nanosecond},
		} {
			if err, _ := run(t, s, gaps); err != nil {
				t.Errorf("%v/%v/%v %s: %v", s.Heartbeat, s.Lease, s.RenewWhenLeft, name, err)
			}
		}
	}

	t.Run("defaults write on every second heartbeat", func(t *testing.T) {
		s := presence.DefaultSettings()
		if _, writes := run(t, s, []time.Duration{s.Heartbeat}); writes != 360 {
			t.Fatalf("%d writes in an hour of heartbeats every %v, want 360 (half of 720)", writes, s.Heartbeat)
		}
	})
	t.Run("a window shorter than a heartbeat loses the lease", func(t *testing.T) {
		s := settings(5*time.Second, 10*time.Second, 0.49)
		if s.Validate() == nil {
			t.Fatal("Validate accepts a renew window shorter than a heartbeat")
		}
		if err, _ := run(t, s, []time.Duration{s.Heartbeat}); presence.ErrorCode(err) != presence.EStaleGeneration {
			t.Fatalf("client on schedule kept its lease (%v); the bound in Validate would not be needed", err)
		}
	})
}
