package firestoredb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	vkit "cloud.google.com/go/firestore/apiv1"
	"cloud.google.com/go/firestore/apiv1/firestorepb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Aggregations read at a given time, outside any transaction.
//
// A new user's join judges its claim on a place by a snapshot that counts
// the claim (claims.go). A read-only transaction gives one snapshot, at the
// cost of three round trips one after the other: BeginTransaction, the
// aggregations, Commit; and every new user of a room waits for them. But
// the claim's write already names a time late enough: its update time. A
// read at that time sees every commit up to it, the claim included, and,
// since the claim was written after the request arrived, every change a
// client could have seen before asking. (A claim adopted from a twin join
// may be older than the request: that one is read from the time it was
// found, claims.go.) Aggregations sent with one read time read one
// snapshot whatever order they run in, and go at once: one round trip.
//
// The firestore package sends aggregations only in a transaction, so these
// go through the generated client (cloud.google.com/go/firestore/apiv1),
// which the app gives the store (ReadAggregationsWith); without one, and
// when a read at a time fails, the store takes the read-only transaction.

// aggregationsAt is the one call of the generated Firestore client the
// store uses.
type aggregationsAt interface {
	RunAggregationQuery(ctx context.Context, req *firestorepb.RunAggregationQueryRequest, opts ...gax.CallOption) (firestorepb.Firestore_RunAggregationQueryClient, error)
}

// ReadAggregationsWith lets the store read a claim's snapshot at the
// claim's time through c, a client of the same database as the store's
// (see above). Call it before the store is used.
func (s *Store) ReadAggregationsWith(c aggregationsAt) { s.aggsAt = c }

// DialAggregations returns a generated Firestore client for
// ReadAggregationsWith: to the emulator when FIRESTORE_EMULATOR_HOST is
// set, as the firestore package's client is, and otherwise to Firestore
// with the application's default credentials. The requests name their
// database, so one client serves any.
func DialAggregations(ctx context.Context) (*vkit.Client, error) {
	host := os.Getenv("FIRESTORE_EMULATOR_HOST")
	host = strings.TrimPrefix(strings.TrimPrefix(host, "http://"), "https://") // as the firestore package takes it
	if host == "" {
		return vkit.NewClient(ctx)
	}
	return vkit.NewClient(ctx, option.WithEndpoint(host), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
		option.WithGRPCDialOption(grpc.WithPerRPCCredentials(emulatorOwner{})))
}

// emulatorOwner is the emulator's credential for server code: requests
// bypass the security rules, as the Admin SDK's do.
type emulatorOwner struct{}

func (emulatorOwner) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer owner"}, nil
}

func (emulatorOwner) RequireTransportSecurity() bool { return false }

// aggregation is one aggregation of a query: the sum of field, or, with
// field empty, the count.
type aggregation struct {
	alias, field string
}

// The aggregations of a room's snapshot (entryTotals), defined once for
// the reads in a transaction (aggregateIn) and at a time (aggregateAt):
// over a lifetime's entries and its records, the changes and a count;
// over the room's claims, a count.
var (
	entriesTotals = []aggregation{{alias: "revision", field: FieldChanges}, {alias: "entries"}}
	recordsTotals = []aggregation{{alias: "revision", field: FieldChanges}, {alias: "records"}}
	claimsTotal   = []aggregation{{alias: "claims"}}
)

// aggregateIn runs aggs over q in tx (nil: on its own), as aggregateAll.
func (s *Store) aggregateIn(ctx context.Context, q firestore.Query, tx *txn, matchedBy string, aggs []aggregation) (map[string]int64, error) {
	aq := q.NewAggregationQuery()
	for _, a := range aggs {
		if a.field == "" {
			aq = aq.WithCount(a.alias)
		} else {
			aq = aq.WithSum(a.field, a.alias)
		}
	}
	return s.aggregateAll(ctx, aq, tx, matchedBy, aliasesOf(aggs)...)
}

func aliasesOf(aggs []aggregation) []string {
	out := make([]string, len(aggs))
	for i, a := range aggs {
		out[i] = a.alias
	}
	return out
}

// aggregateAt runs aggs over q at the read time at and returns their
// integer results; matchedBy names the alias of the count the bill is
// counted from, as in aggregateAll.
func (s *Store) aggregateAt(ctx context.Context, q firestore.Query, at time.Time, matchedBy string, aggs []aggregation) (map[string]int64, error) {
	req, err := aggregationRequest(q, at, aggs)
	if err != nil {
		return nil, err
	}
	stream, err := s.aggsAt.RunAggregationQuery(ctx, req)
	if err != nil {
		s.ops.read(1)
		return nil, err
	}
	res := firestore.AggregationResult{}
	for {
		r, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.ops.read(1)
			return nil, err
		}
		for k, v := range r.GetResult().GetAggregateFields() {
			res[k] = v
		}
	}
	out, err := aggregationResults(res, aliasesOf(aggs))
	s.ops.aggregation(out[matchedBy])
	return out, err
}

// aggregationRequest is the request for aggs over q at at. The query's
// own form comes from the firestore package (Serialize), so that the
// collection, parent and filters are those the store's other reads use.
func aggregationRequest(q firestore.Query, at time.Time, aggs []aggregation) (*firestorepb.RunAggregationQueryRequest, error) {
	raw, err := q.Serialize()
	if err != nil {
		return nil, err
	}
	var rq firestorepb.RunQueryRequest
	if err := proto.Unmarshal(raw, &rq); err != nil {
		return nil, fmt.Errorf("decoding a serialized query: %w", err)
	}
	var pa []*firestorepb.StructuredAggregationQuery_Aggregation
	for _, a := range aggs {
		agg := &firestorepb.StructuredAggregationQuery_Aggregation{Alias: a.alias}
		if a.field == "" {
			agg.Operator = &firestorepb.StructuredAggregationQuery_Aggregation_Count_{Count: &firestorepb.StructuredAggregationQuery_Aggregation_Count{}}
		} else {
			agg.Operator = &firestorepb.StructuredAggregationQuery_Aggregation_Sum_{Sum: &firestorepb.StructuredAggregationQuery_Aggregation_Sum{
				Field: &firestorepb.StructuredQuery_FieldReference{FieldPath: a.field},
			}}
		}
		pa = append(pa, agg)
	}
	return &firestorepb.RunAggregationQueryRequest{
		Parent: rq.GetParent(),
		QueryType: &firestorepb.RunAggregationQueryRequest_StructuredAggregationQuery{
			StructuredAggregationQuery: &firestorepb.StructuredAggregationQuery{
				QueryType:    &firestorepb.StructuredAggregationQuery_StructuredQuery{StructuredQuery: rq.GetStructuredQuery()},
				Aggregations: pa,
			},
		},
		// Firestore takes read times to the microsecond; update times
		// are, so this only guards the rule.
		ConsistencySelector: &firestorepb.RunAggregationQueryRequest_ReadTime{ReadTime: timestamppb.New(at.Truncate(time.Microsecond))},
	}, nil
}

// claimSnapshotAt is entryTotalsIn with claims, read at at instead of in
// a transaction: the entries, the records and the claims, sent at once.
func (s *Store) claimSnapshotAt(ctx context.Context, src revisionSource, at time.Time) (entryTotals, error) {
	type result struct {
		v   map[string]int64
		err error
	}
	records := make(chan result, 1)
	claims := make(chan result, 1)
	go func() {
		s.pause(hookBeforeRecordsSum)
		v, err := s.aggregateAt(ctx, s.lifetimeRecords(src), at, "records", recordsTotals)
		records <- result{v, err}
	}()
	go func() {
		v, err := s.aggregateAt(ctx, s.claimsRef(src.roomID).Query, at, "claims", claimsTotal)
		claims <- result{v, err}
	}()
	onEntries, err := s.aggregateAt(ctx, s.lifetimeEntries(src), at, "entries", entriesTotals)
	s.pause(hookAfterEntriesSum) // a departure may commit here: the read time holds the records' sum to before it
	r, c := <-records, <-claims
	if err = errors.Join(err, r.err, c.err); err != nil {
		return entryTotals{}, err
	}
	return entryTotals{
		revision: onEntries["revision"] + r.v["revision"],
		entries:  int(onEntries["entries"]),
		claims:   int(c.v["claims"]),
	}, nil
}
