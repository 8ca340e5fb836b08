package firestoredb

import "testing"

// Where a contested claim stands in one look at the contest: the list
// holds the first claims in order, as many as the places left.
func TestContestView_Position(t *testing.T) {
	first := []string{"01~a", "02~b", "03~c"}
	for _, c := range []struct {
		name   string
		claims int // the claims' count at the look
		order  string
		ahead  int
		held   bool
	}{
		{"first in order", 5, "01~a", 0, true},
		{"listed, two ahead", 5, "03~c", 2, true},
		{"behind the listed ones: at least the places left ahead", 5, "04~d", 3, true},
		{"sorts among the listed ones, yet is not listed: gone", 4, "02~bb", 0, false},
		{"every claim listed, and not this one: gone", 3, "04~d", 0, false},
		{"no claim at all: gone", 0, "01~a", 0, false},
	} {
		v := contestView{totals: entryTotals{claims: c.claims}, first: first}
		if c.claims == 0 {
			v.first = nil
		}
		ahead, held := v.position(c.order)
		if ahead != c.ahead || held != c.held {
			t.Errorf("%s: position(%q) = %d, %v; want %d, %v", c.name, c.order, ahead, held, c.ahead, c.held)
		}
	}
}
