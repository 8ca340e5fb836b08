package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

func TestMarksLarge(t *testing.T) {
	s := presence.DefaultSettings() // threshold 500
	for name, tc := range map[string]struct {
		entries int
		policy  *presence.Policy
		want    bool
	}{
		"below":                        {498, nil, false},
		"the join that reaches it":     {499, nil, true},
		"a racing join just above":     {520, nil, true},
		"well above: no write":         {499 + presence.ExactCapMargin, nil, false},
		"the policy's own threshold":   {9, &presence.Policy{LargeRoomThreshold: 10}, true},
		"below the policy's threshold": {8, &presence.Policy{LargeRoomThreshold: 10}, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := s.MarksLarge(tc.entries, tc.policy); got != tc.want {
				t.Fatalf("MarksLarge(%d) = %v, want %v", tc.entries, got, tc.want)
			}
		})
	}
}

func TestNearLarge(t *testing.T) {
	s := presence.DefaultSettings() // threshold 500
	for name, tc := range map[string]struct {
		entries int
		policy  *presence.Policy
		want    bool
	}{
		"far below":                  {499 - presence.ExactCapMargin - 1, nil, false},
		"the nearest it counts from": {499 - presence.ExactCapMargin, nil, true},
		"just below":                 {497, nil, true},
		"the join that reaches it":   {499, nil, false}, // MarksLarge marks it
		"a policy's threshold of 2":  {0, &presence.Policy{LargeRoomThreshold: 2}, true},
		"above a policy's threshold": {2, &presence.Policy{LargeRoomThreshold: 2}, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := s.NearLarge(tc.entries, tc.policy); got != tc.want {
				t.Fatalf("NearLarge(%d) = %v, want %v", tc.entries, got, tc.want)
			}
		})
	}
}

func TestSummaryDue(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		prev time.Time
		want bool
	}{
		"never refreshed":     {time.Time{}, true},
		"half a second ago":   {at.Add(-500 * time.Millisecond), false},
		"a second ago":        {at.Add(-time.Second), true},
		"a clock behind ours": {at.Add(time.Second), false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := presence.SummaryDue(at, tc.prev); got != tc.want {
				t.Fatalf("SummaryDue = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLargeMode(t *testing.T) {
	s := presence.DefaultSettings() // threshold 500
	public := &presence.Policy{PublicOccupancy: true}
	for name, tc := range map[string]struct {
		count    int
		policy   *presence.Policy
		wasLarge bool
		want     bool
	}{
		"summarized for its size":                  {250, nil, false, true},
		"public, a few":                            {3, public, false, false},
		"public, at the threshold":                 {500, public, false, true},
		"public, shrinking, at half":               {250, public, true, true},
		"public, shrinking, below half":            {249, public, true, false},
		"public, growing, between half and it":     {400, public, false, false},
		"public, with its own threshold, above it": {5, &presence.Policy{PublicOccupancy: true, LargeRoomThreshold: 4}, false, true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := s.LargeMode(tc.count, tc.policy, tc.wasLarge); got != tc.want {
				t.Fatalf("LargeMode(%d, wasLarge %v) = %v, want %v", tc.count, tc.wasLarge, got, tc.want)
			}
		})
	}
}

func TestKeepsSummary(t *testing.T) {
	s := presence.DefaultSettings()
	for name, tc := range map[string]struct {
		count  int
		policy *presence.Policy
		want   bool
	}{
		"at half the threshold":           {250, nil, true},
		"below half":                      {249, nil, false},
		"public occupancy, whatever size": {0, &presence.Policy{PublicOccupancy: true}, true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := s.KeepsSummary(tc.count, tc.policy); got != tc.want {
				t.Fatalf("KeepsSummary(%d) = %v, want %v", tc.count, got, tc.want)
			}
		})
	}
}
