package presence

// Snapshot is a room's roster as a backend service reads it to repair a
// gap in the presence events: the live roster (Roster.Room.CreatedAt is
// the lifetime the events carry) and EventSeqs, the latest participantSeq
// of everyone who had an event in that lifetime, present or gone, read in
// the same transaction. A consumer holding the snapshot knows which events
// it reflects: those at or below these numbers.
type Snapshot struct {
	Roster
	EventSeqs map[string]int64
}
