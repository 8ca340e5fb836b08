package sweep_test

import (
	"testing"

	"github.com/roomlease/roomlease/functions/sweep"
)

// The kill switch fails safe: a cleanupMode the sweeper does not understand
// (not a string, an empty or unknown string, another case) means observe,
// not the default, and is logged at WARNING. The default here is enforce,
// so a sweeper that fell back to it would delete the due room.
func TestSweep_ModeNotUnderstoodMeansObserve(t *testing.T) {
	for name, value := range map[string]any{
		"BooleanTrue":  true,
		"BooleanFalse": false,
		"Integer":      1,
		"Null":         nil,
		"EmptyString":  "",
		"OtherCase":    "Enforce",
		"Unknown":      "delete",
	} {
		t.Run(name, func(t *testing.T) {
			f := MustOpen(t)
			s := f.sweeper(t, f.store, sweep.Config{DefaultMode: sweep.Enforce})
			f.leave(t, f.join(t, "due", "u", "tab"))
			f.clock.Advance(f.settings.EmptyRoomGrace)
			if _, err := f.client.Doc("roomlease/config").Set(f.ctx, map[string]any{"cleanupMode": value}); err != nil {
				t.Fatal(err)
			}

			r := f.pass(t, s)
			if r.Mode != sweep.Observe || r.RoomsDeleted != 0 || r.RoomsEligible != 1 {
				t.Fatalf("pass with cleanupMode %#v: mode %q, %+v; want observe, the room reported and kept", value, r.Mode, r.Counts)
			}
			if f.roomState(t, "due") != "suspected_empty" {
				t.Fatal("the room was torn down")
			}
			warned := f.logs.Lines(t, map[string]any{"message": "roomlease/config cleanupMode not understood; observing"})
			if len(warned) != 1 || warned[0]["severity"] != "WARNING" {
				t.Fatalf("warning lines %v, want one at WARNING; log:\n%s", warned, f.logs)
			}
		})
	}
	// The control: the same room with the field absent is torn down, so
	// the refusals above are the setting's doing.
	t.Run("NoFieldMeansTheDefault", func(t *testing.T) {
		f := MustOpen(t)
		s := f.sweeper(t, f.store, sweep.Config{DefaultMode: sweep.Enforce})
		f.leave(t, f.join(t, "due", "u", "tab"))
		f.clock.Advance(f.settings.EmptyRoomGrace)
		if _, err := f.client.Doc("roomlease/config").Set(f.ctx, map[string]any{"note": "no mode here"}); err != nil {
			t.Fatal(err)
		}
		if r := f.pass(t, s); r.Mode != sweep.Enforce || r.RoomsDeleted != 1 {
			t.Fatalf("pass without cleanupMode: mode %q, %+v; want enforce and the room deleted", r.Mode, r.Counts)
		}
	})
}
