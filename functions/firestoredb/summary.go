package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// A large room's summary (presence.Summary) and the marks that say which
// rooms have one. Nothing here runs inside a join's or a leave's
// transaction: the joins that take a room across its threshold mark it,
// after their commit, in a document of the room's own that no other join
// writes (largeRooms/{roomId}); one summarizer refreshes the summary at
// most once a second from a read-only snapshot.

func (s *Store) summaryRef(roomID string) *firestore.DocumentRef {
	return s.room(roomID).Collection(SummaryCollection).Doc(SummaryDoc)
}

// occupancyRef is the summary's nameless twin for outsiders of a room
// that opts in to public occupancy: count, revision and asOf only.
func (s *Store) occupancyRef(roomID string) *firestore.DocumentRef {
	return s.room(roomID).Collection(SummaryCollection).Doc(OccupancyDoc)
}

type occupancyRecord struct {
	RoomID   string    `firestore:"roomId"`
	Count    int64     `firestore:"count"`
	Revision int64     `firestore:"revision"`
	AsOf     time.Time `firestore:"asOf"`
	ExpireAt time.Time `firestore:"expireAt"`
}

func (s *Store) largeRoomRef(roomID string) *firestore.DocumentRef {
	return s.client.Collection(LargeRoomsCollection).Doc(roomID)
}

type largeRoomRecord struct {
	RoomID   string    `firestore:"roomId"`
	MarkedAt time.Time `firestore:"markedAt"`
	ExpireAt time.Time `firestore:"expireAt"`
}

type summaryEntryRecord struct {
	ParticipantID string    `firestore:"participantId"`
	DisplayName   string    `firestore:"displayName"`
	PhotoURL      string    `firestore:"photoURL,omitempty"`
	Away          bool      `firestore:"away"`
	JoinedAt      time.Time `firestore:"joinedAt"`
}

type summaryLeftRecord struct {
	ParticipantID string    `firestore:"participantId"`
	DisplayName   string    `firestore:"displayName"`
	LeftAt        time.Time `firestore:"leftAt"`
	Reason        string    `firestore:"reason"`
}

type summaryRecord struct {
	RoomID       string               `firestore:"roomId"`
	Mode         string               `firestore:"mode"` // "large": listeners follow this, not the roster; else "roster"
	Count        int64                `firestore:"count"`
	Revision     int64                `firestore:"revision"`
	AsOf         time.Time            `firestore:"asOf"`
	PreviousAsOf *time.Time           `firestore:"previousAsOf"`
	Sample       []summaryEntryRecord `firestore:"sample"`
	Joined       []summaryEntryRecord `firestore:"joined"`
	Left         []summaryLeftRecord  `firestore:"left"`
	Truncated    bool                 `firestore:"truncated"`
	ExpireAt     time.Time            `firestore:"expireAt"`
}

func summaryToRecord(sum presence.Summary) summaryRecord {
	entries := func(in []presence.SummaryEntry) []summaryEntryRecord {
		out := make([]summaryEntryRecord, 0, len(in))
		for _, e := range in {
			out = append(out, summaryEntryRecord{ParticipantID: e.ParticipantID, DisplayName: e.DisplayName, PhotoURL: e.PhotoURL, Away: e.Away, JoinedAt: e.JoinedAt})
		}
		return out
	}
	left := make([]summaryLeftRecord, 0, len(sum.Left))
	for _, d := range sum.Left {
		left = append(left, summaryLeftRecord{ParticipantID: d.ParticipantID, DisplayName: d.DisplayName, LeftAt: d.LeftAt, Reason: d.Reason})
	}
	mode := "roster"
	if sum.Large {
		mode = "large"
	}
	return summaryRecord{RoomID: sum.RoomID, Mode: mode, Count: int64(sum.Count), Revision: sum.Revision, AsOf: sum.AsOf,
		PreviousAsOf: optionalTime(sum.PreviousAsOf), Sample: entries(sum.Sample), Joined: entries(sum.Joined), Left: left,
		Truncated: sum.Truncated, ExpireAt: sum.ExpireAt}
}

// markLarge marks roomID for the summarizer. It runs after the join that
// crossed the threshold has committed, outside any transaction; a mark
// that exists already is left as it is. A failure only delays the room's
// summary until the next crossing join, so it is not the join's error.
func (s *Store) markLarge(ctx context.Context, roomID string) {
	now := s.now()
	_, err := s.largeRoomRef(roomID).Create(ctx, largeRoomRecord{RoomID: roomID, MarkedAt: now, ExpireAt: now.Add(s.settings.RecordHorizon)})
	if err == nil {
		s.ops.write(1)
	}
}

// markLargeIfReached counts roomID's roster after a join that read it just
// below the threshold at (presence.NearLarge) has committed, and marks the
// room if the count has reached it. Like markLarge, a failure only delays
// the room's summary.
//
// An instance's joins share the count, one begun after each of them
// called (memo.Next): that is all the argument asks of it (a count taken
// after the last join's commit), and in a crowd the joins that read one
// shared snapshot just below the threshold all ask at once, and without
// sharing each counted a roster of hundreds. The call marks the room too, once for all of
// them, at its first caller's threshold; a join whose policy puts the
// threshold lower (a policy changed meanwhile) marks by its own.
func (s *Store) markLargeIfReached(ctx context.Context, roomID string, at int) {
	c, err := s.largeCounts.Do(ctx, roomID, func() (largeCount, error) {
		// Not this join's deadline: the others wait on the call too.
		readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadTimeout)
		defer cancel()
		n, err := s.countIndex(readCtx, roomID, nil)
		c := largeCount{n: n, marked: err == nil && n >= at}
		if c.marked {
			s.markLarge(readCtx, roomID)
		}
		return c, err
	})
	if err == nil && !c.marked && c.n >= at {
		s.markLarge(ctx, roomID)
	}
}

// largeCount is a shared recount (markLargeIfReached): the roster's size,
// and whether the call marked the room.
type largeCount struct {
	n      int
	marked bool
}

// SummarizedRooms returns up to limit ids of rooms that have a summary to
// refresh: those marked large, and those whose policy opts in to public
// occupancy (their summary is what outsiders may listen to).
func (s *Store) SummarizedRooms(ctx context.Context, limit int) ([]string, error) {
	marked, err := s.queryAll(ctx, s.client.Collection(LargeRoomsCollection).Select().Limit(limit))
	if err != nil {
		return nil, storeError("listing large rooms", err)
	}
	public, err := s.queryAll(ctx, s.client.Collection(PoliciesCollection).Where("publicOccupancy", "==", true).Select().Limit(limit))
	if err != nil {
		return nil, storeError("listing rooms with public occupancy", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, snap := range append(marked, public...) {
		if id := snap.Ref.ID; !seen[id] && len(out) < limit {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// RefreshSummary refreshes roomID's summary if the last one is at least
// presence.SummaryEvery old, and reports whether it wrote (or removed) it.
//
//  1. Read the summary as it stands, with its version, and the revision:
//     a summary whose revision is still current is left as it is.
//  2. One read-only transaction: the room, its policy, the shards' sums
//     (count and revision of one snapshot), a sample of the roster, and
//     the joins and departures since the previous summary. Read-only: it
//     takes no lock, so no join or leave waits for it.
//  3. Write the new summary on the condition that the summary is still
//     the version step 1 read: of two summarizers (overlapping sweep
//     runs), one writes per period, and the other finds it done.
//
// A room that is gone, or has shrunk to half its threshold (and does not
// opt in to public occupancy), loses its summary and its mark: its
// listeners go back to the roster.
func (s *Store) RefreshSummary(ctx context.Context, roomID string) (bool, error) {
	now := s.now()
	prevSnap, err := s.getDoc(ctx, s.summaryRef(roomID))
	if err != nil && status.Code(err) != codes.NotFound {
		return false, storeError("reading a summary", err)
	}
	prev, err := decode[summaryRecord](prevSnap)
	if err != nil {
		return false, err
	}
	if prev != nil && !presence.SummaryDue(now, prev.AsOf) {
		return false, nil
	}
	if prev != nil {
		// Nothing visible changed since: the summary still holds (its
		// count is the count at its revision, which is still current), and
		// a quiet large room costs four reads a second (the summary, the
		// room, the revision), not a refresh.
		room, _, err := s.readRoom(ctx, roomID)
		if err != nil {
			return false, storeError("reading a room for its summary", err)
		}
		if room != nil {
			rev, err := s.readRevision(ctx, roomRevision(*room), nil)
			if err != nil {
				return false, storeError("reading a room's revision", err)
			}
			if rev == prev.Revision {
				return false, nil
			}
		}
	}
	var sum presence.Summary
	var keep, public bool
	err = s.transact(ctx, "reading a room for its summary", func(tx *txn, now time.Time) error {
		var prevAsOf time.Time
		if prev != nil {
			prevAsOf = prev.AsOf
		}
		var err error
		var policy *presence.Policy
		sum, keep, policy, err = s.readSummary(ctx, tx, now, roomID, prevAsOf, prev != nil && prev.Mode == "large")
		public = policy != nil && policy.PublicOccupancy
		return err
	}, firestore.ReadOnly)
	if err != nil {
		return false, err
	}
	precondition := firestore.Exists
	if prevSnap != nil && prevSnap.Exists() {
		precondition = firestore.LastUpdateTime(prevSnap.UpdateTime)
	}
	if !keep {
		if prev == nil {
			return false, s.unmark(ctx, roomID)
		}
		err = s.deleteDoc(ctx, s.summaryRef(roomID), precondition)
		if err == nil {
			err = s.unmark(ctx, roomID)
		}
		return ignoreLost(err)
	}
	rec := summaryToRecord(sum)
	if prev == nil {
		_, err = s.summaryRef(roomID).Create(ctx, rec)
	} else {
		_, err = s.summaryRef(roomID).Update(ctx, summaryUpdates(rec), precondition)
	}
	if err == nil {
		s.ops.write(1)
		if public {
			// Only the refresh whose condition held gets here, so one
			// writer per period; names stay in the participants' summary.
			err = s.setDoc(ctx, s.occupancyRef(roomID), occupancyRecord{RoomID: roomID, Count: rec.Count,
				Revision: rec.Revision, AsOf: rec.AsOf, ExpireAt: rec.ExpireAt})
		}
	}
	return ignoreLost(err)
}

// ignoreLost reports a conditional write that lost to another writer as
// nothing written, not an error.
func ignoreLost(err error) (bool, error) {
	switch status.Code(err) {
	case codes.OK:
		return true, nil
	case codes.AlreadyExists, codes.FailedPrecondition, codes.NotFound:
		return false, nil
	}
	return false, storeError("writing a summary", err)
}

func (s *Store) unmark(ctx context.Context, roomID string) error {
	err := s.deleteDoc(ctx, s.largeRoomRef(roomID))
	if status.Code(err) == codes.NotFound {
		return nil
	}
	return err
}

// summaryUpdates rewrites every field of a summary (Update takes the
// version precondition, Set does not).
func summaryUpdates(rec summaryRecord) []firestore.Update {
	return []firestore.Update{
		{Path: "roomId", Value: rec.RoomID}, {Path: "mode", Value: rec.Mode},
		{Path: "count", Value: rec.Count}, {Path: "revision", Value: rec.Revision},
		{Path: "asOf", Value: rec.AsOf}, {Path: "previousAsOf", Value: rec.PreviousAsOf},
		{Path: "sample", Value: rec.Sample}, {Path: "joined", Value: rec.Joined}, {Path: "left", Value: rec.Left},
		{Path: "truncated", Value: rec.Truncated}, {Path: FieldExpireAt, Value: rec.ExpireAt},
	}
}

// readSummary is step 2 of RefreshSummary, in the read-only transaction
// tx; keep is false when the room should lose its summary.
// It also returns the room's policy (nil if none). wasLarge: the previous
// summary was in large mode.
func (s *Store) readSummary(ctx context.Context, tx *txn, now time.Time, roomID string, prevAsOf time.Time, wasLarge bool) (presence.Summary, bool, *presence.Policy, error) {
	sum := presence.Summary{RoomID: roomID, AsOf: now, PreviousAsOf: prevAsOf, ExpireAt: now.Add(s.settings.RecordHorizon)}
	snaps, err := tx.getAll(s.room(roomID), s.policy(roomID))
	if err != nil {
		return sum, false, nil, err
	}
	room, err := decodeRoom(snaps[0], roomID)
	if err != nil || room == nil {
		return sum, false, nil, err
	}
	policy, err := decodePolicy(snaps[1])
	if err != nil {
		return sum, false, policy, err
	}
	if sum.Revision, sum.Count, err = s.roomCounts(ctx, *room, tx); err != nil {
		return sum, false, policy, err
	}
	if !s.settings.KeepsSummary(sum.Count, policy) {
		return sum, false, policy, nil
	}
	sum.Large = s.settings.LargeMode(sum.Count, policy, wasLarge)
	entries := s.room(roomID).Collection(ParticipantsCollection)
	sample, err := tx.query(entries.OrderBy("joinedAt", firestore.Asc).Limit(presence.SummarySample))
	if err != nil {
		return sum, false, policy, err
	}
	if sum.Sample, err = summaryEntries(sample, roomID); err != nil {
		return sum, false, policy, err
	}
	if prevAsOf.IsZero() {
		return sum, true, policy, nil // the first summary: no "since"
	}
	joined, err := tx.query(entries.Where("joinedAt", ">", prevAsOf).OrderBy("joinedAt", firestore.Desc).Limit(presence.SummaryChanges + 1))
	if err != nil {
		return sum, false, policy, err
	}
	left, err := tx.query(s.room(roomID).Collection(RecentlyLeftCollection).Where(FieldLeftAt, ">", prevAsOf).
		OrderBy(FieldLeftAt, firestore.Desc).Limit(presence.SummaryChanges + 1))
	if err != nil {
		return sum, false, policy, err
	}
	sum.Truncated = len(joined) > presence.SummaryChanges || len(left) > presence.SummaryChanges
	if sum.Joined, err = summaryEntries(joined[:min(len(joined), presence.SummaryChanges)], roomID); err != nil {
		return sum, false, policy, err
	}
	for _, snap := range left[:min(len(left), presence.SummaryChanges)] {
		d, err := decodeDeparture(snap)
		if err != nil {
			return sum, false, policy, err
		}
		if d != nil {
			sum.Left = append(sum.Left, *d)
		}
	}
	return sum, true, policy, nil
}

func summaryEntries(snaps []*firestore.DocumentSnapshot, roomID string) ([]presence.SummaryEntry, error) {
	out := make([]presence.SummaryEntry, 0, len(snaps))
	for _, snap := range snaps {
		p, err := decodeParticipant(snap, roomID, snap.Ref.ID)
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, presence.SummaryEntry{ParticipantID: p.ID, DisplayName: p.DisplayName, PhotoURL: p.PhotoURL, Away: p.Away, JoinedAt: p.JoinedAt})
		}
	}
	return out, nil
}
