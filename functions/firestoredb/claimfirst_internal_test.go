package firestoredb

import (
	"testing"
	"time"
)

// A judgement made before the transaction (or a contest's admission)
// stands only for the room lifetime and the cap it was made under.
func TestJoinClaim_AdmitsOnlyForItsLifetimeAndCap(t *testing.T) {
	lifetime := time.Unix(1_700_000_000, 0)
	src := revisionSource{roomID: "r", lifetime: lifetime}
	admitted := joinClaim{judged: &entryTotals{entries: 3}, judgedIn: lifetime}
	for _, c := range []struct {
		name             string
		claim            joinClaim
		src              revisionSource
		judgedUnder, now int
		want             bool
	}{
		{"judged in this lifetime under this cap", admitted, src, 10, 10, true},
		{"never judged", joinClaim{}, src, 10, 10, false},
		{"judged in an earlier lifetime", admitted, revisionSource{roomID: "r", lifetime: lifetime.Add(time.Second)}, 10, 10, false},
		{"the cap lowered since", admitted, src, 10, 4, false},
		{"the cap raised since", admitted, src, 4, 10, false},
	} {
		if got := c.claim.stands(c.src, c.judgedUnder, c.now); got != c.want {
			t.Errorf("%s: stands = %v, want %v", c.name, got, c.want)
		}
	}
}
