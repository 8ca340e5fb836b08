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
	s := presence.DefaultSettings() // 15 s lease, renew when at most a third (5 s) is left
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
		{"half left: writes nothing", s, stored(s.Lease / 2), ref, false, ""},
		{"a nanosecond more than a third left: writes nothing", s, stored(s.Lease/3 + time.Nanosecond), ref, false, ""},
		{"exactly a third left: renews", s, stored(s.Lease / 3), ref, true, ""},
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
		settings(5*time.Second, 15*time.Second, 1.0/3),
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

// RenewAt tells a client when its next heartbeat renews: a client that
// comes exactly then, every time, renews on every heartbeat (one request
// and one write per renewal: 360 an hour at the defaults), never finds its
// lease ended, and keeps the lease's ghost time. An away session comes
// back after the away interval; at share 1, after one heartbeat interval.
func TestSettings_RenewAt(t *testing.T) {
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}, Generation: 1}
	def := presence.DefaultSettings()
	everyBeat := def
	everyBeat.RenewWhenLeft = 1
	tests := []struct {
		name      string
		s         presence.Settings
		away      bool
		wantAfter time.Duration // after the renewal
		wantHour  int           // requests (all writes) in an hour
	}{
		{"defaults: when 5 s of 15 s are left", def, false, 10 * time.Second, 360},
		{"share 1: every heartbeat interval", everyBeat, false, 5 * time.Second, 720},
		{"away: every away interval", def, true, 50 * time.Second, 72},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := testclock.Start
			m := tc.s.ForMode(tc.away)
			sess := presence.Session{Generation: 1, Away: tc.away, LeaseExpiresAt: now.Add(m.Lease)}
			if got := tc.s.RenewAt(sess).Sub(now); got != tc.wantAfter {
				t.Fatalf("renewAt %v after the renewal, want %v", got, tc.wantAfter)
			}
			requests := 0
			for now.Sub(testclock.Start) < time.Hour {
				now = tc.s.RenewAt(sess)
				got, write, err := tc.s.Renew(now, &sess, ref)
				if err != nil || !write {
					t.Fatalf("heartbeat at renewAt %v: write %v, %v", now, write, err)
				}
				if got.LeaseExpiresAt != now.Add(m.Lease) {
					t.Fatalf("lease end %v, want a lease after the heartbeat", got.LeaseExpiresAt)
				}
				sess = got
				requests++
			}
			if requests != tc.wantHour {
				t.Fatalf("%d heartbeats in an hour, want %d", requests, tc.wantHour)
			}
		})
	}
}

// RenewFenced takes the fast path only where the read path would write the
// same renewal; everything else goes to the read path, which then gives
// its own answer (a refusal included).
func TestSettings_RenewFenced(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}, Generation: 7}
	claimed := func(left time.Duration) presence.Session {
		return presence.Session{RoomID: "r", ParticipantID: "alice", ID: "tab", Generation: 7, LeaseExpiresAt: now.Add(left),
			RoomExpireAt: now.Add(30 * 24 * time.Hour), EntryExpireAt: now.Add(30 * 24 * time.Hour)}
	}
	refreshDue := claimed(time.Second)
	refreshDue.EntryExpireAt = now.Add(time.Hour)
	tests := []struct {
		name    string
		claimed presence.Session
		ref     presence.SessionRef
		want    bool
	}{
		{"a renewal due: fast path", claimed(5 * time.Second), ref, true},
		{"a millisecond left: fast path", claimed(time.Millisecond), ref, true},
		{"early (more than a third left): read path, which writes nothing", claimed(6 * time.Second), ref, false},
		{"lease ended by this clock: read path (409)", claimed(0), ref, false},
		{"another generation: read path (409)", claimed(time.Second), presence.SessionRef{SessionKey: ref.SessionKey, Generation: 8}, false},
		{"TTL refresh due: read path (reads room and entry)", refreshDue, ref, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := s.RenewFenced(now, tc.claimed, tc.ref)
			if ok != tc.want {
				t.Fatalf("fast path %v, want %v", ok, tc.want)
			}
			if ok && (!got.LeaseExpiresAt.Equal(now.Add(s.Lease)) || !got.ExpireAt.Equal(got.LeaseExpiresAt.Add(s.SessionRetention))) {
				t.Fatalf("renewed to %v / %v", got.LeaseExpiresAt, got.ExpireAt)
			}
		})
	}
}
