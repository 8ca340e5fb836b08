package presence_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/presence"
)

func TestValidateRoomID(t *testing.T) {
	for _, id := range []string{"a", "standup-2026", "A.b_c~d", strings.Repeat("x", presence.MaxIDLength)} {
		if err := presence.ValidateRoomID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"", "a/b", "__x__", "__", ".", "..", "a b", "é", "\xff", strings.Repeat("x", presence.MaxIDLength+1), strings.Repeat("x", 2048)} {
		err := presence.ValidateRoomID(id)
		if presence.ErrorCode(err) != presence.EInvalid {
			t.Errorf("%q: got %v, want invalid_argument", id, err)
		}
	}
}

func TestValidateDisplayName(t *testing.T) {
	for _, n := range []string{"", "Zoë", "李雷", strings.Repeat("a", presence.MaxDisplayNameLength)} {
		if err := presence.ValidateDisplayName(n); err != nil {
			t.Errorf("%q refused: %v", n, err)
		}
	}
	for _, n := range []string{"bad\x00", "tab\there", "\xff", strings.Repeat("a", presence.MaxDisplayNameLength+1)} {
		if presence.ErrorCode(presence.ValidateDisplayName(n)) != presence.EInvalid {
			t.Errorf("%q accepted", n)
		}
	}
}

func FuzzValidateRoomID(f *testing.F) {
	for _, s := range []string{"room-1", "a/b", "__x__", "..", "", "\xff", strings.Repeat("x", 129)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if presence.ValidateRoomID(id) != nil {
			return
		}
		// Whatever is accepted must be a safe, single Firestore document id.
		if id == "" || len(id) > presence.MaxIDLength || strings.ContainsAny(id, "/\x00") ||
			id == "." || id == ".." || (strings.HasPrefix(id, "__") && strings.HasSuffix(id, "__")) {
			t.Fatalf("accepted unsafe id %q", id)
		}
	})
}

// A uid is taken as it is, except where it could not be a document id of
// its own, or would be the retired count's beside the departure records.
func TestValidateParticipantID(t *testing.T) {
	for _, id := range []string{"uid-1", "a b", "é", "~retire", "retired"} {
		if err := presence.ValidateParticipantID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"", "a/b", "__x__", ".", "..", "\xff", presence.ReservedParticipantID} {
		if presence.ErrorCode(presence.ValidateParticipantID(id)) != presence.EInvalid {
			t.Errorf("%q accepted", id)
		}
	}
}
