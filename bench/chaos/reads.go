package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/firestoredb"

	"github.com/roomlease/roomlease/bench/workload"
)

// What the chaos scenario reads from the emulator directly, beside the
// API: roster samples, revision readings, the documents a violation
// concerns, and what is left after the drain.

// sampleRosters reads every room's roster entries every RosterEvery and
// checks them against the leases the clients hold (expectListed).
func (c *chaosRun) sampleRosters(ctx context.Context) {
	for ctx.Err() == nil {
		for _, room := range c.rooms {
			if ctx.Err() != nil {
				return
			}
			before := c.beliefs(room)
			start := time.Now()
			docs, err := c.client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.ParticipantsCollection).Documents(ctx).GetAll()
			end := time.Now()
			if err != nil {
				if ctx.Err() == nil {
					c.event("roster reads failed")
				}
				continue
			}
			after := c.beliefs(room)
			exp := expectListed(before, after, start, end, c.cfg.RosterMargin)
			listed := make(map[string]bool, len(docs))
			for _, d := range docs {
				listed[d.Ref.ID] = true
			}
			c.mu.Lock()
			c.rosterReads++
			c.rosterChecks += len(exp.Must)
			c.rosterDoubtful += exp.Doubtful
			c.mu.Unlock()
			for uid, l := range exp.Must {
				if listed[uid] {
					continue
				}
				u := c.userByUID[uid]
				c.report(ctx, u, Violation{Kind: violationMissing, At: end.Format(time.RFC3339Nano), Room: room, UID: uid,
					Session: l.Session, Generation: l.Gen, Process: -1,
					Detail: fmt.Sprintf("roster read from %s to %s lists %d entries without this user, whose session %s generation %d was joined at %s and leased until %s",
						start.Format("15:04:05.000"), end.Format("15:04:05.000"), len(docs), l.Session, l.Gen, l.Since.Format("15:04:05.000"), l.Until.Format("15:04:05.000"))})
			}
		}
		workload.SleepCtx(ctx, c.cfg.RosterEvery)
	}
}

// pollRevisions reads every room's revision (readRevision) every
// RevisionEvery and reports every decrease within a lifetime.
func (c *chaosRun) pollRevisions(ctx context.Context) {
	for ctx.Err() == nil {
		for _, room := range c.rooms {
			if ctx.Err() != nil {
				return
			}
			seen, parts, err := c.readRevision(ctx, room)
			if err != nil {
				if ctx.Err() == nil {
					c.event("revision reads failed")
				}
				continue
			}
			c.mu.Lock()
			c.revisionReads++
			if seen.Revision > c.maxRevision {
				c.maxRevision = seen.Revision
			}
			prevParts := c.lastCounted[room]
			c.lastCounted[room] = parts
			drop := c.revisions.observe(room, seen)
			c.mu.Unlock()
			c.published.observe(room, seen)
			if drop != nil {
				c.report(ctx, nil, Violation{Kind: violationRevision, At: drop.DropAt.Format(time.RFC3339Nano), Room: room, Process: -1,
					Detail: fmt.Sprintf("the lifetime created at %s read revision %d at %s (%s), then %d at %s (%s)",
						drop.Lifetime.Format(time.RFC3339Nano), drop.Before, drop.SeenAt.Format("15:04:05.000"), prevParts,
						drop.After, drop.DropAt.Format("15:04:05.000"), parts)})
			}
		}
		workload.SleepCtx(ctx, c.cfg.RevisionEvery)
	}
}

// readRevision reads room's revision as the server keeps it, in one
// read-only transaction so that the reading is one snapshot, and describes
// what it added up (id=changes) for a report. A room that keeps its
// revision on its entries (firestoredb's FieldRevisionOnEntries, every
// room this version creates) has it as the sum of `changes` over the
// entries and departure records of its lifetime, the retired count among
// them; an older room has it on its shards. Reading the shards alone of
// a newer room would read 0 for ever, and no decrease could show.
func (c *chaosRun) readRevision(ctx context.Context, room string) (revisionSeen, string, error) {
	ref := c.client.Collection(firestoredb.RoomsCollection).Doc(room)
	var seen revisionSeen
	var parts []string
	err := c.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		seen, parts = revisionSeen{}, nil
		onEntries := false
		snap, err := tx.Get(ref)
		switch {
		case status.Code(err) == codes.NotFound:
		case err != nil:
			return err
		default:
			seen.Exists = true
			seen.Lifetime, _ = snap.Data()["createdAt"].(time.Time)
			onEntries, _ = snap.Data()[firestoredb.FieldRevisionOnEntries].(bool)
		}
		var counted []*firestore.DocumentSnapshot
		if onEntries {
			for _, name := range []string{firestoredb.ParticipantsCollection, firestoredb.RecentlyLeftCollection} {
				docs, err := tx.Documents(ref.Collection(name).Where(firestoredb.FieldRoomOpenedAt, "==", seen.Lifetime)).GetAll()
				if err != nil {
					return err
				}
				counted = append(counted, docs...)
			}
		} else {
			shards, err := tx.Documents(ref.Collection(firestoredb.RevisionsCollection)).GetAll()
			if err != nil {
				return err
			}
			counted = shards
			if !seen.Exists && len(shards) > 0 {
				c.event("revision shards without a room")
			}
		}
		seen.Revision, parts = sumChanges(counted)
		return nil
	}, firestore.ReadOnly, firestore.MaxAttempts(1))
	seen.At = time.Now()
	return seen, "[" + strings.Join(parts, " ") + "]", err
}

// sumChanges adds up the `changes` of docs and names each document that
// carries some, as parent/id=changes.
func sumChanges(docs []*firestore.DocumentSnapshot) (int64, []string) {
	var sum int64
	var parts []string
	for _, d := range docs {
		n, _ := d.Data()[firestoredb.FieldChanges].(int64)
		if n == 0 {
			continue
		}
		sum += n
		parts = append(parts, fmt.Sprintf("%s/%s=%d", d.Ref.Parent.ID, d.Ref.ID, n))
	}
	return sum, parts
}

// report records a violation (or an excused 409) with the documents it
// concerns, as read now, the user's recent requests and the chaos around it.
func (c *chaosRun) report(ctx context.Context, u *chaosUser, v Violation) {
	at, err := time.Parse(time.RFC3339Nano, v.At)
	if err != nil {
		at = time.Now()
	}
	c.mu.Lock()
	c.violationCounts[v.Kind]++
	keep := c.detailCounts[v.Kind] < maxDetails
	c.detailCounts[v.Kind]++
	c.mu.Unlock()
	c.cfg.Progress(fmt.Sprintf("chaos: %s in %s (user %s, session %s): %s", v.Kind, v.Room, v.UID, v.Session, v.Detail))
	if !keep {
		return
	}
	v.Seed = c.cfg.Seed
	v.ChaosBefore = c.procs.actionsAround(at, 30*time.Second)
	if u != nil {
		v.Trail = u.trailCopy()
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	v.Documents = c.documentsOf(rctx, v.Room, v.UID)
	c.mu.Lock()
	c.details = append(c.details, v)
	c.mu.Unlock()
}

// maxDetails is how many violations of each kind are reported in full.
const maxDetails = 10

// documentsOf reads the room document and, for uid, its roster entry and
// sessions, rendered "path updateTime json".
func (c *chaosRun) documentsOf(ctx context.Context, room, uid string) []string {
	roomRef := c.client.Collection(firestoredb.RoomsCollection).Doc(room)
	refs := []*firestore.DocumentRef{roomRef}
	if uid != "" {
		entry := roomRef.Collection(firestoredb.ParticipantsCollection).Doc(uid)
		refs = append(refs, entry)
		if sessions, err := entry.Collection(firestoredb.SessionsCollection).DocumentRefs(ctx).GetAll(); err == nil {
			refs = append(refs, sessions...)
		}
	}
	var out []string
	for _, ref := range refs {
		snap, err := ref.Get(ctx)
		switch {
		case status.Code(err) == codes.NotFound:
			out = append(out, relDocPath(ref.Path)+" absent")
		case err != nil:
			out = append(out, relDocPath(ref.Path)+" unreadable: "+err.Error())
		default:
			out = append(out, renderDoc(snap))
		}
	}
	return out
}

func renderDoc(snap *firestore.DocumentSnapshot) string {
	raw, _ := json.Marshal(snap.Data())
	return fmt.Sprintf("%s (updated %s) %s", relDocPath(snap.Ref.Path), snap.UpdateTime.Format("15:04:05.000000"), raw)
}

// relDocPath strips "projects/P/databases/D/documents/" from a document name.
func relDocPath(name string) string {
	if i := strings.Index(name, "/documents/"); i >= 0 {
		return name[i+len("/documents/"):]
	}
	return name
}

// leftovers is what the emulator holds after the drain.
type leftovers struct {
	// Paths of this run's documents by kind (classifyDocument); rooms and
	// what is beneath them are limited to this run's room prefix, the kept
	// kinds to documents naming this run's rooms or users where they can.
	Paths map[string][]string
	// Docs renders the first few rooms and documents under rooms.
	Docs []string
	// PendingCleanup counts this run's closing records still marked
	// pendingCleanup (a purge not finished).
	PendingCleanup int
}

func (l leftovers) count(kind string) int { return len(l.Paths[kind]) }

// clean reports whether every room is gone, with everything beneath it.
func (l leftovers) clean() bool { return l.count(docRoom) == 0 && l.count(docUnderRoom) == 0 }

// inspectLeftovers walks rooms/ (this run's rooms only, missing parents
// included, every subcollection at every depth) and counts the documents
// kept by design.
func (c *chaosRun) inspectLeftovers(ctx context.Context) (leftovers, error) {
	out := leftovers{Paths: map[string][]string{}}
	add := func(snap *firestore.DocumentSnapshot) {
		p := relDocPath(snap.Ref.Path)
		kind, kept := classifyDocument(p)
		out.Paths[kind] = append(out.Paths[kind], p)
		if !kept && len(out.Docs) < 20 {
			out.Docs = append(out.Docs, renderDoc(snap))
		}
	}
	var walk func(col *firestore.CollectionRef) error
	walk = func(col *firestore.CollectionRef) error {
		refs := col.DocumentRefs(ctx)
		for {
			ref, err := refs.Next()
			if errors.Is(err, iterator.Done) {
				return nil
			}
			if err != nil {
				return err
			}
			if col.Parent == nil && !strings.HasPrefix(ref.ID, c.prefix) {
				continue
			}
			snap, err := ref.Get(ctx)
			if err == nil && snap.Exists() {
				add(snap)
			} else if status.Code(err) != codes.NotFound && err != nil {
				return err
			}
			subs, err := ref.Collections(ctx).GetAll()
			if err != nil {
				return err
			}
			for _, sub := range subs {
				if err := walk(sub); err != nil {
					return err
				}
			}
		}
	}
	if err := walk(c.client.Collection(firestoredb.RoomsCollection)); err != nil {
		return out, err
	}
	closings, err := c.client.Collection(firestoredb.ClosingsCollection).Documents(ctx).GetAll()
	if err != nil {
		return out, err
	}
	for _, snap := range closings {
		if !strings.HasPrefix(snap.Ref.ID, c.prefix) {
			continue
		}
		add(snap)
		if pending, _ := snap.Data()[firestoredb.FieldPendingCleanup].(bool); pending {
			out.PendingCleanup++
		}
	}
	for _, col := range []string{firestoredb.ControlCollection, firestoredb.UsersCollection} {
		snaps, err := c.client.Collection(col).Documents(ctx).GetAll()
		if err != nil {
			return out, err
		}
		for _, snap := range snaps {
			if col == firestoredb.UsersCollection && c.userByUID[snap.Ref.ID] == nil {
				continue
			}
			add(snap)
		}
	}
	for _, paths := range out.Paths {
		sort.Strings(paths)
	}
	return out, nil
}
