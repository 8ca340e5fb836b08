package bench

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/bench/measure"
)

// The settings table shows three of measure.MeasureOps' measurements, looked up by
// label; a label that is no longer measured must stop the run instead of
// showing that operation at zero. (TestMeasureOps checks that measure.MeasureOps
// still measures all three.)
func TestSettingsCostsOf(t *testing.T) {
	hb := measure.OpCount{Op: measure.HeartbeatRenewLabel, Reads: 1, Writes: 1}
	join := measure.OpCount{Op: "join: another user", Reads: 4, Writes: 3}
	leave := measure.OpCount{Op: "leave: a user's last tab", Reads: 3, Writes: 2}
	other := measure.OpCount{Op: "room read (3 participants, 4 live sessions)", Reads: 8}

	t.Run("all three measured", func(t *testing.T) {
		c, err := settingsCostsOf([]measure.OpCount{other, leave, hb, join})
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
		_, err := settingsCostsOf([]measure.OpCount{hb, join, renamed, other})
		if err == nil || !strings.Contains(err.Error(), leave.Op) {
			t.Fatalf("err %v, want one naming %q", err, leave.Op)
		}
	})
}
