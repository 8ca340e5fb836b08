package firestoredb_test

import (
	"context"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/firestore/apiv1/firestorepb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// failingAggregations refuses every read at a time, counting the tries.
type failingAggregations struct{ calls *atomic.Int32 }

func (f failingAggregations) RunAggregationQuery(context.Context, *firestorepb.RunAggregationQueryRequest, ...gax.CallOption) (firestorepb.Firestore_RunAggregationQueryClient, error) {
	f.calls.Add(1)
	return nil, status.Error(codes.PermissionDenied, "the aggregation client is not allowed in")
}

// A store whose read at a claim's time fails (a client misconfigured, say)
// takes the claim's snapshot in a read-only transaction instead, as a
// store without the client does: the join answers as it would have.
func TestJoin_AFailedReadAtTheClaimsTimeFallsBackToATransaction(t *testing.T) {
	f := MustOpenStore(t)
	var calls atomic.Int32
	f.store.ReadAggregationsWith(failingAggregations{&calls})
	f.mustJoin(t, "fallback", "host", "s") // creates the room: no claim
	res := f.mustJoin(t, "fallback", "ann", "s")
	if calls.Load() == 0 {
		t.Fatal("the join never read at its claim's time: the fallback was not exercised")
	}
	if res.Revision != 2 {
		t.Fatalf("the second join answered revision %d, want 2", res.Revision)
	}
	f.mustSettleAs(t, "fallback", "[ann host]")
}
