package fleet

import (
	"fmt"
	"slices"

	"github.com/roomlease/roomlease/functions/presence"
)

// RosterEntry is one participant of a GET /v1/rooms/{id} answer.
type RosterEntry struct {
	ParticipantID string `json:"participantId"`
	SessionCount  int    `json:"sessionCount"`
}

// RosterCheck is the verdict on a one-room crowd after its joins settled.
type RosterCheck struct {
	Acknowledged int `json:"acknowledgedJoins"`
	Listed       int `json:"listed"`
	// AckMissing are acknowledged joins absent from the roster: a lost entry.
	AckMissing int `json:"acknowledgedButMissing"`
	// LateListed are crowd members listed although their join was not
	// acknowledged (it timed out, then committed): allowed, and counted.
	LateListed       int `json:"listedWithoutAcknowledgement"`
	Strangers        int `json:"listedButNotInCrowd"`
	Duplicates       int `json:"listedTwice"`
	BadSessionCounts int `json:"sessionCountNotOne"`
	// CollectionCount is the roster entries in Firestore.
	CollectionCount int      `json:"rosterEntriesInFirestore"`
	OK              bool     `json:"ok"`
	Problems        []string `json:"problems,omitempty"`
}

// CheckRoster judges a roster read after the joins settled: every
// acknowledged join must be listed once with one session, nobody outside
// the crowd may be listed, and every count of the participants (the GET
// roster and the roster entries in Firestore) must agree. The room document
// carries no count of its participants, so there is none to compare.
func CheckRoster(crowd, acked []string, roster []RosterEntry, collectionCount int) RosterCheck {
	c := RosterCheck{Acknowledged: len(acked), Listed: len(roster), CollectionCount: collectionCount}
	inCrowd := make(map[string]bool, len(crowd))
	for _, u := range crowd {
		inCrowd[u] = true
	}
	isAcked := make(map[string]bool, len(acked))
	for _, u := range acked {
		isAcked[u] = true
	}
	seen := map[string]bool{}
	for _, e := range roster {
		switch {
		case seen[e.ParticipantID]:
			c.Duplicates++
		case !inCrowd[e.ParticipantID]:
			c.Strangers++
		case !isAcked[e.ParticipantID]:
			c.LateListed++
		}
		seen[e.ParticipantID] = true
		if e.SessionCount != 1 {
			c.BadSessionCounts++
		}
	}
	for _, u := range acked {
		if !seen[u] {
			c.AckMissing++
		}
	}
	problem := func(format string, args ...any) { c.Problems = append(c.Problems, fmt.Sprintf(format, args...)) }
	if c.AckMissing > 0 {
		problem("%d acknowledged joins are not on the roster", c.AckMissing)
	}
	if c.Strangers > 0 {
		problem("%d listed participants are not in the crowd", c.Strangers)
	}
	if c.Duplicates > 0 {
		problem("%d participants are listed twice", c.Duplicates)
	}
	if c.BadSessionCounts > 0 {
		problem("%d entries have a sessionCount other than 1", c.BadSessionCounts)
	}
	if collectionCount != len(roster) {
		problem("Firestore holds %d roster entries, the roster lists %d", collectionCount, len(roster))
	}
	c.OK = len(c.Problems) == 0
	return c
}

// EmptyCheck is the verdict on a one-room crowd after everyone left: the
// room must reach suspected_empty, and reach it exactly once.
type EmptyCheck struct {
	InitialState string `json:"stateBeforeLeaves"`
	FinalState   string `json:"finalState"`
	// Transitions counts the room document's snapshots that entered
	// suspected_empty from another state, as a listener saw them.
	Transitions int `json:"suspectedEmptyTransitions"`
	// A listener may merge quick changes into one snapshot, so a revival and
	// a second emptying could hide between two snapshots; the room
	// generation, which every revival advances, catches that.
	GenerationBefore int64    `json:"generationBefore"`
	GenerationAfter  int64    `json:"generationAfter"`
	Remaining        int      `json:"rosterEntriesLeft"`
	OK               bool     `json:"ok"`
	Problems         []string `json:"problems,omitempty"`
}

// StateSuspectedEmpty is the room state the leaves must reach.
const StateSuspectedEmpty = string(presence.StateSuspectedEmpty)

// CountEntries counts the snapshots in states that enter target from a
// different state; states[0] is the state before the observation began.
func CountEntries(states []string, target string) int {
	n := 0
	for i := 1; i < len(states); i++ {
		if states[i] == target && states[i-1] != target {
			n++
		}
	}
	return n
}

// CheckEmpty judges the room after the crowd left. states are the room
// document's states as a listener delivered them, the first being the state
// before the leaves ("absent" for a missing document).
func CheckEmpty(states []string, genBefore, genAfter int64, remaining int) EmptyCheck {
	c := EmptyCheck{GenerationBefore: genBefore, GenerationAfter: genAfter, Remaining: remaining,
		Transitions: CountEntries(states, StateSuspectedEmpty)}
	if len(states) > 0 {
		c.InitialState, c.FinalState = states[0], states[len(states)-1]
	}
	problem := func(format string, args ...any) { c.Problems = append(c.Problems, fmt.Sprintf(format, args...)) }
	if c.FinalState != StateSuspectedEmpty {
		problem("the room ended %q, not %s", c.FinalState, StateSuspectedEmpty)
	}
	if c.Transitions != 1 {
		problem("the room entered %s %d times", StateSuspectedEmpty, c.Transitions)
	}
	if genAfter != genBefore {
		problem("the room generation moved from %d to %d (a revival)", genBefore, genAfter)
	}
	if remaining != 0 {
		problem("%d roster entries remain", remaining)
	}
	if slices.Contains(states, "absent") && c.InitialState != "absent" {
		problem("the room document vanished during the leaves")
	}
	c.OK = len(c.Problems) == 0
	return c
}
