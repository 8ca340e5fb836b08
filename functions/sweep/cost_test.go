package sweep_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/sweep"
)

// A sweeper that deletes nothing must not pay for that in reads: rooms it
// may not tear down stay due for ever, and a sweeper that listed them on
// every pass (and woke at once for their deadlines, which lie in the past)
// read them ten times a second. Reads are counted, not timed: a minute of
// sweeping on the test clock, in observe mode with rooms due, may cost at
// most twice a minute in enforce mode with nothing to do.
func TestRun_IdleCostBoundedInEveryMode(t *testing.T) {
	minute := sweep.Config{RunBudget: time.Minute}

	idle := MustOpen(t)
	enforce := idle.sweeper(t, idle.store, withMode(minute, sweep.Enforce))
	before := idle.store.Ops()
	enforce.Run(idle.ctx)
	baseline := idle.store.Ops().Sub(before).Reads

	for _, mode := range []sweep.Mode{sweep.Observe, sweep.Off} {
		t.Run(string(mode), func(t *testing.T) {
			f := MustOpen(t)
			for _, room := range []string{"a", "b", "c", "d", "e"} {
				f.leave(t, f.join(t, room, "u", "tab"))
			}
			f.clock.Advance(f.settings.EmptyRoomGrace)
			s := f.sweeper(t, f.store, withMode(minute, mode))
			before := f.store.Ops()
			sum := s.Run(f.ctx)
			reads := f.store.Ops().Sub(before).Reads
			if sum.RoomsEligible != 5 || sum.RoomsDeleted != 0 {
				t.Fatalf("run: %+v, want the 5 due rooms reported once and none deleted", sum)
			}
			if reads > 2*baseline {
				t.Fatalf("%s mode with 5 due rooms read %d documents in a minute; enforce mode with nothing due read %d", mode, reads, baseline)
			}
		})
	}
}

func withMode(c sweep.Config, m sweep.Mode) sweep.Config {
	c.DefaultMode = m
	return c
}
