package measure

import (
	"context"
	"testing"
	"time"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A participant-hour at 5 s / 15 s is counted on the emulator: 720
// heartbeats, each one read, of which only those finding at most half the
// lease left write, so writes stay within the 0.55 × 726 of issue 15 (726
// being the count when every heartbeat wrote), and never below one write per
// two heartbeats, the most a 15 s lease can skip at 5 s.
func TestParticipantHour(t *testing.T) {
	emulatortest.FirestoreHost(t)
	hour, settings, err := ParticipantHour(context.Background(), 5*time.Second, 15*time.Second)
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
