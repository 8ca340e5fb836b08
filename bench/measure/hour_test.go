package measure

import (
	"context"
	"testing"
	"time"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A participant-hour at 5 s / 15 s is counted on the emulator, on the
// schedule the server sets (issue 22): one join, a heartbeat at each
// renewAt, each renewing with one write and, fenced by its lease token, no
// read of the session, and one leave. So at most 400 heartbeat writes (the
// issue's bound on requests) and about a tenth as many reads: the join,
// the leave, and the room's policy when an instance's cache of it expires.
func TestParticipantHour(t *testing.T) {
	emulatortest.FirestoreHost(t)
	hour, settings, err := ParticipantHour(context.Background(), 5*time.Second, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	renewals := int64(time.Hour / (settings.Lease - settings.Heartbeat))
	if hour.Requests != renewals+2 {
		t.Errorf("%d requests, want %d renewals, a join and a leave", hour.Requests, renewals)
	}
	if hour.Writes < renewals || hour.Writes > 400 || hour.Reads > 100 {
		t.Fatalf("participant-hour %+v: want %d to 400 writes and at most 100 reads", hour, renewals)
	}
}
