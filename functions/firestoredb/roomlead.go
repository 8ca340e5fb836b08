package firestoredb

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/roomlease/roomlease/functions/presence"
)

// One join plans a crowd's room step, per instance.
//
// A crowd arriving at a room that is missing or in its grace shares its
// instance's look at the room (roomlook.go); then every join read its
// user's documents outside any transaction (planFromLook), only to decide
// whether it may make the room's lifecycle step, and then waited for the
// step its instance's joins share (stepRoom). That read is a round trip
// per join, and in a crowd on the emulator every round trip is CPU that
// every join waits for (BENCHMARKS.md, "Where the machine's CPU went").
//
// So the first of an instance's joins to find the room so leads: into a
// missing room it joins creating the room (createjoin.go); otherwise it
// plans from its own read and, when allowed, makes the step. The joins
// that arrive while it does follow: they wait for it, and when it made the
// step (or found it made) they go to their transactions without a read of
// their own.
//
// Why a follower may skip its own plan: the plan from a look can only
// refuse at a per-user cap, or make the step, and the step only opens the
// room; it admits nobody else (a creating join admits its own user). A
// follower's transaction reads the room, now active, and its user's
// documents, and refuses at the same caps there, writing nothing: the rule that a refused join writes nothing, not even
// a new room, holds, because the room is the leader's, made for a join
// that was allowed. When the leader makes no step (it is refused, or its
// read fails), a follower leads anew, or follows the join that does.
//
// A lead is per instance, and only spares reads: on another instance, or
// with the lead gone, each join plans and steps as before, and the step
// is a conditional write either way.

// roomLead is one join's plan and step for a room looked at, which other
// joins of this instance wait for.
type roomLead struct {
	done chan struct{}
	step presence.RoomStep // the step the leader made; NoRoomStep: none
	// followers counts the joins waiting for the lead: a crowd arriving
	// (createAndJoin looks again before its create when there is one).
	followers atomic.Int32
}

// roomLeads are the leads in flight, by room and version looked at.
type roomLeads struct {
	mu    sync.Mutex
	leads map[string]*roomLead
}

// join returns the lead in flight for key and false, or a new one that
// the caller leads and true.
func (r *roomLeads) join(key string) (*roomLead, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.leads[key]; ok {
		return l, false
	}
	if r.leads == nil {
		r.leads = map[string]*roomLead{}
	}
	l := &roomLead{done: make(chan struct{})}
	r.leads[key] = l
	return l, true
}

// finish ends the lead of key with the step it made: its followers go on,
// and the next join to find the room so leads anew.
func (r *roomLeads) finish(key string, l *roomLead, step presence.RoomStep) {
	r.mu.Lock()
	delete(r.leads, key)
	r.mu.Unlock()
	l.step = step
	close(l.done)
}

// lookPlan is what a join into a room looked at takes from its lead.
type lookPlan struct {
	plan presence.JoinPlan
	// ok: plan is this join's, its room's step or a refusal; otherwise the
	// join plans in its transaction (joinOnce).
	ok bool
	// stepped: the room's step was made for this join, by it or its
	// leader; the join then goes to its transaction without stepping.
	stepped bool
	// created: the join is done, committed with the room's creation
	// (createjoin.go).
	created *createdJoin
}

// planFromLookOnce is planFromLook for a join into a room looked at, led
// as above. A follower whose leader made no step leads anew, or follows
// the join that does.
func (s *Store) planFromLookOnce(ctx context.Context, req presence.JoinRequest, look *roomLook) (lookPlan, error) {
	key := fmt.Sprintf("%s/%d", req.RoomID, look.version.UnixNano())
	for {
		lead, leads := s.roomLeads.join(key)
		if leads {
			return s.leadStep(ctx, req, look, key, lead)
		}
		lead.followers.Add(1)
		s.pause(hookFollowsLead)
		select {
		case <-lead.done:
		case <-ctx.Done():
			return lookPlan{}, storeError("join: waiting for the room's step", ctx.Err())
		}
		if lead.step != presence.NoRoomStep {
			return lookPlan{plan: presence.JoinPlan{RoomStep: lead.step}, ok: true, stepped: true}, nil
		}
	}
}

// leadStep is the leader's part: into a missing room, the join that
// creates it (createjoin.go); otherwise, or for a user listed there, the
// plan from the user's documents and the step it makes.
func (s *Store) leadStep(ctx context.Context, req presence.JoinRequest, look *roomLook, key string, lead *roomLead) (lookPlan, error) {
	step := presence.NoRoomStep
	defer func() { s.roomLeads.finish(key, lead, step) }()
	s.pause(hookLeads)
	if look.room == nil {
		c, outcome, err := s.createAndJoin(ctx, req, func() bool { return lead.followers.Load() > 0 })
		switch {
		case err != nil:
			return lookPlan{}, err
		case outcome == joinedCreating:
			step = presence.CreateRoom
			return lookPlan{ok: true, created: &c}, nil
		case outcome == roomMadeMeanwhile:
			step = presence.CreateRoom // by another: it exists for the followers too
			return lookPlan{plan: presence.JoinPlan{RoomStep: step}, ok: true, stepped: true}, nil
		}
	}
	plan, ok, err := s.planFromLook(ctx, req, look)
	if err != nil || !ok || plan.RoomStep == presence.NoRoomStep {
		return lookPlan{plan: plan, ok: ok}, err
	}
	if err = s.stepRoom(ctx, plan, look.version); err != nil {
		return lookPlan{plan: plan, ok: ok}, err
	}
	step = plan.RoomStep
	return lookPlan{plan: plan, ok: true, stepped: true}, nil
}
