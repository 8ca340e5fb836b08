package presence

import "sync"

// Chosen changes. Every visible change costs every listener in the room a
// read, so the changes a client can make at will have a budget per user
// (the state rate limit in the HTTP API): a new state, a new name, an away
// toggle, whichever request carries it. A change the roster makes anyway
// (a user joining or going, their session count) is not one: its write
// happens whatever the client asked, and what the client chose rides
// along in it at no extra cost.
//
// Over the budget, a request is not refused where refusing would cost a
// live lease: a heartbeat renews in the mode in force and its toggle waits
// for a later heartbeat; a join joins and keeps the state, name and mode
// stored (JoinResult.Held). Only POST …/state, which holds no lease, is
// refused (429).

// Allowance admits one chosen change of one user: it reports false when
// their budget is spent. The stores ask it only when a request would make
// one, so that requests that change nothing visible (a reconnect with the
// same state, a heartbeat in the same mode) spend nothing. A nil Allowance
// admits every change.
type Allowance func() bool

// Take asks a for one chosen change.
func (a Allowance) Take() bool { return a == nil || a() }

// Once returns an Allowance that asks a at most once and then repeats its
// answer: a store's transaction may run again, and a retry must neither
// spend a second change nor decide otherwise than the attempt before.
func (a Allowance) Once() Allowance {
	if a == nil {
		return nil
	}
	var once sync.Once
	var ok bool
	return func() bool {
		once.Do(func() { ok = a() })
		return ok
	}
}
