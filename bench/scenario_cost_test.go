package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/roomlease/roomlease/bench/measure"
)

// The fixed costs follow the deployment: the sweeper busy for its budget
// every minute at its memory and CPU, an idle pass every sweepMaxPause, one
// status write a run. Checked against the arithmetic written out by hand.
func TestComputeFixedCosts(t *testing.T) {
	d := SweepDeployment{Memory: "256Mi", MemoryGiB: 0.25, VCPU: 0.167, BudgetSeconds: 55, LogMetrics: 6, SchedulerJobs: 1}
	f := ComputeFixedCosts(d, measure.SweepCost{ReadsPerPass: 5, NextDeadlineReads: 3})
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("busy seconds", f.BusySecondsPerMonth, 43800*55)
	near("vCPU-seconds", f.VCPUSeconds, 43800*55*0.167)
	near("compute", f.Compute, 43800*55*0.167*0.000024+43800*55*0.25*0.0000025)
	near("compute after free tier", f.ComputeAfterFreeTier, (43800*55*0.167-180000)*0.000024+(43800*55*0.25-360000)*0.0000025)
	near("reads a run", f.IdleReadsPerRun, 11*8) // passes at 0, 5, …, 50 s
	near("Firestore", f.Firestore, (43800*88*0.03+43800*0.09)/100000)
	near("total", f.Total, f.Compute+f.Firestore+0.10)
	near("free bytes per point", f.FreeBytesPerPoint, 150*1048576/(43800*6.0))
}

// The deployment is read from terraform/modules/roomlease as it is: the sweeper's memory
// with the CPU that memory gets by default, the 55 s budget, one metric per
// sweep distribution plus the run counter, the alert policies, one job.
func TestReadSweepDeployment(t *testing.T) {
	d, err := ReadSweepDeployment("../terraform/modules/roomlease")
	if err != nil {
		t.Fatal(err)
	}
	if d.Memory != "256Mi" || d.MemoryGiB != 0.25 || d.VCPU != 0.167 || !d.CPUFromDefault || d.BudgetSeconds != 55 ||
		d.LogMetrics != 7 || d.AlertPolicies != 5 || d.SchedulerJobs != 1 {
		t.Fatalf("read %+v from terraform/; if the deployment changed, check the new values and update this test", d)
	}
}

// The before side is priced with the counts its own table states.
func TestBeforeCounts(t *testing.T) {
	hbR, hbW, jR, jW, lR, lW, err := beforeCounts("Measured costs (in-process store, Store.Ops()): heartbeat 1 reads / 1 writes; join of a new user 4 / 3; leave of a user's last tab 3 / 3 (of which")
	if err != nil || hbR != 1 || hbW != 1 || jR != 4 || jW != 3 || lR != 3 || lW != 3 {
		t.Fatalf("%v %v %v %v %v %v %v", hbR, hbW, jR, jW, lR, lW, err)
	}
	if _, _, _, _, _, _, err := beforeCounts("a table without counts"); err == nil || !strings.Contains(err.Error(), "counts") {
		t.Fatalf("err %v", err)
	}
}
