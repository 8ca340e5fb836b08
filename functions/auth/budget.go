package auth

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of the lookup budget, per instance. An instance looks each of
// its active users up once per CheckEvery, so at the default 30 s, 100
// lookups a second keep 3 000 active users' answers fresh; with more, each
// answer is refreshed less often (served meanwhile, up to staleLimit: that
// is 30 000 users). A burst of 200 absorbs an instance's start, when every
// user is new to it. With presence_max_instances instances the project
// makes at most that many times the rate.
const (
	DefaultLookupRate  = 100.0
	DefaultLookupBurst = 200
)

// lookupBudget bounds the user lookups of one instance: a token bucket shared
// by every uid, so that a client minting uids (anonymous sign-in makes them
// free, and each new uid costs a lookup) cannot multiply it, and the
// project's Identity Toolkit quota cannot be spent through one instance
// faster than its rate.
//
// Refreshes come first. A lookup of a uid this instance has never answered
// about may only take what is above a reserve of half the burst, while a
// refresh of a known user may take the whole bucket. So a flood of new uids
// drains the bucket down to the reserve and no further; the refill then goes
// to refreshes first, and known users' answers keep being renewed, as long as
// they need less than the rate. (A refresh that finds the bucket empty all the
// same is served from the user's last answer; see userCheck.check.)
type lookupBudget struct {
	rate    float64
	reserve float64

	mu  sync.Mutex
	lim *rate.Limiter
}

func newLookupBudget(r float64, burst int) (*lookupBudget, error) {
	if !(r > 0) || math.IsInf(r, 0) {
		return nil, fmt.Errorf("lookup rate %v must be a positive number of lookups per second", r)
	}
	if burst < 1 {
		return nil, fmt.Errorf("lookup burst %d must be at least 1", burst)
	}
	return &lookupBudget{rate: r, reserve: float64(burst / 2), lim: rate.NewLimiter(rate.Limit(r), burst)}, nil
}

// take takes one lookup at now: of a known user (a refresh) from the whole
// bucket, of a new one only from above the reserve. Refused, it takes
// nothing and says how long until such a lookup could be taken, if nothing
// else took the refill first.
func (b *lookupBudget) take(now time.Time, known bool) (bool, time.Duration) {
	floor := b.reserve
	if known {
		floor = 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tokens := b.lim.TokensAt(now)
	if tokens >= floor+1 && b.lim.AllowN(now, 1) {
		return true, 0
	}
	return false, time.Duration((floor + 1 - tokens) / b.rate * float64(time.Second))
}
