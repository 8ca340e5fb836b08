package presence_test

import (
	"testing"

	"github.com/roomlease/roomlease/functions/presence"
)

func TestCheckOccupancyReader(t *testing.T) {
	notVisible := presence.NotVisible().Error()
	for name, tc := range map[string]struct {
		policy *presence.Policy
		ok     bool
	}{
		"no policy: as an absent room":   {nil, false},
		"a policy without the opt-in":    {&presence.Policy{MaxParticipants: 500}, false},
		"opted in":                       {&presence.Policy{PublicOccupancy: true}, true},
		"opted in with a list of admits": {&presence.Policy{PublicOccupancy: true, AllowedUsers: []string{"bob"}}, true},
	} {
		t.Run(name, func(t *testing.T) {
			err := presence.CheckOccupancyReader(tc.policy)
			if tc.ok != (err == nil) || (err != nil && (presence.ErrorCode(err) != presence.ENotFound || err.Error() != notVisible)) {
				t.Fatalf("CheckOccupancyReader = %v, want visible=%v (else exactly NotVisible)", err, tc.ok)
			}
		})
	}
}
