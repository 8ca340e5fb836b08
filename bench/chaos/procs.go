package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/workload"
)

// chaosProcs are the chaos scenario's roomlease-dev processes, each with its
// own sweeper, on one emulator: slot i listens on port Port+i through all
// its incarnations. The chaos loop kills, restarts, freezes and thaws them;
// the users' requests go to a random slot that is not down, as a load
// balancer that does not know about a stalled instance would send them.
type chaosProcs struct {
	o      harness.Options
	env    map[string]string
	logDir string
	start  time.Time

	mu    sync.Mutex
	slots []*chaosSlot
	rng   *rand.Rand // the chaos loop's draws and the users' routing
	log   []Action
}

type slotState int

const (
	slotUp slotState = iota
	slotFrozen
	slotDown // killed, or being restarted
)

// chaosSlot is one port and the process currently behind it.
type chaosSlot struct {
	idx         int
	port        int
	api         *workload.API // its HTTP client; connections are dropped at a kill
	srv         *workload.Server
	state       slotState
	incarnation int
	pids        []int
}

// Action is one entry of the chaos timeline.
type Action struct {
	AtSeconds float64 `json:"atSeconds"`
	At        string  `json:"at"`
	Action    string  `json:"action"` // kill, restart, restartFailed, freeze, thaw
	Process   int     `json:"process"`
	PID       int     `json:"pid"`
}

func (p *chaosProcs) record(action string, s *chaosSlot, pid int) {
	now := time.Now()
	p.log = append(p.log, Action{AtSeconds: now.Sub(p.start).Seconds(), At: now.Format("15:04:05.000"), Action: action, Process: s.idx, PID: pid})
}

// startChaosProcs starts n processes on ports port, port+1, ….
func startChaosProcs(ctx context.Context, o harness.Options, env map[string]string, n, port int, seed uint64) (*chaosProcs, error) {
	dir, err := os.MkdirTemp("", "roomlease-bench-chaos-")
	if err != nil {
		return nil, err
	}
	p := &chaosProcs{o: o, env: env, logDir: dir, start: time.Now(), rng: rand.New(rand.NewPCG(seed, seed^0x5bd1e995))}
	for i := range n {
		s := &chaosSlot{idx: i, port: port + i, state: slotDown, api: workload.NewAPI(fmt.Sprintf("http://127.0.0.1:%d", port+i))}
		p.slots = append(p.slots, s)
		if err := p.launch(ctx, s); err != nil {
			p.stopAll()
			return nil, err
		}
	}
	return p, nil
}

// launch starts a new incarnation of s. A port in the kernel's ephemeral
// range may be held for a while by an outgoing connection (see the fleet),
// so it retries for up to half a minute.
func (p *chaosProcs) launch(ctx context.Context, s *chaosSlot) error {
	var err error
	for attempt := 0; attempt < 10 && ctx.Err() == nil; attempt++ {
		p.mu.Lock()
		s.incarnation++
		logPath := filepath.Join(p.logDir, fmt.Sprintf("process-%d-%d.log", s.idx, s.incarnation))
		p.mu.Unlock()
		var srv *workload.Server
		if srv, err = workload.StartServerOnPort(ctx, p.o.ServerBin, s.port, p.env, logPath); err == nil {
			p.mu.Lock()
			s.srv, s.state = srv, slotUp
			s.pids = append(s.pids, srv.PID)
			if len(s.pids) > 1 {
				p.record("restart", s, srv.PID)
			}
			p.mu.Unlock()
			return nil
		}
		workload.SleepCtx(ctx, 3*time.Second)
	}
	if err == nil {
		err = ctx.Err() // interrupted before the first attempt
	}
	return fmt.Errorf("process %d (port %d): %w", s.idx, s.port, err)
}

// pick returns a slot to send a request to, a random one that is not down
// (other than avoid when there is a choice; avoid < 0: none), and the
// process behind it at this moment (nil before its first start).
func (p *chaosProcs) pick(avoid int) (*chaosSlot, *workload.Server) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var open []*chaosSlot
	for _, s := range p.slots {
		if s.state != slotDown && s.idx != avoid {
			open = append(open, s)
		}
	}
	if len(open) == 0 {
		for _, s := range p.slots {
			if s.state != slotDown {
				open = append(open, s)
			}
		}
	}
	if len(open) == 0 {
		open = p.slots // every one down: the request fails and is retried
	}
	s := open[p.rng.IntN(len(open))]
	return s, s.srv
}

// chaosPlan shapes the chaos loop.
type chaosPlan struct {
	MinGap, MaxGap       time.Duration // between two actions
	MinDown, MaxDown     time.Duration // from a kill to the restart
	MinFreeze, MaxFreeze time.Duration
	// Healthy is how many processes must stay up and not frozen: an action
	// that would leave fewer is not taken.
	Healthy int
}

func (c chaosPlan) between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
}

// runChaos kills and freezes processes until ctx ends; then it waits for
// the thaws and restarts it scheduled, and returns once they are done.
// restartCtx bounds the restarts (the whole run's context: a restart is
// part of the chaos, and goes on after ctx ends, but not after an
// interrupt).
func (p *chaosProcs) runChaos(ctx, restartCtx context.Context, plan chaosPlan) {
	var pending sync.WaitGroup // restarts and thaws scheduled
	for {
		p.mu.Lock()
		gap := plan.between(p.rng, plan.MinGap, plan.MaxGap)
		p.mu.Unlock()
		workload.SleepCtx(ctx, gap)
		if ctx.Err() != nil {
			break
		}
		p.mu.Lock()
		var healthy []*chaosSlot
		for _, s := range p.slots {
			if s.state != slotDown && s.srv.Exited() {
				// Not our doing: a process that ended by itself is a
				// finding. It is restarted like a killed one.
				s.state = slotDown
				p.record("exitedByItself", s, s.srv.PID)
				p.o.Log(fmt.Sprintf("chaos: process %d (pid %d) exited by itself; see %s", s.idx, s.srv.PID, p.logDir))
				pending.Add(1)
				go func() { defer pending.Done(); p.relaunch(restartCtx, s) }()
			}
			if s.state == slotUp {
				healthy = append(healthy, s)
			}
		}
		if len(healthy) <= plan.Healthy {
			p.mu.Unlock()
			continue
		}
		s := healthy[p.rng.IntN(len(healthy))]
		kill := p.rng.IntN(2) == 0
		down := plan.between(p.rng, plan.MinDown, plan.MaxDown)
		frozen := plan.between(p.rng, plan.MinFreeze, plan.MaxFreeze)
		srv := s.srv
		if kill {
			s.state = slotDown
			p.record("kill", s, srv.PID)
		} else {
			s.state = slotFrozen
			p.record("freeze", s, srv.PID)
		}
		p.mu.Unlock()
		pending.Add(1)
		if kill {
			srv.Kill()
			s.api.HTTP.CloseIdleConnections()
			go func() {
				defer pending.Done()
				time.Sleep(down)
				p.relaunch(restartCtx, s)
			}()
			continue
		}
		if err := srv.Freeze(); err != nil {
			p.o.Log(fmt.Sprintf("chaos: freezing process %d: %v", s.idx, err))
		}
		go func() {
			defer pending.Done()
			time.Sleep(frozen)
			p.mu.Lock()
			defer p.mu.Unlock()
			if err := srv.Thaw(); err != nil {
				p.o.Log(fmt.Sprintf("chaos: thawing process %d: %v", s.idx, err))
			}
			s.state = slotUp
			p.record("thaw", s, srv.PID)
		}()
	}
	pending.Wait()
}

// relaunch starts s again, recording a failure.
func (p *chaosProcs) relaunch(ctx context.Context, s *chaosSlot) {
	if err := p.launch(ctx, s); err != nil {
		p.mu.Lock()
		p.record("restartFailed", s, 0)
		p.mu.Unlock()
		p.o.Log("chaos: " + err.Error())
	}
}

// restoreAll brings every slot back once the chaos is over: a process
// whose restart failed, or that ended by itself, is started again.
func (p *chaosProcs) restoreAll(ctx context.Context) {
	for _, s := range p.slots {
		p.mu.Lock()
		down := s.state == slotDown || s.srv == nil || s.srv.Exited()
		if down && s.srv != nil && s.state != slotDown {
			p.record("exitedByItself", s, s.srv.PID)
		}
		p.mu.Unlock()
		if down {
			p.relaunch(ctx, s)
		}
	}
}

// counts returns how many times each action was taken.
func (p *chaosProcs) counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for _, a := range p.log {
		out[a.Action]++
	}
	return out
}

// timeline returns a copy of the chaos timeline.
func (p *chaosProcs) timeline() []Action {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Action(nil), p.log...)
}

// actionsAround lists the chaos actions from before ahead of at up to at.
func (p *chaosProcs) actionsAround(at time.Time, before time.Duration) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	from := at.Sub(p.start).Seconds() - before.Seconds()
	to := at.Sub(p.start).Seconds()
	var out []string
	for _, a := range p.log {
		if a.AtSeconds >= from && a.AtSeconds <= to {
			out = append(out, fmt.Sprintf("%s %s process %d (pid %d)", a.At, a.Action, a.Process, a.PID))
		}
	}
	return out
}

// stopAll thaws and stops every process (Server.Stop continues a frozen
// one before its SIGTERM), by PID.
func (p *chaosProcs) stopAll() {
	p.mu.Lock()
	var srvs []*workload.Server
	for _, s := range p.slots {
		if s.srv != nil {
			srvs = append(srvs, s.srv)
		}
		s.state = slotDown
	}
	p.mu.Unlock()
	for _, srv := range srvs {
		srv.Stop()
	}
	for _, s := range p.slots {
		s.api.HTTP.CloseIdleConnections()
	}
}
