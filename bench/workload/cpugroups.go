package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CPUByGroup returns the CPU time (user + system, seconds) used so far by
// each live process, summed per process group. The emulators and the
// roomlease-dev processes each run in a group of their own (setsid, or
// Setpgid), whose id is the PID scripts/bench or StartServer saw, so a
// group's sum takes in the children and threads a PID alone would miss
// (firebase-tools runs the Auth emulator under node). A process that
// exited is no longer counted: compare readings over a span in which the
// processes of interest stay up.
func CPUByGroup() (map[int]float64, error) {
	paths, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	out := map[int]float64{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited since the listing
		}
		pgrp, secs, err := parseStatGroupCPU(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out[pgrp] += secs
	}
	return out, nil
}

// parseStatGroupCPU reads the process group (field 5) and utime + stime
// (fields 14 and 15) of a /proc/PID/stat line.
func parseStatGroupCPU(stat string) (pgrp int, seconds float64, err error) {
	if seconds, err = parseStatCPU(stat); err != nil {
		return 0, 0, err
	}
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:]) // f[0] is field 3
	if pgrp, err = strconv.Atoi(f[2]); err != nil {
		return 0, 0, fmt.Errorf("bad process group in %q", stat)
	}
	return pgrp, seconds, nil
}

// MachineBusySeconds returns the CPU time all cores have spent busy since
// boot (user, nice, system, irq, softirq and steal, from /proc/stat's
// first line): every process's share and the kernel's, including threads
// outside this container that CPUByGroup cannot see.
func MachineBusySeconds() (float64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return parseMachineBusy(string(b))
}

func parseMachineBusy(stat string) (float64, error) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("no cpu line in /proc/stat: %q", line)
	}
	var busy int64
	// user nice system idle iowait irq softirq steal: idle and iowait are
	// not busy; guest time is already inside user.
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad field %d in %q", i, line)
		}
		busy += n
	}
	return float64(busy) / userHZ, nil
}
