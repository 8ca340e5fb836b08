package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Cloud Run's request-based billing, as the cost scenario models it (the
// sources are in BENCHMARKS.md, "What a deployment costs"; all are
// assumptions, none is measured here).
const (
	// billingQuantum: an instance's billable time (from the start of its
	// first request to the end of its last one) is rounded up to it.
	billingQuantum = 0.1
	// autoscaleTarget is the share of an instance's CPU, and of its
	// maximum concurrency, that Cloud Run's autoscaler keeps instances at.
	autoscaleTarget = 0.6
)

// PresenceDeployment is the Presence function as terraform/ deploys it.
type PresenceDeployment struct {
	Memory      string  `json:"memory"`
	MemoryGiB   float64 `json:"memoryGiB"`
	VCPU        float64 `json:"vcpu"`
	Concurrency int     `json:"concurrency"`
}

// ReadPresenceDeployment reads the Presence function's CPU, memory and
// request concurrency (the default of var.presence_concurrency, which
// functions.tf passes) from the Terraform files in dir.
func ReadPresenceDeployment(dir string) (PresenceDeployment, error) {
	functions, err := os.ReadFile(filepath.Join(dir, "functions.tf"))
	if err != nil {
		return PresenceDeployment{}, err
	}
	variables, err := os.ReadFile(filepath.Join(dir, "variables.tf"))
	if err != nil {
		return PresenceDeployment{}, err
	}
	block := tfBlock(string(functions), `resource "google_cloudfunctions2_function" "presence"`)
	var d PresenceDeployment
	if d.Memory, d.MemoryGiB, err = tfMemory(block); err != nil {
		return d, fmt.Errorf("the presence function: %w", err)
	}
	m := regexp.MustCompile(`available_cpu\s*=\s*"?([0-9.]+)"?`).FindStringSubmatch(block)
	if m == nil {
		return d, fmt.Errorf("no available_cpu in the presence function of functions.tf")
	}
	d.VCPU, _ = strconv.ParseFloat(m[1], 64)
	if !strings.Contains(block, "max_instance_request_concurrency = var.presence_concurrency") {
		return d, fmt.Errorf("the presence function's concurrency is no longer var.presence_concurrency")
	}
	m = regexp.MustCompile(`default\s*=\s*(\d+)`).FindStringSubmatch(tfBlock(string(variables), `variable "presence_concurrency"`))
	if m == nil {
		return d, fmt.Errorf("no presence_concurrency default in variables.tf")
	}
	d.Concurrency, _ = strconv.Atoi(m[1])
	return d, nil
}

// tfMemory reads available_memory ("512Mi", "1Gi") from a function block.
func tfMemory(block string) (string, float64, error) {
	m := regexp.MustCompile(`available_memory\s*=\s*"([^"]+)"`).FindStringSubmatch(block)
	if m == nil {
		return "", 0, fmt.Errorf("no available_memory")
	}
	if n, ok := strings.CutSuffix(m[1], "Mi"); ok {
		v, err := strconv.ParseFloat(n, 64)
		return m[1], v / 1024, err
	}
	if n, ok := strings.CutSuffix(m[1], "Gi"); ok {
		v, err := strconv.ParseFloat(n, 64)
		return m[1], v, err
	}
	return m[1], 0, fmt.Errorf("memory %q is in neither Mi nor Gi", m[1])
}

// InstanceTime is Presence's instance time at one traffic level: P
// participants online around the clock, each sending RequestsPerHour.
type InstanceTime struct {
	Participants    int     `json:"participants"`
	RequestsPerHour float64 `json:"requestsPerParticipantHour"`
	// CPUSeconds is the CPU a request used (measured); LatencySeconds how
	// long it holds the instance (the measured median, an assumption for
	// production); HeldSeconds that rounded up to the billing quantum.
	CPUSeconds     float64 `json:"cpuSecondsPerRequest"`
	LatencySeconds float64 `json:"latencySeconds"`
	HeldSeconds    float64 `json:"heldSeconds"`
	Instances      int     `json:"instances"`
	// BusyShare is the share of an hour each instance is billed for;
	// InstanceSeconds the billed instance-seconds per participant-hour.
	BusyShare       float64 `json:"busyShare"`
	InstanceSeconds float64 `json:"instanceSecondsPerParticipantHour"`
	USD             float64 `json:"usdPerParticipantHour"`
}

// PriceInstanceTime bills P participants' requests as Cloud Run bills
// request-based instances, in three steps:
//
//  1. Instances: enough to keep CPU, and the requests in flight, at the
//     autoscaler's target share of an instance's CPU and concurrency;
//     at least one.
//  2. Billed time: requests arrive at random (Poisson) and each holds its
//     instance for its latency rounded up to the quantum, so an instance
//     is billed for the share of the hour in which at least one request is
//     held, 1 − e^(−λT) at λ requests a second each held T. Alone (low
//     traffic) every request bills a whole quantum; overlapping ones share
//     it, and a busy instance bills the whole hour however many requests
//     it serves. (Rounding applies to a busy period, not to each request:
//     at the overlap this model bills a little more than Cloud Run.)
//  3. Price: the instance's whole vCPU and memory for the billed time.
func PriceInstanceTime(d PresenceDeployment, participants int, requestsPerHour, cpuSeconds, latencySeconds float64) InstanceTime {
	it := InstanceTime{Participants: participants, RequestsPerHour: requestsPerHour, CPUSeconds: cpuSeconds, LatencySeconds: latencySeconds}
	it.HeldSeconds = math.Ceil(math.Max(latencySeconds, cpuSeconds)/billingQuantum-1e-9) * billingQuantum
	rate := float64(participants) * requestsPerHour / 3600
	byCPU := math.Ceil(rate * cpuSeconds / (autoscaleTarget * d.VCPU))
	byConcurrency := math.Ceil(rate * latencySeconds / (autoscaleTarget * float64(d.Concurrency)))
	it.Instances = int(math.Max(1, math.Max(byCPU, byConcurrency)))
	it.BusyShare = 1 - math.Exp(-rate/float64(it.Instances)*it.HeldSeconds)
	it.InstanceSeconds = float64(it.Instances) * 3600 * it.BusyShare / float64(participants)
	it.USD = it.InstanceSeconds * (d.VCPU*CloudPrices.VCPUSecond + d.MemoryGiB*CloudPrices.GiBSecond)
	return it
}
