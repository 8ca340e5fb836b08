package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// maxCachedPolicies bounds the per-instance memory of room policies; a room
// dropped from it costs one more read, never correctness.
const maxCachedPolicies = 10000

// policyReadTimeout bounds a policy read that concurrent requests share
// (memo.Once), so that it does not end with the request that started it.
const policyReadTimeout = 10 * time.Second

// cachedPolicy is a room's policy as read at readAt; nil when the room has
// none.
type cachedPolicy struct {
	policy *presence.Policy
	readAt time.Time
}

// admit re-checks, for a heartbeat, typing signal or read receipt, that the
// room's policy still admits uid (presence.Admit decides). The policy is
// read outside the request's transaction and kept per instance for
// Settings.PolicyCache, so that a room's heartbeats cost one policy read per
// period and instance instead of one each: the price is that a user removed
// from a policy is refused up to one period late on an instance that has
// just read it. Joins do not come here; they read the policy inside their
// transaction, so no join is ever admitted by a stale policy.
//
// A policy read that fails is not kept: the request gets EUnavailable, as
// it would for its own reads.
func (s *Store) admit(ctx context.Context, roomID, uid string) error {
	now := s.now()
	if c, ok := s.policies.Get(roomID); ok && now.Sub(c.readAt) < s.settings.PolicyCache {
		return presence.Admit(c.policy, uid)
	}
	c, err := s.policies.Once(roomID, func() (cachedPolicy, error) {
		readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadTimeout)
		defer cancel()
		p, err := s.readPolicy(readCtx, roomID)
		if err != nil {
			return cachedPolicy{}, err
		}
		// Stored before the shared call returns, so that a request
		// arriving just after it finds the policy instead of reading again.
		c := cachedPolicy{policy: p, readAt: now}
		s.policies.Put(roomID, c)
		return c, nil
	})
	if err != nil {
		return storeError("reading the room's policy", err)
	}
	return presence.Admit(c.policy, uid)
}

func (s *Store) readPolicy(ctx context.Context, roomID string) (*presence.Policy, error) {
	snap, err := s.getDoc(ctx, s.policy(roomID))
	if status.Code(err) == codes.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodePolicy(snap)
}

// ChangedPolicies returns up to limit policies whose updatedAt is after
// since, oldest change first. Policies without updatedAt are not found
// here; they are still enforced at joins and heartbeats (docs/api.md,
// "Restricting a room"). A policy that does not decode is reported, not
// fatal.
func (s *Store) ChangedPolicies(ctx context.Context, since time.Time, limit int) (presence.Listing[presence.PolicyChange], error) {
	q := s.client.Collection(PoliciesCollection).
		Where(FieldUpdatedAt, ">", since).
		OrderBy(FieldUpdatedAt, firestore.Asc)
	return listCandidates(ctx, s, "listing changed room policies", q, limit, func(snap *firestore.DocumentSnapshot) (presence.PolicyChange, bool) {
		rec, err := decode[policyRecord](snap)
		if err != nil || rec == nil || rec.UpdatedAt == nil {
			return presence.PolicyChange{}, false
		}
		return presence.PolicyChange{RoomID: snap.Ref.ID, UpdatedAt: *rec.UpdatedAt,
			Policy: presence.Policy{AllowedUsers: rec.AllowedUsers, MaxParticipants: int(rec.MaxParticipants)}}, true
	})
}

// EnforcePolicy removes from c's room every participant that c's policy
// no longer admits, looking at up to limit roster entries that it leaves
// out.
//
//  1. A policy that admits everyone needs no look at the roster.
//  2. The roster entries are listed outside any transaction; the ones the
//     listed policy leaves out are candidates.
//  3. Each candidate leaves in a transaction of its own that re-reads the
//     policy, the entry and all of the user's sessions (presence.PlanEviction
//     decides): every session goes, the entry goes, the revision rises once.
//     A policy changed back meanwhile, or a user already gone, is a no-op.
//     A join of the same user cannot slip in: it reads the policy in its
//     own transaction, so it either committed before (and its session is
//     read here) or is refused.
//  4. After each removal, the room's emptiness is settled as after a leave.
func (s *Store) EnforcePolicy(ctx context.Context, c presence.PolicyChange, limit int) (presence.EvictionReport, error) {
	var rep presence.EvictionReport
	if c.Policy.AdmitsEveryone() {
		return rep, nil
	}
	snaps, err := s.queryAll(ctx, s.room(c.RoomID).Collection(ParticipantsCollection).Select())
	if err != nil {
		return rep, storeError("listing a room's participants", err)
	}
	looked := 0
	for _, snap := range snaps {
		uid := snap.Ref.ID
		if presence.Admit(&c.Policy, uid) == nil {
			continue
		}
		if looked == limit {
			rep.More = true
			break
		}
		looked++
		plan, err := s.evict(ctx, c.RoomID, uid)
		if err != nil {
			return rep, err
		}
		if !plan.DeleteParticipant {
			continue
		}
		rep.Evicted++
		_, emptiness, err := s.settleEmptiness(ctx, entryRevision(plan.Participant), plan.DepartedAt)
		if err != nil {
			return rep, err
		}
		rep.RoomSuspected = rep.RoomSuspected || emptiness == presence.BecameEmpty
	}
	return rep, nil
}

// evict is step 3 of EnforcePolicy for one user.
func (s *Store) evict(ctx context.Context, roomID, uid string) (presence.DeparturePlan, error) {
	var plan presence.DeparturePlan
	entryRef := s.participant(roomID, uid)
	err := s.transact(ctx, "evicting a participant", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.policy(roomID), entryRef)
		if err != nil {
			return err
		}
		var st presence.EvictionState
		if st.Policy, err = decodePolicy(snaps[0]); err != nil {
			return err
		}
		if st.Participant, err = decodeParticipant(snaps[1], roomID, uid); err != nil {
			return err
		}
		// One user's few sessions: listed beside the transaction (a query
		// in it would lock every session write on the emulator; see
		// TearDown), then read in it, so that a renewal of one is not lost
		// and its deletion wins or waits. A session created after the
		// listing cannot survive the eviction unseen: a join that makes a
		// session live writes the roster entry, which this transaction
		// has read, and reads the policy, which refuses it.
		listed, err := s.queryAll(ctx, entryRef.Collection(SessionsCollection).Query)
		if err != nil {
			return err
		}
		var sessions []*firestore.DocumentSnapshot
		if len(listed) > 0 {
			refs := make([]*firestore.DocumentRef, len(listed))
			for i, snap := range listed {
				refs[i] = snap.Ref
			}
			all, err := tx.getAll(refs...)
			if err != nil {
				return err
			}
			for _, snap := range all {
				if snap.Exists() {
					sessions = append(sessions, snap)
				}
			}
		}
		for _, snap := range sessions {
			sess, err := decodeSession(snap)
			if err != nil {
				return err
			}
			st.Sessions = append(st.Sessions, *sess)
		}
		if plan = presence.PlanEviction(now, st, uid); !plan.Removed {
			return nil
		}
		var event *eventBase // the last read: the writes follow
		if plan.DeleteParticipant {
			if event, err = s.readCursor(tx, roomID, uid, time.Time{}); err != nil {
				return err
			}
		}
		for _, snap := range sessions {
			if err := tx.delete(snap.Ref); err != nil {
				return err
			}
		}
		if !plan.DeleteParticipant {
			return nil // orphaned sessions only: nothing a listener sees
		}
		if err := tx.delete(entryRef); err != nil {
			return err
		}
		if err := s.recordDeparture(tx, plan); err != nil {
			return err
		}
		if err := s.countChange(tx, now, entryRevision(plan.Participant), uid, &plan.DepartedAt); err != nil {
			return err
		}
		return s.emit(tx, now, event, st.Participant, nil, plan.Reason)
	})
	return plan, err
}
