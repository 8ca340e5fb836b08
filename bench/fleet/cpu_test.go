package fleet

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Each party's share is its groups' growth; the rest is what the machine
// was busy with beyond them; an emulator whose PID is unknown (0) is not
// measured (-1), and its share stays in the rest.
func TestCPUMeter_Use(t *testing.T) {
	m := cpuMeter{firestore: 10, auth: 0, servers: []int{20, 30}}
	t0 := time.Unix(100, 0)
	a := cpuReading{at: t0, machine: 50, self: 1, groups: map[int]float64{10: 5, 20: 1, 30: 2, 0: 9}}
	b := cpuReading{at: t0.Add(4 * time.Second), machine: 58, self: 1.5, groups: map[int]float64{10: 9, 20: 2, 30: 2.5, 0: 20}}
	u := m.use(a, b)
	want := CPUUse{WallSeconds: 4, MachineSeconds: 8, FirestoreSeconds: 4, AuthSeconds: -1, ServersSeconds: 1.5, LoadSeconds: 0.5, RestSeconds: 2}
	if u == nil || *u != want {
		t.Fatalf("use = %+v; want %+v", u, want)
	}
	if m.use(a, cpuReading{err: errors.New("no /proc")}) != nil {
		t.Fatal("a failed reading gave a use")
	}
}

// The report's table names every party with its share of the busy time.
func TestMarkdown_CPUTable(t *testing.T) {
	u := &CPUUse{WallSeconds: 4, MachineSeconds: 8, FirestoreSeconds: 4, AuthSeconds: -1, ServersSeconds: 2, LoadSeconds: 1, RestSeconds: 1}
	r := &Report{Cores: 2, Cases: []Case{{Processes: 8, Crowd: 1000, Rooms: "one", Join: BurstSummary{CPU: u}}}}
	md := Markdown(r)
	if !strings.Contains(md, "| 8 | 1000 | one | join | 4.0 s | 8.0 s | 4.0 s (50 %) | – | 2.0 s (25 %) | 1.0 s (12 %) | 1.0 s (12 %) |") {
		t.Fatalf("no CPU row for the join in:\n%s", md)
	}
	if strings.Count(md, "| one | leave |") != 0 {
		t.Fatal("a row for a burst that has no CPU reading")
	}
}
