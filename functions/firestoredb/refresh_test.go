package firestoredb_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// What a lifecycle refresh keeps alive (presence.Settings.ShardsExpiry):
// a write that moves a room's expireAt more than half a day beyond its
// revisionExpireAt refreshes, in the same commit, the documents the room's
// revision keeps. An older room counts on all its shards: every one of them
// and the retired count. A room that keeps its revision on its entries
// counts on no shard: the retired count, and shard "0" for the room's own
// repair mark, two writes instead of seventeen; its departures' marks
// (left~{uid}) carry their own expireAt and are not rewritten.
//
// Both ways a refresh is made beside a join's revive: the grace that a last
// departure starts (writeRoomAt), and the repair of a suspected_empty room
// found occupied (TearDown). Each counts the refresh's writes (the store's
// op counters against the same step with no refresh due, or the step's own
// write), lists the revision's documents it wrote, and checks that shard
// "0" and the retired count now expire with the room.
func TestRefresh_WhatARoomsRevisionKeeps(t *testing.T) {
	shards := presence.DefaultSettings().RevisionShards
	kinds := []struct {
		name  string
		older bool
		// refresh is how many documents a refresh writes; written, which of
		// the revision's (rosterRevisions/*, recentlyLeft/~retired).
		refresh int64
		written []string
	}{
		{"OnTheEntries", false, 2, []string{retiredPath, firestoredb.RevisionsCollection + "/0"}},
		{"OnTheShards", true, int64(shards) + 1, append([]string{retiredPath}, shardNames(shards)...)},
	}
	for _, kind := range kinds {
		t.Run(kind.name+"/TheGraceOfALastDeparture", func(t *testing.T) {
			f := MustOpenStore(t)
			room := func(id, uid string) presence.JoinResult {
				if kind.older {
					f.olderRoom(t, id)
				}
				j := f.mustJoin(t, id, uid, "tab")
				if got := f.readRoom(t, id)[firestoredb.FieldRevisionOnEntries] == true; got == kind.older {
					t.Fatalf("room %s: revisionOnEntries %v, want %v", id, got, !kind.older)
				}
				return j
			}
			leave := func(id, uid string, j presence.JoinResult) firestoredb.OpCounts {
				t.Helper()
				before := f.store.Ops()
				if _, err := f.store.Leave(f.ctx, ref(id, uid, "tab", j.Session.Generation)); err != nil {
					t.Fatal(err)
				}
				if state := f.readRoom(t, id)["state"]; state != string(presence.StateSuspectedEmpty) {
					t.Fatalf("room %s %v after its last leave, want it in its grace", id, state)
				}
				return f.store.Ops().Sub(before)
			}
			alice := room("due", "alice")
			f.clock.Advance(13 * time.Hour) // beyond half a RefreshWindow
			bob := room("fresh", "bob")
			// The same departure with no refresh due (the room's
			// revisionExpireAt is as far ahead as its new expireAt): what
			// the leave and its grace write without one.
			plain := leave("fresh", "bob", bob)
			before := emulatortest.Snapshot(t, f.client)
			due := leave("due", "alice", alice)
			if got := due.Writes - plain.Writes; got != kind.refresh {
				t.Errorf("the refresh wrote %d documents (%d with it, %d without), want %d", got, due.Writes, plain.Writes, kind.refresh)
			}
			checkRefreshed(t, f, "due", before, kind.written)
		})
		t.Run(kind.name+"/TheRepairOfAnOccupiedRoom", func(t *testing.T) {
			f := MustOpenStore(t)
			if kind.older {
				f.olderRoom(t, "occupied")
			}
			f.mustJoin(t, "occupied", "alice", "tab")
			f.clock.Advance(13 * time.Hour)
			// suspected_empty with alice still listed, past its grace (a
			// departure whose instance died between its steps leaves one
			// so; see settleEmptiness).
			now := f.clock.Now()
			if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc("occupied").Set(f.ctx, map[string]any{
				"state": string(presence.StateSuspectedEmpty), "emptySince": now.Add(-time.Hour), "cleanupAfter": now,
			}, firestore.MergeAll); err != nil {
				t.Fatal(err)
			}
			listing, err := f.store.DueRooms(f.ctx, now, 10, false)
			if err != nil || len(listing.Items) != 1 {
				t.Fatalf("due rooms %v, %v", listing.Items, err)
			}
			before, snap := f.store.Ops(), emulatortest.Snapshot(t, f.client)
			res, err := f.store.TearDown(f.ctx, presence.CandidateOf(listing.Items[0]), true)
			if err != nil || res.Verdict != presence.Occupied {
				t.Fatalf("teardown: verdict %v, %v; want Occupied", res.Verdict, err)
			}
			if got, want := f.store.Ops().Sub(before).Writes, 1+kind.refresh; got != want {
				t.Errorf("the repair wrote %d documents, want %d: the room and %d for the refresh", got, want, kind.refresh)
			}
			checkRefreshed(t, f, "occupied", snap, kind.written)
		})
	}
}

// checkRefreshed checks, after a refresh of room, that the revision's
// documents it wrote since before are want (paths under the room), and
// that shard "0" and the retired count expire with the room, at the
// revisionExpireAt it now carries.
func checkRefreshed(t *testing.T, f *fixture, room string, before map[string]time.Time, want []string) {
	t.Helper()
	prefix := "rooms/" + room + "/"
	var written []string
	for _, p := range emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)) {
		rel := strings.TrimPrefix(p, prefix)
		if rel == p {
			continue
		}
		mark := strings.HasPrefix(rel, firestoredb.RevisionsCollection+"/"+firestoredb.DepartureMarkPrefix)
		if (strings.HasPrefix(rel, firestoredb.RevisionsCollection+"/") && !mark) || rel == retiredPath {
			written = append(written, rel)
		}
	}
	sort.Strings(written)
	want = append([]string(nil), want...)
	sort.Strings(want)
	if strings.Join(written, " ") != strings.Join(want, " ") {
		t.Errorf("the revision's documents written: %v, want %v", written, want)
	}
	doc := f.readRoom(t, room)
	roomExpireAt, _ := doc[firestoredb.FieldExpireAt].(time.Time)
	revisionExpireAt, _ := doc[firestoredb.FieldRevisionExpireAt].(time.Time)
	if !revisionExpireAt.Equal(roomExpireAt) {
		t.Errorf("room expires at %v, its revision at %v: no refresh recorded", roomExpireAt, revisionExpireAt)
	}
	for _, p := range []string{firestoredb.RevisionsCollection + "/0", retiredPath} {
		snap, err := f.client.Doc(prefix + p).Get(f.ctx)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got, _ := snap.Data()[firestoredb.FieldExpireAt].(time.Time); !got.Equal(revisionExpireAt) {
			t.Errorf("%s expires at %v, want %v, the room's refresh", p, got, revisionExpireAt)
		}
	}
}

// retiredPath is the retired count's path under its room.
const retiredPath = firestoredb.RecentlyLeftCollection + "/" + firestoredb.RetiredDoc

// shardNames are the revision shards' paths under their room.
func shardNames(n int) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = firestoredb.RevisionsCollection + "/" + strconv.Itoa(k)
	}
	return out
}
