package firestoredb

import (
	"context"
	"hash/fnv"
)

// roomQueue makes this process's transactions on one room take turns.
//
// Joins, leaves and expiries of one room all read and write the room
// document. Sent to Firestore at once, they deadlock on it and are aborted
// and retried with the client's backoff (up to 30 s), so a burst of joins
// into one room can fail entirely although each needs milliseconds. Queued
// here first, each transaction finds the document free. Other instances'
// transactions still contend, and Firestore's retries settle those; the
// queue only removes the contention an instance creates with itself.
//
// Rooms hash onto a fixed set of slots, so memory stays bounded; two rooms
// sharing a slot merely wait for each other.
type roomQueue struct {
	slots [1024]chan struct{}
}

func newRoomQueue() *roomQueue {
	q := &roomQueue{}
	for i := range q.slots {
		q.slots[i] = make(chan struct{}, 1)
	}
	return q
}

// enter waits for roomID's turn, or for ctx to end. The returned func ends
// the turn.
func (q *roomQueue) enter(ctx context.Context, roomID string) (func(), error) {
	h := fnv.New32a()
	h.Write([]byte(roomID))
	slot := q.slots[h.Sum32()%uint32(len(q.slots))]
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
