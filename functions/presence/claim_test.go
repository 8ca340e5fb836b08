package presence

import "testing"

func TestJudgeClaim(t *testing.T) {
	s := DefaultSettings()
	p := &Policy{MaxParticipants: 10}
	for _, c := range []struct {
		name                   string
		entries, others, ahead int
		want                   ClaimVerdict
	}{
		{"everyone fits", 5, 4, -1, ClaimAdmits},
		{"everyone fits, to the last place", 6, 3, 2, ClaimAdmits},
		{"the others would fill it, not counted in order yet", 6, 4, -1, ClaimWaits},
		{"those ahead leave a place, those behind would take it", 6, 4, 3, ClaimWaits},
		{"those ahead fill it", 6, 4, 4, ClaimRefused},
		{"the entries alone fill it", 10, 0, 0, ClaimRefused},
		{"the last in order, a place left", 6, 3, 3, ClaimAdmits},
		{"the last in order, none left", 6, 4, 4, ClaimRefused},
	} {
		if got := s.JudgeClaim(c.entries, c.others, c.ahead, p); got != c.want {
			t.Errorf("%s: JudgeClaim(%d, %d, %d) = %v, want %v", c.name, c.entries, c.others, c.ahead, got, c.want)
		}
	}
}

// The last claim in order has no claim behind it (others == ahead), so it
// never waits: a contest always has a claim that decides.
func TestJudgeClaim_TheLastInOrderNeverWaits(t *testing.T) {
	s := DefaultSettings()
	for limit := 1; limit <= 6; limit++ {
		p := &Policy{MaxParticipants: limit}
		for entries := 0; entries <= limit+1; entries++ {
			for others := 0; others <= limit+1; others++ {
				if got := s.JudgeClaim(entries, others, others, p); got == ClaimWaits {
					t.Fatalf("cap %d: the last of %d claims with %d entries waits", limit, others+1, entries)
				}
			}
		}
	}
}
