package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

func TestAdmit(t *testing.T) {
	for name, tc := range map[string]struct {
		policy *presence.Policy
		uid    string
		ok     bool
	}{
		"no policy":             {nil, "alice", true},
		"policy without a list": {&presence.Policy{MaxParticipants: 3}, "alice", true},
		"listed":                {&presence.Policy{AllowedUsers: []string{"bob", "alice"}}, "alice", true},
		"not listed":            {&presence.Policy{AllowedUsers: []string{"bob"}}, "alice", false},
	} {
		t.Run(name, func(t *testing.T) {
			err := presence.Admit(tc.policy, tc.uid)
			if tc.ok != (err == nil) || (err != nil && presence.ErrorCode(err) != presence.EForbidden) {
				t.Fatalf("Admit = %v, want admitted=%v", err, tc.ok)
			}
		})
	}
}

func TestPlanEviction(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	onlyBob := &presence.Policy{AllowedUsers: []string{"bob"}}
	entry := &presence.Participant{RoomID: "r", ID: "alice", SessionCount: 2}
	sessions := []presence.Session{{ID: "tab"}, {ID: "phone"}}
	for name, tc := range map[string]struct {
		st                   presence.EvictionState
		removed, deleteEntry bool
	}{
		"admitted: nothing":                   {presence.EvictionState{Policy: &presence.Policy{AllowedUsers: []string{"alice"}}, Participant: entry, Sessions: sessions}, false, false},
		"policy changed back to open":         {presence.EvictionState{Policy: nil, Participant: entry, Sessions: sessions}, false, false},
		"left out: sessions and entry go":     {presence.EvictionState{Policy: onlyBob, Participant: entry, Sessions: sessions}, true, true},
		"left out, already gone: nothing":     {presence.EvictionState{Policy: onlyBob}, false, false},
		"left out, orphaned sessions go only": {presence.EvictionState{Policy: onlyBob, Sessions: sessions}, true, false},
	} {
		t.Run(name, func(t *testing.T) {
			p := presence.PlanEviction(now, tc.st, "alice")
			if p.Removed != tc.removed || p.DeleteParticipant != tc.deleteEntry || p.WriteParticipant {
				t.Fatalf("plan %+v, want removed=%v deleteEntry=%v and no entry rewrite", p, tc.removed, tc.deleteEntry)
			}
			if p.Removed && !p.DepartedAt.Equal(now) {
				t.Fatalf("departed at %v, want now", p.DepartedAt)
			}
			if p.VisibleChange() != tc.deleteEntry {
				t.Fatalf("visible change %v: an eviction counts once, when the entry goes", p.VisibleChange())
			}
		})
	}
}
