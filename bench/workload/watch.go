package workload

import (
	"context"
	"sync"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// roomWatch listens to one room the way a client does: a query listener on
// rooms/{id}/participants (the roster) and a document listener on rooms/{id}.
type roomWatch struct {
	id string
	w  *Workload

	mu sync.Mutex
	// Roster listener deliveries after the initial snapshot, and the
	// document changes they carried (each one is a billed read).
	rosterSnapshots, rosterDocChanges int64
	roomSnapshots                     int64
	members                           map[string]bool
	everExisted                       bool
	// emptyAt is the last departure that emptied the roster, or zero.
	emptyAt    time.Time
	emptyByExp bool
}

func (rw *roomWatch) run(ctx context.Context, client *firestore.Client, ready *sync.WaitGroup) {
	var once1, once2 sync.Once
	go rw.roster(ctx, client, func() { once1.Do(ready.Done) })
	rw.room(ctx, client, func() { once2.Do(ready.Done) })
	once1.Do(ready.Done)
	once2.Do(ready.Done)
}

// listen hands deliver each snapshot next returns, with the moment it
// arrived, until the listener ends. An end other than the run's own
// cancellation is a listener error: it would leave the run blind to that
// room, so the report counts it.
func listen[S any](ctx context.Context, w *Workload, next func() (S, error), deliver func(snap S, at time.Time)) {
	for {
		snap, err := next()
		at := time.Now()
		if err != nil {
			if ctx.Err() == nil && status.Code(err) != codes.Canceled {
				w.listenerErrors.Add(1)
			}
			return
		}
		deliver(snap, at)
	}
}

func (rw *roomWatch) roster(ctx context.Context, client *firestore.Client, ready func()) {
	it := client.Collection(firestoredb.RoomsCollection).Doc(rw.id).Collection(firestoredb.ParticipantsCollection).Snapshots(ctx)
	defer it.Stop()
	first := true
	listen(ctx, rw.w, it.Next, func(snap *firestore.QuerySnapshot, now time.Time) {
		rw.mu.Lock()
		if first {
			first = false
			rw.members = map[string]bool{}
			for _, ch := range snap.Changes {
				rw.members[ch.Doc.Ref.ID] = true
			}
			rw.mu.Unlock()
			ready()
			return
		}
		rw.rosterSnapshots++
		rw.rosterDocChanges += int64(len(snap.Changes))
		var removed []string
		for _, ch := range snap.Changes {
			switch ch.Kind {
			case firestore.DocumentAdded:
				rw.members[ch.Doc.Ref.ID] = true
				rw.emptyAt = time.Time{}
			case firestore.DocumentRemoved:
				delete(rw.members, ch.Doc.Ref.ID)
				removed = append(removed, ch.Doc.Ref.ID)
			}
		}
		empty := len(rw.members) == 0
		rw.mu.Unlock()
		var lastDeparture time.Time
		var byExpiry bool
		for _, uid := range removed {
			dep, exp := rw.w.observeRemoval(rw.id, uid, now)
			if dep.After(lastDeparture) {
				lastDeparture, byExpiry = dep, exp
			}
		}
		if empty && len(removed) > 0 && !lastDeparture.IsZero() {
			rw.mu.Lock()
			rw.emptyAt, rw.emptyByExp = lastDeparture, byExpiry
			rw.mu.Unlock()
		}
	})
}

func (rw *roomWatch) room(ctx context.Context, client *firestore.Client, ready func()) {
	it := client.Collection(firestoredb.RoomsCollection).Doc(rw.id).Snapshots(ctx)
	defer it.Stop()
	first := true
	listen(ctx, rw.w, it.Next, func(snap *firestore.DocumentSnapshot, now time.Time) {
		rw.mu.Lock()
		if !first {
			rw.roomSnapshots++
		}
		first = false
		if snap.Exists() {
			rw.everExisted = true
		} else if rw.everExisted {
			rw.everExisted = false
			rw.w.roomsDeleted.Add(1)
			// The roster listener may deliver the last removal a moment
			// after the room document's deletion; wait briefly for it.
			go rw.teardownSeen(now)
		}
		rw.mu.Unlock()
		ready()
	})
}

func (rw *roomWatch) teardownSeen(deletedAt time.Time) {
	for range 40 {
		rw.mu.Lock()
		at, byExp := rw.emptyAt, rw.emptyByExp
		rw.mu.Unlock()
		if !at.IsZero() {
			lag := deletedAt.Sub(at)
			if byExp {
				rw.w.teardownAfterExpiry.Add(lag)
			} else {
				rw.w.teardownAfterLeave.Add(lag)
			}
			rw.w.teardownLag.Add(lag)
			rw.mu.Lock()
			rw.emptyAt = time.Time{}
			rw.mu.Unlock()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	rw.w.teardownUnattributed.Add(1)
}

func (rw *roomWatch) counts() (snaps, changes, roomSnaps int64) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.rosterSnapshots, rw.rosterDocChanges, rw.roomSnapshots
}
