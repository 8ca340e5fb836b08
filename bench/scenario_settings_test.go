package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The settings table shows three of MeasureOps' measurements, looked up by
// label; a label that is no longer measured must stop the run instead of
// showing that operation at zero. (TestMeasureOps checks that MeasureOps
// still measures all three.)
func TestSettingsCostsOf(t *testing.T) {
	hb := OpCount{Op: HeartbeatRenewLabel, Reads: 1, Writes: 1}
	join := OpCount{Op: "join: another user", Reads: 4, Writes: 3}
	leave := OpCount{Op: "leave: a user's last tab", Reads: 3, Writes: 2}
	other := OpCount{Op: "room read (3 participants, 4 live sessions)", Reads: 8}

	t.Run("all three measured", func(t *testing.T) {
		c, err := settingsCostsOf([]OpCount{other, leave, hb, join})
		if err != nil {
			t.Fatal(err)
		}
		if c != (settingsCosts{Heartbeat: hb, Join: join, Leave: leave}) {
			t.Fatalf("costs %+v", c)
		}
	})
	t.Run("a renamed label is an error that names it", func(t *testing.T) {
		renamed := leave
		renamed.Op = "leave: the last tab of a user"
		_, err := settingsCostsOf([]OpCount{hb, join, renamed, other})
		if err == nil || !strings.Contains(err.Error(), leave.Op) {
			t.Fatalf("err %v, want one naming %q", err, leave.Op)
		}
	})
}

// A participant-hour at 5 s / 15 s is counted on the emulator: 720
// heartbeats, each one read, of which only those finding at most half the
// lease left write, so writes stay within the 0.55 × 726 of issue 15 (726
// being the count when every heartbeat wrote), and never below one write per
// two heartbeats, the most a 15 s lease can skip at 5 s.
func TestParticipantHour(t *testing.T) {
	emulatortest.FirestoreHost(t)
	hour, settings, err := participantHour(context.Background(), 5*time.Second, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if settings.RenewWhenLeft != 0.5 {
		t.Fatalf("counted with RenewWhenLeft %v, want the default 0.5", settings.RenewWhenLeft)
	}
	if hour.Reads < 720 || hour.Writes < 360 || float64(hour.Writes) > 0.55*726 {
		t.Fatalf("participant-hour %+v: want at least 720 reads and between 360 and %.0f writes", hour, 0.55*726)
	}
}
