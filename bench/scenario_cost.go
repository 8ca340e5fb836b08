package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/measure"
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
	if d.Memory, d.MemoryGiB, err = tfMemory(block); err != nil {
		return d, fmt.Errorf("the sweep function: %w", err)
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
	// The rollout's: one per count and slice (observed, enforced).
	rollout := tfBlock(monitoring, `rollout_counts = {`)
	d.LogMetrics += 2 * len(regexp.MustCompile(`(?m)^    [a-z_]+ += "`).FindAllString(rollout, -1))
	d.LogMetrics += strings.Count(monitoring, `resource "google_logging_metric"`) - strings.Count(monitoring, "for_each = merge(local.sweep_distributions")
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

// costInputs are the result files the cost scenario compares.
type costInputs struct {
	Before, After         []SettingRun
	BeforeLoad, AfterLoad *workload.WorkloadReport
	BeforeSoak, AfterSoak *workload.WorkloadReport
	Sweep                 sweepResult
	Presence              PresenceDeployment
	Settings              []CostSetting
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
// and the "before" copies in bench/results/before-lease-token/, reads the
// Presence and Sweep deployments from terraform/, and writes the
// before/after tables priced whole (Firestore, requests, instance time at
// 10 and 1 000 participants), the fixed costs and the monthly cost of a
// deployment (cost.md, cost.json, cost-vs-ghost-time.svg,
// cost-writes-by-setting.svg, ghost-time-before-after.svg).
func runCost(_ context.Context, o harness.Options) error {
	var in costInputs
	before := filepath.Join(o.OutDir, beforeDir)
	for _, f := range []struct {
		path     string
		v        any
		optional bool
	}{
		{filepath.Join(before, "settings.json"), &in.Before, false},
		{filepath.Join(o.OutDir, "settings.json"), &in.After, false},
		{filepath.Join(before, "load.json"), &in.BeforeLoad, false},
		{filepath.Join(o.OutDir, "load.json"), &in.AfterLoad, false},
		{filepath.Join(before, "soak.json"), &in.BeforeSoak, true},
		{filepath.Join(o.OutDir, "soak.json"), &in.AfterSoak, true},
		{filepath.Join(o.OutDir, "sweep.json"), &in.Sweep, false},
	} {
		if err := readJSON(f.path, f.v); err != nil && !f.optional {
			return fmt.Errorf("cost needs %s (run scripts/bench settings load sweep first): %w", f.path, err)
		}
	}
	d, err := ReadSweepDeployment(terraformModule)
	if err != nil {
		return err
	}
	if in.Presence, err = ReadPresenceDeployment(terraformModule); err != nil {
		return err
	}
	if in.Settings, err = priceSettings(in.Presence, in.Before, in.After, in.BeforeLoad, in.AfterLoad); err != nil {
		return err
	}
	fixed := ComputeFixedCosts(d, in.Sweep.Idle10k)
	for name, svg := range map[string]string{
		"cost-vs-ghost-time":      CostGhostPlot(in.Settings),
		"cost-writes-by-setting":  WritesBySettingPlot(in.Before, in.After),
		"ghost-time-before-after": GhostBeforeAfterPlot(in.Before, in.After),
	} {
		if err := o.SVG(name, svg); err != nil {
			return err
		}
	}
	out := struct {
		Before, After []SettingRun
		Priced        []CostSetting
		Presence      PresenceDeployment
		Fixed         FixedCosts
	}{in.Before, in.After, in.Settings, in.Presence, fixed}
	return o.Write("cost", CostMarkdown(in, fixed), out)
}

// perHourOf is a setting's participant-hour: its counted requests, or for
// a result without them (a client that heartbeats every interval) one a
// heartbeat interval, a join and a leave.
func perHourOf(r SettingRun) PerHour {
	requests := r.Requests
	if requests == 0 {
		requests = 3600/r.HeartbeatSecs + 2
	}
	return PerHour{HeartbeatSecs: r.HeartbeatSecs, LeaseSecs: r.LeaseSecs, Reads: r.Reads, Writes: r.Writes, Requests: requests}
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

// trafficLevels are the numbers of participants online around the clock
// at which instance time is priced: it depends on how busy an instance is.
var trafficLevels = []int{10, 1000}

// terraformModule is where the deployment the costs follow is described
// (its .tf files are read, not run).
const terraformModule = "terraform/modules/roomlease"

// beforeDir holds the "before" side of the comparison: the results of the
// code before the lease token (commit 44580c2), with the same load
// generator (bench/results/before-lease-token/README.md).
const beforeDir = "before-lease-token"

// FullCost is a participant-hour priced whole at one setting and one
// traffic level: Firestore, requests and instance time.
type FullCost struct {
	PerHour  PerHour      `json:"perHour"`
	Instance InstanceTime `json:"instanceTime"`
}

// USD is the participant-hour's whole price.
func (c FullCost) USD() float64 {
	return c.PerHour.FirestoreUSD() + c.PerHour.RequestsUSD() + c.Instance.USD
}

// priceRun prices a settings run's participant-hour at participants
// online, with its own heartbeat latency and its own measured CPU per
// request, or, for a run that did not record it (settings runs before
// they passed the server's PID), that of the same side's load run.
func priceRun(d PresenceDeployment, r SettingRun, load *workload.WorkloadReport, participants int) (FullCost, error) {
	cpu := r.Report.ServerCPU
	if cpu == nil && load != nil {
		cpu = load.ServerCPU
	}
	if cpu == nil || cpu.Requests == 0 {
		return FullCost{}, fmt.Errorf("the %.0f s / %.0f s run and its load run have no server CPU time (re-run scripts/bench settings load)", r.HeartbeatSecs, r.LeaseSecs)
	}
	p := perHourOf(r)
	latency := r.Report.Ops[workload.OpHeartbeat].Latency.P50 / 1000
	return FullCost{PerHour: p, Instance: PriceInstanceTime(d, participants, p.Requests, cpu.MillisPerRequest/1000, latency)}, nil
}

// CostSetting is one heartbeat/lease setting priced whole, before and
// after, at each traffic level.
type CostSetting struct {
	HeartbeatSecs float64    `json:"heartbeatSeconds"`
	LeaseSecs     float64    `json:"leaseSeconds"`
	Before, After []FullCost `json:"-"`
	// BeforeRun and AfterRun are the settings runs priced.
	BeforeRun, AfterRun SettingRun `json:"-"`
}

// priceSettings pairs the before and after runs by setting and prices
// each at every traffic level (beforeLoad and afterLoad: each side's load
// run, for a settings run without CPU time).
func priceSettings(d PresenceDeployment, before, after []SettingRun, beforeLoad, afterLoad *workload.WorkloadReport) ([]CostSetting, error) {
	var out []CostSetting
	for _, a := range after {
		i := slices.IndexFunc(before, func(b SettingRun) bool { return b.HeartbeatSecs == a.HeartbeatSecs && b.LeaseSecs == a.LeaseSecs })
		if i < 0 {
			continue
		}
		cs := CostSetting{HeartbeatSecs: a.HeartbeatSecs, LeaseSecs: a.LeaseSecs, BeforeRun: before[i], AfterRun: a}
		for _, n := range trafficLevels {
			b, err1 := priceRun(d, before[i], beforeLoad, n)
			c, err2 := priceRun(d, a, afterLoad, n)
			if err := errors.Join(err1, err2); err != nil {
				return nil, err
			}
			cs.Before, cs.After = append(cs.Before, b), append(cs.After, c)
		}
		out = append(out, cs)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no setting was measured both before and after")
	}
	return out, nil
}
