package firestoredb

import (
	"context"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// maxScanPages bounds how many pages of limit documents one listing reads
// while it skips documents that are not candidates.
const maxScanPages = 4

// listCandidates runs the sweeper's listing q (ordered, oldest first) and
// turns each document into a candidate with candidate, which reports false
// for a document that is not presence data (another app's documents in a
// collection group of the same name, a hand edit). Those are reported in
// Undecodable and skipped, and the listing pages on past them: such
// documents are never removed, so they come back at the head of every
// listing, and a page of them must not take the places of the candidates
// behind them. It stops at limit candidates or after maxScanPages pages.
func listCandidates[T any](ctx context.Context, s *Store, op string, q firestore.Query, limit int,
	candidate func(*firestore.DocumentSnapshot) (T, bool)) (presence.Listing[T], error) {
	var out presence.Listing[T]
	for range maxScanPages {
		want := limit - len(out.Items)
		snaps, err := s.queryAll(ctx, q.Limit(want))
		if err != nil {
			return out, storeError(op, err)
		}
		for _, snap := range snaps {
			if c, ok := candidate(snap); ok {
				out.Items = append(out.Items, c)
			} else {
				out.Undecodable = append(out.Undecodable, snap.Ref.Path)
			}
		}
		if len(snaps) < want || len(out.Items) >= limit {
			return out, nil // the listing is exhausted, or full
		}
		q = q.StartAfter(snaps[len(snaps)-1])
	}
	return out, nil
}
