package fleet

import (
	"github.com/roomlease/roomlease/bench/workload"
)

// Attempt is one request of a crowd burst, as its client saw it.
type Attempt struct {
	Process int     `json:"process"`
	OK      bool    `json:"ok"`
	Outcome string  `json:"outcome"` // "200", "503 unavailable", "timeout", "transport"
	Ms      float64 `json:"ms"`      // send → answer, or send → failure
	// Steps are the server's own times of its steps (Server-Timing), ms
	// by step name; nil when no answer came.
	Steps map[string]float64 `json:"steps,omitempty"`
}

// BurstSummary is what one burst (a crowd joining or leaving at once) did.
type BurstSummary struct {
	Attempts int `json:"attempts"`
	OK       int `json:"ok"`
	// Latency covers every attempt, failed ones at the moment they failed:
	// the crowd's experience, not only the lucky part of it. A request that
	// ran into the client timeout counts as the timeout, so a percentile at
	// or above it is only a lower bound (the *Censored flags).
	Latency     workload.Summary `json:"latency"`
	P50Censored bool             `json:"p50AtTimeout"`
	P99Censored bool             `json:"p99AtTimeout"`
	MaxCensored bool             `json:"maxAtTimeout"`
	Outcomes    map[string]int   `json:"outcomes"`
	TimeoutMs   float64          `json:"timeoutMs"`
	// Steps summarizes, per server step (steptime names: gates, join-txn,
	// join-size, join-room, join-revision, leave-txn and its parts,
	// leave-settle), the
	// times the answered requests reported; a request that timed out on
	// the client reported none, so these describe the answered ones.
	Steps map[string]workload.Summary `json:"steps,omitempty"`
	// PastGates summarizes, over the answered requests that timed their
	// gates, each request's latency less its gates (the address and user
	// rates, App Check and the ID token, which on the emulators waits for
	// the Auth emulator): the part roomlease's store and the machine decide.
	PastGates *workload.Summary `json:"pastGates,omitempty"`
	// CPU is what each party of the run used while the burst ran.
	CPU *CPUUse `json:"cpu,omitempty"`
}

// SummarizeBurst summarizes attempts made with a client timeout of timeoutMs.
func SummarizeBurst(attempts []Attempt, timeoutMs float64) BurstSummary {
	s := BurstSummary{Attempts: len(attempts), Outcomes: map[string]int{}, TimeoutMs: timeoutMs}
	vals := make([]float64, 0, len(attempts))
	steps := map[string][]float64{}
	var past []float64
	for _, a := range attempts {
		if a.OK {
			s.OK++
			if gates, ok := a.Steps["gates"]; ok {
				past = append(past, max(a.Ms-gates, 0))
			}
		}
		s.Outcomes[a.Outcome]++
		vals = append(vals, a.Ms)
		for name, ms := range a.Steps {
			steps[name] = append(steps[name], ms)
		}
	}
	if len(steps) > 0 {
		s.Steps = map[string]workload.Summary{}
		for name, v := range steps {
			s.Steps[name] = workload.Summarize(v)
		}
	}
	if len(past) > 0 {
		p := workload.Summarize(past)
		s.PastGates = &p
	}
	s.Latency = workload.Summarize(vals)
	if s.Latency.N > 0 {
		s.P50Censored = s.Latency.P50 >= timeoutMs
		s.P99Censored = s.Latency.P99 >= timeoutMs
		s.MaxCensored = s.Latency.Max >= timeoutMs
	}
	return s
}

// P99Ratio compares a crowd in one room with the same crowd in separate
// rooms (the floor): how much the shared room costs at the tail.
type P99Ratio struct {
	Processes   int     `json:"processes"`
	Crowd       int     `json:"crowd"`
	Op          string  `json:"op"`
	OneRoomP99  float64 `json:"oneRoomP99Ms"`
	SeparateP99 float64 `json:"separateRoomsP99Ms"`
	Ratio       float64 `json:"ratio"`
	// Bound is "" when both p99s were measured, ">=" when only the one-room
	// p99 hit the timeout (the true ratio is at least Ratio), "<=" when only
	// the floor did, "?" when both did (the ratio says nothing).
	Bound string `json:"bound,omitempty"`
}

// CompareP99 returns one-room p99 ÷ separate-rooms p99 and how far it can be
// trusted (see P99Ratio.Bound). With no floor to divide by, the ratio is 0.
func CompareP99(one, separate BurstSummary) (ratio float64, bound string) {
	ratio = workload.Ratio(one.Latency.P99, separate.Latency.P99)
	switch {
	case one.P99Censored && separate.P99Censored:
		bound = "?"
	case one.P99Censored:
		bound = ">="
	case separate.P99Censored:
		bound = "<="
	}
	return ratio, bound
}
