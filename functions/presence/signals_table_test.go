package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// A typing signal is removed only once it has expired and only if it is the
// signal the sweeper saw: a renewal since then keeps it.
func TestTypingExpired(t *testing.T) {
	now := testclock.Start
	seen := now.Add(-time.Second) // the expiry the sweeper's query saw
	signal := func(expiresAt time.Time) *presence.Typing {
		return &presence.Typing{RoomID: "r", ParticipantID: "alice", ExpiresAt: expiresAt}
	}
	tests := []struct {
		name   string
		stored *presence.Typing
		seen   time.Time
		want   presence.Outcome
	}{
		{"expired signal the sweeper saw is removed", signal(seen), seen, presence.Done},
		{"signal expiring exactly now is removed", signal(now), now, presence.Done},
		{"signal already removed by the user or another sweeper", nil, seen, presence.AlreadyDone},
		{"signal renewed since the sweep read stays", signal(now.Add(7 * time.Second)), seen, presence.Conflict},
		{"signal not yet expired stays", signal(now.Add(time.Nanosecond)), now.Add(time.Nanosecond), presence.NotDue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := presence.TypingExpired(now, tc.stored, tc.seen); got != tc.want {
				t.Fatalf("outcome %s, want %s", outcomeName(got), outcomeName(tc.want))
			}
		})
	}
}

// Read receipts only move forward: retried and reordered receipts write
// nothing, and only participants may post them.
func TestPlanReceipt(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	member := &presence.Participant{RoomID: "r", ID: "alice"}
	earlier := now.Add(-time.Minute)
	stored := func(seq int64) *presence.Receipt {
		return &presence.Receipt{RoomID: "r", ParticipantID: "alice", LastReadSeq: seq, UpdatedAt: earlier, ExpireAt: earlier.Add(s.RecordHorizon)}
	}
	fresh := func(seq int64) presence.Receipt {
		return presence.Receipt{RoomID: "r", ParticipantID: "alice", LastReadSeq: seq, UpdatedAt: now, ExpireAt: now.Add(s.RecordHorizon)}
	}
	room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1, CreatedAt: now.Add(-time.Hour)}
	reborn := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1, CreatedAt: now.Add(-time.Second)}
	tests := []struct {
		name      string
		room      *presence.Room
		entry     *presence.Participant
		stored    *presence.Receipt
		seq       int64
		want      presence.Receipt
		wantWrite bool
		wantCode  string
	}{
		{name: "first receipt is stored", entry: member, seq: 5, want: fresh(5), wantWrite: true},
		{name: "position zero is a valid first receipt", entry: member, seq: 0, want: fresh(0), wantWrite: true},
		{name: "forward progress advances the position", entry: member, stored: stored(5), seq: 9, want: fresh(9), wantWrite: true},
		{name: "retried receipt writes nothing", entry: member, stored: stored(5), seq: 5, want: *stored(5)},
		{name: "late, reordered receipt keeps the maximum and writes nothing", entry: member, stored: stored(9), seq: 5, want: *stored(9)},
		{name: "largest exact position is accepted", entry: member, seq: presence.MaxGeneration, want: fresh(presence.MaxGeneration), wantWrite: true},
		{name: "caller not on the roster may not post", seq: 5, wantCode: presence.EForbidden},
		{name: "caller no longer on the roster may not move an old receipt", stored: stored(5), seq: 9, wantCode: presence.EForbidden},
		{name: "a receipt of a torn-down lifetime counts as absent: a lower position is written",
			room: reborn, entry: member, stored: stored(9), seq: 5, want: fresh(5), wantWrite: true},
		{name: "a room that is gone takes no receipt", room: nil, entry: member, seq: 5, wantCode: presence.EForbidden},
	}
	for i := range tests {
		if tests[i].room == nil && tests[i].name != "a room that is gone takes no receipt" {
			tests[i].room = room
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, write, err := s.PlanReceipt(now, tc.room, tc.entry, tc.stored, presence.ReceiptRequest{RoomID: "r", ParticipantID: "alice", LastReadSeq: tc.seq})
			if tc.wantCode != "" {
				if presence.ErrorCode(err) != tc.wantCode || write {
					t.Fatalf("err %v, write %v; want %s and no write", err, write, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if write != tc.wantWrite || got != tc.want {
				t.Fatalf("receipt %+v, write %v; want %+v, write %v", got, write, tc.want, tc.wantWrite)
			}
		})
	}
}

// A position that JavaScript cannot hold exactly, or a negative one, is
// refused with the request, before anything is read.
func TestReceiptRequest_Validate(t *testing.T) {
	for _, tc := range []struct {
		name string
		seq  int64
		want string
	}{
		{"zero is a position", 0, ""},
		{"largest exact position", presence.MaxGeneration, ""},
		{"negative position", -1, presence.EInvalid},
		{"position beyond 2^53-1", presence.MaxGeneration + 1, presence.EInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := presence.ReceiptRequest{RoomID: "r", ParticipantID: "alice", LastReadSeq: tc.seq}.Validate()
			if (tc.want == "" && err != nil) || (tc.want != "" && presence.ErrorCode(err) != tc.want) {
				t.Fatalf("err %v, want code %q", err, tc.want)
			}
		})
	}
}
