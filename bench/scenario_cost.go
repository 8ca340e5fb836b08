package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/bench/workload"
)

// CloudPrices are the list prices the cost scenario assumes, US$. Each has
// its source in BENCHMARKS.md ("What a deployment costs"); none is
// measured here, and all change: check them before relying on a figure.
var CloudPrices = struct {
	// Cloud Run (Cloud Run functions 2nd gen are billed as Cloud Run),
	// Tier 1 region, CPU allocated only during requests.
	VCPUSecond, GiBSecond, PerMillionRequests float64
	FreeVCPUSeconds, FreeGiBSeconds           float64 // per billing account and month
	FreeRequests                              float64
	SchedulerJobMonth                         float64 // 3 jobs free per billing account
	MonitoringPerMiB                          float64 // chargeable metrics, 150 MiB free per billing account
	FreeMonitoringMiB                         float64
}{
	VCPUSecond: 0.000024, GiBSecond: 0.0000025, PerMillionRequests: 0.40,
	FreeVCPUSeconds: 180000, FreeGiBSeconds: 360000, FreeRequests: 2e6,
	SchedulerJobMonth: 0.10, MonitoringPerMiB: 0.258, FreeMonitoringMiB: 150,
}

// HoursPerMonth is the month the prices are quoted for (730 h).
const HoursPerMonth = 730.0

// defaultCPU is the vCPU a Cloud Run function gets for its memory when
// available_cpu is not set (the documented memory/CPU tiers).
var defaultCPU = map[string]float64{"128Mi": 0.083, "256Mi": 0.167, "512Mi": 0.333, "1Gi": 0.583, "2Gi": 1}

// sweepMaxPause is sweep.Config's default MaxWait (functions/sweep/config.go),
// which Terraform leaves in place (it sets no ROOMLEASE_SWEEP_MAX_PAUSE).
const sweepMaxPause = 5.0

// SweepDeployment is what terraform/ deploys for the sweeper, read from
// the .tf files so that the cost follows the configuration.
type SweepDeployment struct {
	Memory         string  `json:"memory"`
	MemoryGiB      float64 `json:"memoryGiB"`
	VCPU           float64 `json:"vcpu"`
	BudgetSeconds  float64 `json:"budgetSeconds"`
	LogMetrics     int     `json:"logBasedMetrics"`
	AlertPolicies  int     `json:"alertPolicies"`
	SchedulerJobs  int     `json:"schedulerJobs"`
	CPUFromDefault bool    `json:"cpuFromMemoryDefault"`
}

// ReadSweepDeployment reads the Sweep function's memory and CPU, its budget
// default, and the log-based metrics, alert policies and scheduler jobs
// from the Terraform files in dir.
func ReadSweepDeployment(dir string) (SweepDeployment, error) {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		return string(b), err
	}
	functions, err := read("functions.tf")
	if err != nil {
		return SweepDeployment{}, err
	}
	variables, err := read("variables.tf")
	if err != nil {
		return SweepDeployment{}, err
	}
	monitoring, err := read("monitoring.tf")
	if err != nil {
		return SweepDeployment{}, err
	}
	scheduler, err := read("scheduler.tf")
	if err != nil {
		return SweepDeployment{}, err
	}
	var d SweepDeployment
	block := tfBlock(functions, `resource "google_cloudfunctions2_function" "sweep"`)
	if m := regexp.MustCompile(`available_memory\s*=\s*"([^"]+)"`).FindStringSubmatch(block); m != nil {
		d.Memory = m[1]
	} else {
		return d, fmt.Errorf("no available_memory in the sweep function of functions.tf")
	}
	switch {
	case strings.HasSuffix(d.Memory, "Mi"):
		n, _ := strconv.ParseFloat(strings.TrimSuffix(d.Memory, "Mi"), 64)
		d.MemoryGiB = n / 1024
	case strings.HasSuffix(d.Memory, "Gi"):
		d.MemoryGiB, _ = strconv.ParseFloat(strings.TrimSuffix(d.Memory, "Gi"), 64)
	}
	if m := regexp.MustCompile(`available_cpu\s*=\s*"?([0-9.]+)"?`).FindStringSubmatch(block); m != nil {
		d.VCPU, _ = strconv.ParseFloat(m[1], 64)
	} else if cpu, ok := defaultCPU[d.Memory]; ok {
		d.VCPU, d.CPUFromDefault = cpu, true
	} else {
		return d, fmt.Errorf("no available_cpu and no default CPU known for %s", d.Memory)
	}
	budget := tfBlock(variables, `variable "sweep_budget"`)
	if m := regexp.MustCompile(`default\s*=\s*"(\d+)s"`).FindStringSubmatch(budget); m != nil {
		d.BudgetSeconds, _ = strconv.ParseFloat(m[1], 64)
	} else {
		return d, fmt.Errorf("no sweep_budget default in seconds in variables.tf")
	}
	// One metric per key of sweep_distributions (for_each), plus the
	// plain resources.
	dist := tfBlock(monitoring, `sweep_distributions = {`)
	d.LogMetrics = len(regexp.MustCompile(`(?m)^    [a-z_]+ = \{`).FindAllString(dist, -1))
	d.LogMetrics += strings.Count(monitoring, `resource "google_logging_metric"`) - strings.Count(monitoring, "for_each = local.sweep_distributions")
	d.AlertPolicies = strings.Count(monitoring, `resource "google_monitoring_alert_policy"`)
	d.SchedulerJobs = strings.Count(scheduler, `resource "google_cloud_scheduler_job"`)
	return d, nil
}

// tfBlock returns the text from the line starting with head to its closing
// brace (matched by counting braces).
func tfBlock(src, head string) string {
	i := strings.Index(src, head)
	if i < 0 {
		return ""
	}
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return src[i : j+1]
			}
		}
	}
	return src[i:]
}

// FixedCosts are a deployment's monthly costs that do not depend on
// participants, US$ before any free tier.
type FixedCosts struct {
	Sweep                SweepDeployment `json:"sweep"`
	BusySecondsPerMonth  float64         `json:"busySecondsPerMonth"`
	VCPUSeconds          float64         `json:"vcpuSeconds"`
	GiBSeconds           float64         `json:"gibSeconds"`
	Compute              float64         `json:"sweepComputeUSD"`
	ComputeAfterFreeTier float64         `json:"sweepComputeAfterFreeTierUSD"`
	Requests             float64         `json:"sweepRequestsPerMonth"`
	IdleReadsPerRun      float64         `json:"idleReadsPerRun"`
	IdleReadsPerMonth    float64         `json:"idleReadsPerMonth"`
	StatusWritesPerMonth float64         `json:"statusWritesPerMonth"`
	Firestore            float64         `json:"sweepFirestoreUSD"`
	Scheduler            float64         `json:"schedulerUSD"`
	MetricPointsPerMonth float64         `json:"metricPointsPerMonth"`
	FreeBytesPerPoint    float64         `json:"bytesPerPointWithinFreeAllotment"`
	Total                float64         `json:"totalUSD"`
	TotalAfterFreeTiers  float64         `json:"totalAfterFreeTiersUSD"`
}

// ComputeFixedCosts prices the sweeper as deployed: one run a minute, each
// busy for the budget (billed only while it handles the request), an idle
// pass every sweepMaxPause of it at the measured reads, one status write a
// run; the scheduler job; and the log-based metrics' points (one a minute
// per metric, the report line's rate; their billed size is not priced).
func ComputeFixedCosts(d SweepDeployment, idle measure.SweepCost) FixedCosts {
	runs := 60 * HoursPerMonth
	f := FixedCosts{Sweep: d, Requests: runs}
	f.BusySecondsPerMonth = runs * d.BudgetSeconds
	f.VCPUSeconds = f.BusySecondsPerMonth * d.VCPU
	f.GiBSeconds = f.BusySecondsPerMonth * d.MemoryGiB
	f.Compute = f.VCPUSeconds*CloudPrices.VCPUSecond + f.GiBSeconds*CloudPrices.GiBSecond
	f.ComputeAfterFreeTier = math.Max(0, f.VCPUSeconds-CloudPrices.FreeVCPUSeconds)*CloudPrices.VCPUSecond +
		math.Max(0, f.GiBSeconds-CloudPrices.FreeGiBSeconds)*CloudPrices.GiBSecond
	passes := math.Ceil(d.BudgetSeconds / sweepMaxPause)
	f.IdleReadsPerRun = passes * (idle.ReadsPerPass + float64(idle.NextDeadlineReads))
	f.IdleReadsPerMonth = runs * f.IdleReadsPerRun
	f.StatusWritesPerMonth = runs
	f.Firestore = (f.IdleReadsPerMonth*Prices.Reads + f.StatusWritesPerMonth*Prices.Writes) / 100000
	f.Scheduler = float64(d.SchedulerJobs) * CloudPrices.SchedulerJobMonth
	f.MetricPointsPerMonth = runs * float64(d.LogMetrics)
	f.FreeBytesPerPoint = CloudPrices.FreeMonitoringMiB * (1 << 20) / f.MetricPointsPerMonth
	f.Total = f.Compute + f.Firestore + f.Scheduler
	f.TotalAfterFreeTiers = f.ComputeAfterFreeTier + f.Firestore // the scheduler's 3 free jobs cover it
	return f
}

// PerHour is the variable cost of one participant-hour at one setting.
type PerHour struct {
	HeartbeatSecs, LeaseSecs float64
	Reads, Writes            float64
	Requests                 float64 // API calls: heartbeats, a join, a leave
}

// FirestoreUSD is the Firestore cost of the hour (deletes priced as writes).
func (p PerHour) FirestoreUSD() float64 {
	return (p.Reads*Prices.Reads + p.Writes*Prices.Writes) / 100000
}

// RequestsUSD is the Presence function's per-request charge for the hour.
func (p PerHour) RequestsUSD() float64 { return p.Requests * CloudPrices.PerMillionRequests / 1e6 }

// MonthlyAt is what a deployment costs in a month at perDay
// participant-hours a day: fixed costs, Firestore and Presence requests
// (before free tiers; Presence's instance time is not included).
func MonthlyAt(f FixedCosts, p PerHour, perDay float64) (firestore, requests, total float64) {
	hours := perDay * HoursPerMonth / 24
	firestore, requests = hours*p.FirestoreUSD(), hours*p.RequestsUSD()
	return firestore, requests, f.Total + firestore + requests
}

// beforeCounts reads the per-operation counts the "before" settings table
// was priced with from its first line.
func beforeCounts(md string) (hbR, hbW, joinR, joinW, leaveR, leaveW float64, err error) {
	m := regexp.MustCompile(`heartbeat (\d+) reads / (\d+) writes; join of a new user (\d+) / (\d+); leave of a user's last tab (\d+) / (\d+)`).FindStringSubmatch(md)
	if m == nil {
		return 0, 0, 0, 0, 0, 0, fmt.Errorf("the before settings table does not state its per-operation counts")
	}
	v := make([]float64, 6)
	for i := range v {
		v[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	return v[0], v[1], v[2], v[3], v[4], v[5], nil
}

// costInputs are the result files the cost scenario compares.
type costInputs struct {
	Before, After         []SettingRun
	BeforeLoad, AfterLoad *workload.WorkloadReport
	BeforeSoak, AfterSoak *workload.WorkloadReport
	Sweep                 sweepResult
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// runCost is `scripts/bench cost`: it runs nothing on the emulator. It
// reads the settings, load, soak and sweep results in the output directory
// and the "before" copies in bench/results/before-renew-when-left/, reads
// the sweeper's deployment from terraform/, and writes the before/after
// table, the fixed costs and the monthly cost of a deployment (cost.md,
// cost.json, cost-writes-by-setting.svg, ghost-time-before-after.svg).
func runCost(_ context.Context, o harness.Options) error {
	var in costInputs
	beforeDir := filepath.Join(o.OutDir, "before-renew-when-left")
	for _, f := range []struct {
		path     string
		v        any
		optional bool
	}{
		{filepath.Join(beforeDir, "settings.json"), &in.Before, false},
		{filepath.Join(o.OutDir, "settings.json"), &in.After, false},
		{filepath.Join(beforeDir, "load.json"), &in.BeforeLoad, false},
		{filepath.Join(o.OutDir, "load.json"), &in.AfterLoad, false},
		{filepath.Join(beforeDir, "soak.json"), &in.BeforeSoak, true},
		{filepath.Join(o.OutDir, "soak.json"), &in.AfterSoak, true},
		{filepath.Join(o.OutDir, "sweep.json"), &in.Sweep, false},
	} {
		if err := readJSON(f.path, f.v); err != nil && !f.optional {
			return fmt.Errorf("cost needs %s (run scripts/bench settings load sweep first): %w", f.path, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(beforeDir, "settings.md"))
	if err != nil {
		return err
	}
	hbR, hbW, joinR, joinW, leaveR, leaveW, err := beforeCounts(string(md))
	if err != nil {
		return err
	}
	for i := range in.Before {
		r := &in.Before[i]
		hb := 3600 / r.HeartbeatSecs
		r.Reads, r.Writes, r.RenewWhenLeft = hb*hbR+joinR+leaveR, hb*hbW+joinW+leaveW, 1
	}
	d, err := ReadSweepDeployment("terraform/modules/roomlease")
	if err != nil {
		return err
	}
	fixed := ComputeFixedCosts(d, in.Sweep.Idle10k)
	if err := o.SVG("cost-writes-by-setting", WritesBySettingPlot(in.Before, in.After)); err != nil {
		return err
	}
	if err := o.SVG("ghost-time-before-after", GhostBeforeAfterPlot(in.Before, in.After)); err != nil {
		return err
	}
	out := struct {
		Before, After []SettingRun
		Fixed         FixedCosts
	}{in.Before, in.After, fixed}
	return o.Write("cost", CostMarkdown(in, fixed), out)
}

func perHourOf(r SettingRun) PerHour {
	return PerHour{HeartbeatSecs: r.HeartbeatSecs, LeaseSecs: r.LeaseSecs, Reads: r.Reads, Writes: r.Writes, Requests: 3600/r.HeartbeatSecs + 2}
}

// CostMarkdown renders the before/after comparison, the fixed costs with
// their arithmetic, and the monthly cost of a deployment.
func CostMarkdown(in costInputs, f FixedCosts) string {
	var b strings.Builder
	b.WriteString("#### Per participant-hour, before (every heartbeat renews) and after (renew when at most half the lease is left)\n\n")
	b.WriteString("| heartbeat / lease | reads | writes | US$ per 1 000 participant-hours (Firestore) | ghost p50 | ghost p99 | ghost max | crashes (n) | false removals |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, a := range in.After {
		if i >= len(in.Before) {
			break
		}
		bf := in.Before[i]
		pb, pa := perHourOf(bf), perHourOf(a)
		gb, ga := bf.Report.GhostTime, a.Report.GhostTime
		fmt.Fprintf(&b, "| %.0f s / %.0f s | %.0f → %.0f | %.0f → **%.0f** (%.2f×) | $%.2f → **$%.2f** | %s → %s | %s → %s | %s → %s | %d → %d | %d → %d |\n",
			a.HeartbeatSecs, a.LeaseSecs, bf.Reads, a.Reads, bf.Writes, a.Writes, a.Writes/bf.Writes,
			1000*pb.FirestoreUSD(), 1000*pa.FirestoreUSD(),
			render.Secs(gb.P50), render.Secs(ga.P50), render.Secs(gb.P99), render.Secs(ga.P99), render.Secs(gb.Max), render.Secs(ga.Max), gb.N, ga.N,
			bf.Report.FalseRemovals, a.Report.FalseRemovals)
	}
	b.WriteString("\n| run (5 s / 15 s) | ghost p50 | ghost p99 | ghost max | beyond lease p99 | crashes (n) | false removals | heartbeats rejected after the lease end |\n|---|---|---|---|---|---|---|---|\n")
	row := func(name string, bf, a *workload.WorkloadReport) {
		if bf == nil || a == nil || a.Name == "" {
			fmt.Fprintf(&b, "| %s | not run | | | | | | |\n", name)
			return
		}
		fmt.Fprintf(&b, "| %s | %s → %s | %s → %s | %s → %s | %s → %s | %d → %d | %d → %d | %d → %d |\n", name,
			render.Secs(bf.GhostTime.P50), render.Secs(a.GhostTime.P50), render.Secs(bf.GhostTime.P99), render.Secs(a.GhostTime.P99),
			render.Secs(bf.GhostTime.Max), render.Secs(a.GhostTime.Max), render.Secs(bf.GhostBeyond.P99), render.Secs(a.GhostBeyond.P99),
			bf.GhostTime.N, a.GhostTime.N, bf.FalseRemovals, a.FalseRemovals, bf.LateExpiries, a.LateExpiries)
	}
	row(fmt.Sprintf("load (%d users)", in.AfterLoad.Users), in.BeforeLoad, in.AfterLoad)
	soakName := "soak"
	if in.AfterSoak != nil {
		soakName = fmt.Sprintf("soak (%d users; before %.0f min, after %.0f min)", in.AfterSoak.Users, in.BeforeSoak.ElapsedSecs/60, in.AfterSoak.ElapsedSecs/60)
	}
	row(soakName, in.BeforeSoak, in.AfterSoak)

	d := f.Sweep
	cpuNote := "set by `available_cpu`"
	if d.CPUFromDefault {
		cpuNote = "the default for " + d.Memory + "; no `available_cpu` is set"
	}
	b.WriteString("\n#### Fixed monthly costs (730 h), as `terraform/` deploys them\n\n")
	b.WriteString("| item | arithmetic | US$ per month |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| Sweep instance time | %s runs (one a minute) × %.0f s busy = %s s; × %.3f vCPU (%s) = %s vCPU-s × $%.6f; × %.3f GiB (%s) = %s GiB-s × $%.7f | **$%.2f** ($%.2f if the billing account's free %s vCPU-s and %s GiB-s are otherwise unused) |\n",
		thousands(f.Requests), d.BudgetSeconds, thousands(f.BusySecondsPerMonth), d.VCPU, cpuNote, thousands(f.VCPUSeconds), CloudPrices.VCPUSecond,
		d.MemoryGiB, d.Memory, thousands(f.GiBSeconds), CloudPrices.GiBSecond, f.Compute, f.ComputeAfterFreeTier, thousands(CloudPrices.FreeVCPUSeconds), thousands(CloudPrices.FreeGiBSeconds))
	fmt.Fprintf(&b, "| Sweep requests | %s, inside the %s free requests a month | $0 ($%.2f per million beyond) |\n", thousands(f.Requests), thousands(CloudPrices.FreeRequests), CloudPrices.PerMillionRequests)
	fmt.Fprintf(&b, "| Sweep Firestore, idle | %.0f passes a run (%.0f s ÷ %.0f s) × (%.0f reads a pass + %d of the next-deadline query, measured with %s rooms) = %.0f reads a run × %s runs = %s reads × $%.2f/100 000; + %s status writes × $%.2f/100 000 (a named database has no free quota) | **$%.2f** |\n",
		math.Ceil(d.BudgetSeconds/sweepMaxPause), d.BudgetSeconds, sweepMaxPause, in.Sweep.Idle10k.ReadsPerPass, in.Sweep.Idle10k.NextDeadlineReads, thousands(float64(in.Sweep.Idle10k.Rooms)),
		f.IdleReadsPerRun, thousands(f.Requests), thousands(f.IdleReadsPerMonth), Prices.Reads, thousands(f.StatusWritesPerMonth), Prices.Writes, f.Firestore)
	fmt.Fprintf(&b, "| Cloud Scheduler | %d job × $%.2f (3 jobs a month are free per billing account) | **$%.2f** ($0 within the free jobs) |\n", d.SchedulerJobs, CloudPrices.SchedulerJobMonth, f.Scheduler)
	fmt.Fprintf(&b, "| Log-based metrics | %d metrics × one point a minute = %s points; chargeable at $%.3f/MiB beyond %.0f MiB a month per billing account, which they stay within unless a point is billed at more than %.0f bytes (the billed size of a point was not found on the pages consulted) | **$0** (assumed within the free allotment) |\n",
		d.LogMetrics, thousands(f.MetricPointsPerMonth), CloudPrices.MonitoringPerMiB, CloudPrices.FreeMonitoringMiB, f.FreeBytesPerPoint)
	fmt.Fprintf(&b, "| Alert policies | %d policies | not priced (see below) |\n", d.AlertPolicies)
	fmt.Fprintf(&b, "| **total** | | **$%.2f** ($%.2f after free tiers) |\n", f.Total, f.TotalAfterFreeTiers)

	b.WriteString("\n#### A deployment per month, at 5 s / 15 s, before free tiers\n\n")
	b.WriteString("Fixed costs as above, plus Firestore and the Presence function's requests (heartbeats, a join and a leave per participant-hour, $0.40 per million). Not included: Presence's instance time (it depends on latency and concurrency in production), Cloud Logging's request logs, listener reads (they depend on the audience), storage and network.\n\n")
	b.WriteString("| participant-hours a day | Firestore before → after | Presence requests | fixed | total before → after |\n|---|---|---|---|---|\n")
	var pb, pa PerHour
	for i, a := range in.After {
		if a.HeartbeatSecs == 5 && i < len(in.Before) {
			pb, pa = perHourOf(in.Before[i]), perHourOf(a)
		}
	}
	for _, perDay := range []float64{0, 1000, 100000} {
		fsB, rqB, totB := MonthlyAt(f, pb, perDay)
		fsA, _, totA := MonthlyAt(f, pa, perDay)
		fmt.Fprintf(&b, "| %s | $%s → $%s | $%s | $%.2f | $%s → **$%s** |\n", thousands(perDay), money(fsB), money(fsA), money(rqB), f.Total, money(totB), money(totA))
	}
	fmt.Fprintf(&b, "\nA participant-hour at 5 s / 15 s: %.0f reads and %.0f writes (US$%.5f) before, %.0f and %.0f (US$%.5f) after; %.0f requests (US$%.5f) either way.\n",
		pb.Reads, pb.Writes, pb.FirestoreUSD(), pa.Reads, pa.Writes, pa.FirestoreUSD(), pa.Requests, pa.RequestsUSD())
	return b.String()
}

func money(v float64) string {
	if v >= 100 {
		return thousands(math.Round(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// thousands formats a whole number with thin spaces between thousands.
func thousands(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	var out []string
	for len(s) > 3 {
		out = append([]string{s[len(s)-3:]}, out...)
		s = s[:len(s)-3]
	}
	return strings.Join(append([]string{s}, out...), " ")
}
