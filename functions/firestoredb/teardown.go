package firestoredb

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// dueRooms lists suspected_empty rooms; unreportedOnly leaves out those an
// observing sweeper has reported already.
func (s *Store) dueRooms(unreportedOnly bool) firestore.Query {
	q := s.client.Collection(RoomsCollection).Where(FieldState, "==", string(presence.StateSuspectedEmpty))
	if unreportedOnly {
		q = q.Where(FieldTeardownReported, "==", false)
	}
	return q
}

// DueRooms returns up to limit rooms that are suspected_empty with their
// cleanupAfter at or before now, the longest-waiting first; with
// unreportedOnly, only those not yet reported by an observing sweeper, so
// that a sweeper that deletes nothing pages through them once.
func (s *Store) DueRooms(ctx context.Context, now time.Time, limit int, unreportedOnly bool) (presence.Listing[presence.Room], error) {
	q := s.dueRooms(unreportedOnly).
		Where(FieldCleanupAfter, "<=", now).
		OrderBy(FieldCleanupAfter, firestore.Asc)
	return listCandidates(ctx, s, "listing rooms due for teardown", q, limit, func(snap *firestore.DocumentSnapshot) (presence.Room, bool) {
		r, err := decodeRoom(snap, snap.Ref.ID)
		if err != nil || r == nil {
			return presence.Room{}, false
		}
		return *r, true
	})
}

// closingID names the closing record of one lifetime of a room: the room id
// and the lifetime's creation time, so that a room torn down twice has two.
func closingID(c presence.TeardownCandidate) string {
	return fmt.Sprintf("%s~%d", c.RoomID, c.CreatedAt.UnixMicro())
}

// TearDown makes the authoritative occupancy check for c in one transaction:
// it re-reads the room, counts its roster entries, and — only if the room
// is still the same lifetime and generation, suspected_empty, past its
// grace, with no entry — deletes the room document and records its
// closing, when enforce is set. Without enforce it only reports the verdict
// (observe) and marks the room as reported, so that it is not listed again
// until its state changes.
//
// A room found suspected_empty with roster entries is repaired to active in
// any mode: that is bookkeeping, not destruction. (A departure whose
// instance died between its steps leaves one so; see settleEmptiness.)
//
// Ordering: a join reads the room document in its transaction, and writes
// it only for a lifecycle step (a revive in the grace, a creation), with a
// condition on the version it read. A join in the grace must revive the
// room before it can add anyone, and that conditional write either commits
// before this transaction reads the room (the generation moves, the verdict
// is GenerationChanged) or conflicts with its read and waits for it; after
// the teardown, the revive finds the room gone and the join creates a fresh
// lifetime. A join into an active room does not come here: the teardown
// only acts on a suspected_empty room. The documents under the room are
// deleted afterwards by PurgeClosed, which spares anything written after
// this transaction committed.
func (s *Store) TearDown(ctx context.Context, c presence.TeardownCandidate, enforce bool) (presence.TeardownResult, error) {
	var res presence.TeardownResult
	roomRef := s.room(c.RoomID)
	closingRef := s.client.Collection(ClosingsCollection).Doc(closingID(c))
	err := s.transact(ctx, "tearing down a room", func(tx *txn, now time.Time) error {
		res = presence.TeardownResult{}
		snaps, err := tx.getAll(roomRef)
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], c.RoomID)
		if err != nil {
			return err
		}
		res.Room = room
		// Proof of absence: the room has no roster entry (see
		// presence.JudgeTeardown for why entries, not leases live at now).
		// Counted beside the transaction, not in it: counted in it, the
		// roster's range would stay locked while a sweeper stalls here,
		// and every join and departure in the room would wait for it;
		// beside it, the teardown holds nothing but the room document
		// (docs/races.md, "A teardown's query that stalled every session
		// write"). Nothing is lost by that:
		//   - an entry is added only by a join, which reads the room in its
		//     transaction, and a join into a suspected_empty room must
		//     first revive it, a conditional write of the room that waits
		//     for this transaction or makes it retry. A join that read the
		//     room while it was still active committed before the room
		//     became suspected_empty, long before this count (the write
		//     that made it so waited for the join's read);
		//   - with no entry there is no session (an entry goes only in a
		//     transaction that reads and deletes each of its user's
		//     sessions), so no renewal, state update, away toggle or expiry
		//     can commit after this count: each needs a session to write
		//     anything.
		// A failure to count still aborts the teardown (fail closed).
		src := revisionSource{roomID: c.RoomID} // a room gone: the safe way (countEntries)
		if room != nil {
			src = roomRevision(*room)
		}
		entries, err := s.countEntries(ctx, src)
		if err != nil {
			return err
		}
		res.Entries = entries
		res.Verdict = presence.JudgeTeardown(now, room, c, entries)
		var shards []*firestore.DocumentSnapshot
		if res.Verdict == presence.TearDown && enforce && !room.RevisionOnEntries {
			// The revision ends with this lifetime (see below). A room
			// that keeps it on its entries has only departure marks
			// there, which count nothing: the purge takes them. Listed
			// beside the transaction for the same reason as the entries,
			// and after their count: a departure's shard is written in the
			// commit that deletes its entry, so before the count; with no
			// entry, only a revive writes a shard, and it writes the room
			// document in the same commit.
			if shards, err = s.queryAll(ctx, s.revisionShards(c.RoomID).Query); err != nil {
				return err
			}
		}
		s.pause(hookAfterTeardownCheck)
		switch {
		case res.Verdict == presence.Occupied:
			revived, refresh := s.settings.ShardsExpiry(s.settings.Reactivate(now, *room))
			if err := tx.set(roomRef, roomToRecord(revived)); err != nil || !refresh {
				return err
			}
			return s.refreshRevisionExpiry(tx, revived, revived.RevisionExpireAt)
		case res.Verdict == presence.TearDown && enforce:
			closing := s.settings.CloseRoom(now, *room)
			res.Closing = &closing
			if err := tx.delete(roomRef, firestore.Exists); err != nil {
				return err
			}
			// The revision shards go in this commit, not with the purge: a
			// join that creates the room's next lifetime before the purge
			// comes must count from 0, and the purge spares whatever that
			// lifetime writes, so shards left to it would carry the old
			// counts into the new revision. No request of this lifetime
			// counts a change after this commit: it found no roster entry.
			//
			// So does the retired count (fold.go), by name: a fold that
			// committed after this transaction read the room, but before
			// its commit, may have written it first, and the next
			// lifetime's listeners must not add it up.
			for _, shard := range shards {
				if err := tx.delete(shard.Ref); err != nil {
					return err
				}
			}
			if err := tx.delete(s.retiredRef(c.RoomID)); err != nil {
				return err
			}
			// The rollout's evidence (candidates.go), in the same commit.
			res.Recorded = true
			if err := s.recordCandidate(tx, now, *room, res.Entries, true); err != nil {
				return err
			}
			// pendingCleanup stays set until PurgeClosed has deleted the
			// documents under the room; decidedAt is the commit's server
			// time, which tells this lifetime's documents from a newer one's.
			if err := tx.set(closingRef, closingToRecord(closing)); err != nil {
				return err
			}
			// The closing's event, outside the room: it survives the purge.
			return s.emitClosed(tx, now, closing)
		case res.Verdict == presence.TearDown && !room.TeardownReported:
			if err := tx.update(roomRef, []firestore.Update{{Path: FieldTeardownReported, Value: true}}); err != nil {
				return err
			}
			// Recorded with the mark, so once per verdict (candidates.go).
			res.Recorded = true
			return s.recordCandidate(tx, now, *room, res.Entries, false)
		}
		return nil
	})
	return res, err
}

// MarkReported marks c's room as reported by a sweeper that neither checks
// nor deletes (off mode), if it is still the same lifetime and generation,
// suspected_empty and not yet reported. It reports whether it marked it.
func (s *Store) MarkReported(ctx context.Context, c presence.TeardownCandidate) (bool, error) {
	roomRef := s.room(c.RoomID)
	var marked bool
	err := s.transact(ctx, "reporting a due room", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(roomRef)
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], c.RoomID)
		if err != nil {
			return err
		}
		marked = presence.JudgeTeardown(now, room, c, 0) == presence.TearDown && !room.TeardownReported
		if !marked {
			return nil
		}
		return tx.update(roomRef, []firestore.Update{{Path: FieldTeardownReported, Value: true}})
	})
	return marked, err
}
