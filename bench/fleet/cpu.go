package fleet

import (
	"os"
	"time"

	"github.com/roomlease/roomlease/bench/workload"
)

// CPUUse is where the machine's CPU time went during one burst, in
// CPU-seconds, beside the burst's wall time: a machine of C cores has C
// CPU-seconds a second to give. Rest is the machine's busy time that none
// of the parties named here used: the kernel, and other processes on the
// machine, which runs in the same sandbox as other work (BENCHMARKS.md).
// An emulator whose PID the run was not given is -1: not measured, and
// in Rest.
type CPUUse struct {
	WallSeconds      float64 `json:"wallSeconds"`
	MachineSeconds   float64 `json:"machineBusySeconds"`
	FirestoreSeconds float64 `json:"firestoreEmulatorSeconds"`
	AuthSeconds      float64 `json:"authEmulatorSeconds"`
	ServersSeconds   float64 `json:"serversSeconds"`
	LoadSeconds      float64 `json:"loadGeneratorSeconds"`
	RestSeconds      float64 `json:"restSeconds"`
}

// cpuMeter reads the CPU time of the parties of a fleet run: the two
// emulators' process groups (zero when not known), the roomlease-dev
// processes' groups, and this process.
type cpuMeter struct {
	firestore, auth int
	servers         []int
}

type cpuReading struct {
	at      time.Time
	machine float64
	groups  map[int]float64
	self    float64
	err     error
}

func (m cpuMeter) read() cpuReading {
	r := cpuReading{at: time.Now()}
	var err1, err2, err3 error
	r.machine, err1 = workload.MachineBusySeconds()
	r.groups, err2 = workload.CPUByGroup()
	r.self, err3 = workload.ReadCPUSeconds(os.Getpid())
	for _, err := range []error{err1, err2, err3} {
		if err != nil && r.err == nil {
			r.err = err
		}
	}
	return r
}

// use is what was used between readings a and b, nil if either failed
// (no /proc: not Linux).
func (m cpuMeter) use(a, b cpuReading) *CPUUse {
	if a.err != nil || b.err != nil {
		return nil
	}
	group := func(pgrp int) float64 {
		if pgrp == 0 {
			return -1
		}
		// A group that lost a process in between could read lower after.
		return max(b.groups[pgrp]-a.groups[pgrp], 0)
	}
	u := &CPUUse{
		WallSeconds:      b.at.Sub(a.at).Seconds(),
		MachineSeconds:   b.machine - a.machine,
		FirestoreSeconds: group(m.firestore),
		AuthSeconds:      group(m.auth),
		LoadSeconds:      b.self - a.self,
	}
	for _, pid := range m.servers {
		u.ServersSeconds += max(group(pid), 0)
	}
	u.RestSeconds = max(u.MachineSeconds-max(u.FirestoreSeconds, 0)-max(u.AuthSeconds, 0)-u.ServersSeconds-u.LoadSeconds, 0)
	return u
}

// measured runs one burst as phase, and summarizes it with the CPU time
// every party used meanwhile.
func (m cpuMeter) measured(o phaseTeller, phase string, run func() []Attempt) BurstSummary {
	o.EnterPhase(phase)
	before := m.read()
	attempts := run()
	after := m.read()
	o.EnterPhase("")
	s := SummarizeBurst(attempts, timeoutMs)
	s.CPU = m.use(before, after)
	return s
}

// phaseTeller is the part of harness.Options that measured tells.
type phaseTeller interface{ EnterPhase(name string) }
