package bench

import (
	"math"
	"testing"

	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/bench/workload"
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
// sweep distribution (the rollout's per slice) plus the two run counters, the alert policies, one job.
func TestReadSweepDeployment(t *testing.T) {
	d, err := ReadSweepDeployment("../terraform/modules/roomlease")
	if err != nil {
		t.Fatal(err)
	}
	if d.Memory != "256Mi" || d.MemoryGiB != 0.25 || d.VCPU != 0.167 || !d.CPUFromDefault || d.BudgetSeconds != 55 ||
		d.LogMetrics != 16 || d.AlertPolicies != 6 || d.SchedulerJobs != 1 {
		t.Fatalf("read %+v from terraform/; if the deployment changed, check the new values and update this test", d)
	}
}

// Settings are priced in pairs, each side with its own counts, CPU and
// latency; a run without the server's CPU time cannot be priced whole.
func TestPriceSettings(t *testing.T) {
	d := PresenceDeployment{VCPU: 1, MemoryGiB: 0.5, Concurrency: 80}
	run := func(hb, requests, reads, writes, cpuMs float64) SettingRun {
		rep := &workload.WorkloadReport{Ops: map[workload.Op]workload.OpReport{workload.OpHeartbeat: {Latency: workload.Summary{P50: 8}}}}
		if cpuMs > 0 {
			rep.ServerCPU = &workload.CPUReport{Seconds: 1, Requests: 1000, MillisPerRequest: cpuMs}
		}
		return SettingRun{HeartbeatSecs: hb, LeaseSecs: 3 * hb, Report: rep, Requests: requests, Reads: reads, Writes: writes}
	}
	before := []SettingRun{run(5, 0, 730, 366, 2), run(10, 0, 370, 186, 2)}
	after := []SettingRun{run(2, 902, 100, 900, 1), run(5, 362, 60, 362, 1)}
	got, err := priceSettings(d, before, after, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].HeartbeatSecs != 5 || len(got[0].Before) != len(trafficLevels) {
		t.Fatalf("priced %+v, want the one setting measured on both sides", got)
	}
	b, a := got[0].Before[0], got[0].After[0]
	if b.PerHour.Requests != 722 || a.PerHour.Requests != 362 {
		t.Errorf("requests %v → %v, want 722 (one an interval, a join, a leave) → 362 (counted)", b.PerHour.Requests, a.PerHour.Requests)
	}
	if want := PriceInstanceTime(d, trafficLevels[0], 362, 0.001, 0.008); a.Instance != want {
		t.Errorf("instance time %+v, want %+v", a.Instance, want)
	}
	if a.USD() != a.PerHour.FirestoreUSD()+a.PerHour.RequestsUSD()+a.Instance.USD || a.USD() >= b.USD() {
		t.Errorf("whole price %v → %v", b.USD(), a.USD())
	}
	load := &workload.WorkloadReport{ServerCPU: &workload.CPUReport{Seconds: 3, Requests: 1000, MillisPerRequest: 3}}
	before[0].Report.ServerCPU = nil
	if _, err := priceSettings(d, before, after, nil, nil); err == nil {
		t.Error("a run without the server's CPU time was priced")
	}
	got, err = priceSettings(d, before, after, load, nil)
	if err != nil || got[0].Before[0].Instance.CPUSeconds != 0.003 {
		t.Errorf("without its own CPU time a run takes its load run's: %+v, %v", got, err)
	}
}
