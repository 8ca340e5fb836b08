package firestoredb

import (
	"context"
	"fmt"
	"sort"
	"time"

	"cloud.google.com/go/firestore"
)

// One look at a room's contest, shared by an instance's contestants.
//
// A contested claim looks again every 20 to 250 ms until it is decided
// (contestClaim). It once took a read-only transaction of its own each
// time: the entries' and the records' sums, the claims' count, the count
// of the claims ahead of it, and the claim itself. A crowd bigger than
// the places left puts hundreds of claims in contest at once, so the
// looks multiplied: on the emulator, where each aggregation reads every
// document of its collection's name in every room, 1 000 users joining a
// room with 900 places took more than claimContestLimit to settle on a
// fresh emulator, and up to 221 joins with a place waiting for them were
// refused at that limit instead (BenchmarkCrowd, one-room-past-its-cap).
//
// So an instance's contestants in one room share their looks (memo.Next,
// as the joins share their snapshots): one read-only transaction reads
// the entries' totals, the claims' count and, in order, the first claims,
// as many as there are places left. Each contestant finds its own claim
// in that list, and the claims before it are those ahead of it. All of it
// is one snapshot, begun after the contestant asked, so after its claim
// was written: what JudgeClaim's argument asks (claims.go).
//
// A claim that is not in the list is either behind the places left, or
// gone. When it sorts among the listed claims, or the list holds every
// claim, it is gone (errClaimLost, and the join claims again). Otherwise,
// standing, it has at least as many claims ahead of it as there are
// places left, so the room refuses it; a claim that is gone would be
// refused too if made again, behind the same claims, so refusing it is
// right either way. Its join is never admitted: with more claims than
// places left, the entries and the other claims do not fit.

// contestView is one look at a room's contest for its last places.
type contestView struct {
	totals entryTotals
	// first holds the orders of the first claims in order, ascending: as
	// many as the places left under the cap, or every claim when fewer.
	first []string
}

// position tells where the claim of the given order stands: how many
// claims are ahead of it, and whether it may still be held (false: it is
// gone). A claim behind the listed ones is given as many ahead as were
// listed, which is at least the places left.
func (v contestView) position(order string) (ahead int, held bool) {
	i := sort.SearchStrings(v.first, order)
	switch {
	case i < len(v.first) && v.first[i] == order:
		return i, true
	case i < len(v.first), len(v.first) >= v.totals.claims:
		// It sorts among the listed claims, or every claim is listed: it
		// would be in the list if it stood.
		return 0, false
	default:
		return len(v.first), true
	}
}

// lookAtContest returns a look at src's contest under a cap of limit,
// taken after the call: its own, or one it shares with this instance's
// other contestants of the room.
func (s *Store) lookAtContest(ctx context.Context, src revisionSource, limit int) (contestView, error) {
	key := fmt.Sprintf("%s/%d/%d", src.roomID, src.lifetime.UnixNano(), limit)
	return s.contestViews.Do(ctx, key, func() (contestView, error) {
		// Not this contestant's deadline: the others wait on the call too.
		readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadTimeout)
		defer cancel()
		return s.readContest(readCtx, src, limit)
	})
}

// readContest reads a contestView in one read-only transaction: the
// totals first, then the claims in order, as many as the places left.
func (s *Store) readContest(ctx context.Context, src revisionSource, limit int) (contestView, error) {
	var v contestView
	err := s.transact(ctx, "contesting the last places", func(tx *txn, _ time.Time) error {
		var err error
		if v.totals, err = s.entryTotalsIn(ctx, src, tx, true); err != nil {
			return err
		}
		v.first = nil
		places := min(max(limit-v.totals.entries, 0), v.totals.claims)
		if places == 0 {
			return nil
		}
		q := s.claimsRef(src.roomID).OrderBy(FieldOrder, firestore.Asc).Select(FieldOrder).Limit(places)
		snaps, err := tx.query(q)
		if err != nil {
			return err
		}
		for _, snap := range snaps {
			rec, err := decode[claimRecord](snap)
			if err != nil {
				return err
			}
			v.first = append(v.first, rec.Order)
		}
		return nil
	}, firestore.ReadOnly)
	return v, err
}
