package sweep

import (
	"fmt"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// Config tunes a sweeper. Zero fields take the defaults.
type Config struct {
	DefaultMode Mode // when roomlease/config sets none; default enforce
	// EnforceSharePercent is the share of rooms (chosen by a hash of the
	// room id, presence.InEnforcedSlice) that enforce mode tears down when
	// roomlease/config sets none; the rest it observes. Nil means 100.
	EnforceSharePercent *float64
	RunBudget           time.Duration // how long Run keeps sweeping; default 55s
	BatchSize           int           // rows per step of a pass; default 200
	// Concurrency is how many candidates of one step (sessions to expire,
	// rooms to check, typing signals to clear, rooms whose events the
	// relay publishes) a pass acts on at once; default 8. Each candidate is its own transaction that re-checks what
	// it acts on, as it must against other sweepers anyway, so acting on
	// several at once decides nothing differently; it only stops one slow
	// step from delaying every deadline listed after it.
	Concurrency int
	// PassTimeout bounds one pass. Firestore's client retries an
	// unreachable backend until the context's deadline, so this is also how
	// long a pass waits before it reports an outage.
	PassTimeout time.Duration // default 20s
	// PurgeBudget bounds a pass's purge of torn-down rooms (step 6); what
	// is left goes on in the next pass, which then comes at once.
	PurgeBudget time.Duration // default 5s
	MinWait     time.Duration // shortest pause between passes; default 100ms
	MaxWait     time.Duration // longest pause between passes; default 5s
	MaxBackoff  time.Duration // longest pause after failures; default 30s
	// RepairLookback is how far back a newly started sweeper re-checks
	// rooms whose roster may have emptied unnoticed; default 10m.
	RepairLookback time.Duration
	// PolicySkew is how far behind the sweeper's clock its watermark of
	// changed room policies trails, for policies whose updatedAt (a server
	// timestamp) was assigned before, but committed after, a pass looked,
	// and for clock skew between this instance and Firestore; default 10s.
	// A newly started sweeper looks back RepairLookback for them too.
	PolicySkew time.Duration
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.DefaultMode == "" {
		c.DefaultMode = Enforce
	}
	def(&c.RunBudget, 55*time.Second)
	def(&c.PassTimeout, 20*time.Second)
	def(&c.PurgeBudget, 5*time.Second)
	def(&c.MinWait, 100*time.Millisecond)
	def(&c.MaxWait, 5*time.Second)
	def(&c.MaxBackoff, 30*time.Second)
	def(&c.RepairLookback, 10*time.Minute)
	def(&c.PolicySkew, 10*time.Second)
	if c.BatchSize == 0 {
		c.BatchSize = 200
	}
	if c.Concurrency == 0 {
		c.Concurrency = 8
	}
	return c
}

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	c = c.withDefaults()
	if _, err := ParseMode(string(c.DefaultMode)); err != nil {
		return err
	}
	if c.EnforceSharePercent != nil {
		if _, err := ParseShare(*c.EnforceSharePercent); err != nil {
			return err
		}
	}
	switch {
	case c.BatchSize < 1 || c.BatchSize > 500:
		return fmt.Errorf("sweep batch size %d must be between 1 and 500", c.BatchSize)
	case c.Concurrency < 1 || c.Concurrency > 64:
		return fmt.Errorf("sweep concurrency %d must be between 1 and 64", c.Concurrency)
	case c.MinWait <= 0 || c.MaxWait < c.MinWait:
		return fmt.Errorf("sweep waits must satisfy 0 < min (%v) <= max (%v)", c.MinWait, c.MaxWait)
	case c.RunBudget < 0:
		return fmt.Errorf("sweep budget %v must not be negative", c.RunBudget)
	}
	return nil
}

// defaultShare is the enforced share, in basis points, when roomlease/config
// sets none.
func (c Config) defaultShare() int {
	if c.EnforceSharePercent == nil {
		return presence.FullShare
	}
	share, _ := ParseShare(*c.EnforceSharePercent) // validated by New
	return share
}
