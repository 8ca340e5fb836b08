package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	fbauth "firebase.google.com/go/v4/auth"

	"github.com/roomlease/roomlease/functions/memo"
	"github.com/roomlease/roomlease/functions/presence"
)

// The user check's fixed bounds.
const (
	// maxUsers bounds the memory of user records per instance (a few
	// hundred bytes each). A user dropped from it is looked up again, which
	// costs an RPC, never correctness.
	maxUsers = 20000
	// staleLimit is how old a last good answer about a user may be and
	// still be served while lookups fail. Failing closed at once would turn
	// a short Firebase Auth outage into a presence outage: heartbeats
	// refused for longer than a lease end every session. Serving the last
	// answer keeps the revocation bound at staleLimit instead of
	// CheckEvery while lookups fail, and only then; a user never seen
	// successfully gets 503.
	staleLimit = 5 * time.Minute
	// retryPause is how long after a failed lookup the next one for the
	// same user waits, so that an outage costs one lookup per user and
	// pause rather than one per request.
	retryPause = 5 * time.Second
	// lookupTimeout bounds one lookup, which callers share (memo.Once), so
	// it does not end with the request that started it.
	lookupTimeout = 5 * time.Second
	// budgetLogEvery spaces the warnings that the lookup budget is spent:
	// one line with counts, not one per refused request of a flood.
	budgetLogEvery = time.Minute
)

type lookupFunc func(ctx context.Context, uid string) (*fbauth.UserRecord, error)

// userCheck remembers, per uid, what Firebase Auth last said about the
// user: whether they exist, are disabled, and since when their tokens are
// valid.
type userCheck struct {
	lookup lookupFunc
	every  time.Duration
	now    func() time.Time
	log    *slog.Logger
	cache  *memo.Cache[userAnswer]
	budget *lookupBudget

	budgetLog         sync.Mutex
	budgetLoggedAt    time.Time
	deferred, refused int // since budgetLoggedAt
}

func newUserCheck(lookup lookupFunc, budget *lookupBudget, o Options) *userCheck {
	return &userCheck{lookup: lookup, every: o.CheckEvery, now: o.Now, log: o.Logger, cache: memo.New[userAnswer](maxUsers),
		budget: budget}
}

// userAnswer is what is known about one user.
type userAnswer struct {
	known     bool // a lookup has succeeded; the next four fields hold
	exists    bool
	disabled  bool
	validFrom int64     // TokensValidAfterMillis: validSince's second, in ms
	checkedAt time.Time // of the last successful lookup
	failedAt  time.Time // of the last failed lookup since, or zero
}

// judge refuses what the answer says must be refused.
//
// Firebase records when a user's tokens became valid to the second
// (validSince) and a token's issue time to the second too (iat). It sets
// validSince not only on a revocation but also when the account is created
// and when its password changes, to the second of the very token that call
// returns. So a token is refused only when it was issued in an earlier
// second (iat < validSince), which is exactly the Admin SDK's own rule:
// refusing the same second as well would refuse the token a sign-up or a
// password change has just handed out, for its whole hour. The price, the
// same as with the Admin SDK: a token issued in a revocation's own second,
// just before the revocation, keeps working (docs/deploy.md, "Revoked
// and disabled users", says how to close that second).
func (a userAnswer) judge(issuedAt time.Time) error {
	switch {
	case !a.exists:
		return presence.Errorf(presence.EUnauthenticated, "the user no longer exists")
	case a.disabled:
		return presence.Errorf(presence.EUnauthenticated, "the user account is disabled")
	case a.validFrom > 0 && issuedAt.Unix()*1000 < a.validFrom:
		return presence.Errorf(presence.EUnauthenticated, "the ID token was revoked; sign in again")
	}
	return nil
}

// check refuses a token of uid issued at issuedAt if the user is gone,
// disabled, or their tokens were revoked since. Steps:
//
//  1. A fresh answer (younger than CheckEvery) decides alone.
//  2. A lookup failed within retryPause: do not ask again yet; fall back.
//  3. Look the user up (one lookup per uid at a time, shared by concurrent
//     requests), keep the answer, and decide. A user that does not exist is
//     an answer too, kept like any other.
//  4. A failed lookup is never kept as success: it is recorded as a
//     failure beside the last good answer, which is served while younger
//     than staleLimit; without one the request gets EUnavailable.
//  5. A lookup the instance's budget has no room for (budget.go) is not
//     made, and is no failure of Firebase Auth: the last good answer is
//     served while younger than staleLimit, as in 4; without one the
//     request gets ERateLimited with the wait, and nothing is kept.
func (c *userCheck) check(ctx context.Context, uid string, issuedAt time.Time) error {
	now := c.now()
	last, _ := c.cache.Get(uid)
	if last.known && now.Sub(last.checkedAt) < c.every {
		return last.judge(issuedAt)
	}
	if !last.failedAt.IsZero() && now.Sub(last.failedAt) < retryPause {
		return c.fallback(last, now, issuedAt, nil)
	}
	// Storing inside the shared call, before it returns, means a request
	// arriving just after the lookup finds the new answer rather than
	// starting another lookup.
	fresh, err := c.cache.Once(uid, func() (userAnswer, error) {
		// A lookup that ended between this request's read of the cache and
		// its call here left a fresh answer: share it instead of a second
		// lookup.
		if again, _ := c.cache.Get(uid); again.known && now.Sub(again.checkedAt) < c.every {
			return again, nil
		}
		if ok, wait := c.budget.take(now, last.known); !ok {
			return userAnswer{}, &overBudget{wait: wait}
		}
		lookupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		defer cancel()
		fresh, err := c.fetch(lookupCtx, uid)
		if err != nil {
			failed := last
			failed.failedAt = now
			c.cache.Put(uid, failed)
			return fresh, err
		}
		c.cache.Put(uid, fresh)
		return fresh, nil
	})
	var over *overBudget
	if errors.As(err, &over) {
		return c.overBudget(ctx, last, now, issuedAt, over.wait)
	}
	if err != nil {
		c.log.WarnContext(ctx, "could not look up a user for the revocation check", "component", "auth",
			"error", err.Error(), "servingLastAnswer", last.known && now.Sub(last.checkedAt) < staleLimit)
		return c.fallback(last, now, issuedAt, err)
	}
	return fresh.judge(issuedAt)
}

// overBudget says that the lookup budget had no room for a lookup.
type overBudget struct{ wait time.Duration }

func (e *overBudget) Error() string { return "the user lookup budget is spent" }

// overBudget answers a request whose user needed a lookup the budget had no
// room for (step 5 of check), and logs, at most once per budgetLogEvery,
// how many such requests were served from a last answer or refused.
func (c *userCheck) overBudget(ctx context.Context, last userAnswer, now, issuedAt time.Time, wait time.Duration) error {
	served := last.known && now.Sub(last.checkedAt) < staleLimit
	c.budgetLog.Lock()
	if served {
		c.deferred++
	} else {
		c.refused++
	}
	if now.Sub(c.budgetLoggedAt) >= budgetLogEvery {
		// The counts are since the previous such line.
		c.log.WarnContext(ctx, "user lookup budget spent", "component", "auth",
			"servedLastAnswer", c.deferred, "refused", c.refused)
		c.budgetLoggedAt, c.deferred, c.refused = now, 0, 0
	}
	c.budgetLog.Unlock()
	if served {
		return last.judge(issuedAt)
	}
	return &presence.Error{Code: presence.ERateLimited, RetryAfter: wait,
		Message: "too many users new to this server at once; retry shortly"}
}

func (c *userCheck) fallback(last userAnswer, now, issuedAt time.Time, cause error) error {
	if last.known && now.Sub(last.checkedAt) < staleLimit {
		return last.judge(issuedAt)
	}
	unavailable := presence.Errorf(presence.EUnavailable, "could not check the user's account; retry")
	if cause == nil {
		return unavailable
	}
	return fmt.Errorf("looking up the user: %w: %w", unavailable, cause)
}

// fetch looks the user up once.
func (c *userCheck) fetch(ctx context.Context, uid string) (userAnswer, error) {
	u, err := c.lookup(ctx, uid)
	checked := userAnswer{known: true, checkedAt: c.now()}
	switch {
	case fbauth.IsUserNotFound(err):
		return checked, nil
	case err != nil:
		return userAnswer{}, err
	}
	checked.exists, checked.disabled, checked.validFrom = true, u.Disabled, u.TokensValidAfterMillis
	return checked, nil
}
