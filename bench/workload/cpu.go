package workload

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: Linux reports
// them in clock ticks of USER_HZ, which its ABI fixes at 100 a second.
const userHZ = 100

// ReadCPUSeconds returns the CPU time (user + system) pid has used, from
// /proc/PID/stat. It is the server's own counter of what an instance
// spends, the measure Cloud Run's vCPU-seconds price.
func ReadCPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15) from a
// /proc/PID/stat line. The command name (field 2) is in parentheses and
// may hold spaces, so the fields are counted from its closing one.
func parseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name in %q", stat)
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat line %q", stat)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad utime/stime in %q", stat)
	}
	return float64(utime+stime) / userHZ, nil
}

// CPUReport is the CPU time the server process used during a run and the
// API requests it answered in that time.
type CPUReport struct {
	Seconds  float64 `json:"seconds"`
	Requests int64   `json:"requests"`
	// MillisPerRequest is Seconds / Requests: what a request costs in CPU,
	// including the process's share of background work (the sweeper that
	// roomlease-dev runs in the same process, the runtime's GC).
	MillisPerRequest float64 `json:"millisPerRequest"`
}

// answered counts the requests the server answered (every status; not
// the calls that never reached it).
func answered(ops map[Op]OpReport) int64 {
	var n int64
	for _, r := range ops {
		n += r.OK + r.Client4xx + r.Server5xx
	}
	return n
}
