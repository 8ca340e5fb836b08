package presence_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/presence"
)

func TestShownName(t *testing.T) {
	ada := presence.Identity{UID: "u1", Name: "Ada Lovelace"}
	anon := presence.Identity{UID: "u2"}
	long := presence.Identity{UID: "u3", Name: strings.Repeat("é", presence.MaxDisplayNameLength+10)}
	ctrl := presence.Identity{UID: "u4", Name: "Ada\x00\nLovelace"}
	tests := []struct {
		name     string
		who      presence.Identity
		sent     string
		has      bool
		allow    bool
		want     string
		wantSets bool
	}{
		{"a token's name wins over the client's", ada, "Support", true, false, "Ada Lovelace", true},
		{"a token's name is set without a client name", ada, "", false, false, "Ada Lovelace", true},
		{"an anonymous user's own name", anon, "Grace", true, false, "Grace", true},
		{"an anonymous user who sends none keeps the stored name", anon, "", false, false, "", false},
		{"client names allowed: the client's wins", ada, "Support", true, true, "Support", true},
		{"client names allowed, none sent: the token's", ada, "", false, true, "Ada Lovelace", true},
		{"a token's name that is too long is cut, not refused", long, "", false, false, strings.Repeat("é", presence.MaxDisplayNameLength), true},
		{"a token's control characters are dropped", ctrl, "", false, false, "AdaLovelace", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sets := presence.ShownName(tc.who, tc.sent, tc.has, tc.allow)
			if got != tc.want || sets != tc.wantSets {
				t.Fatalf("got %q (sets %v), want %q (sets %v)", got, sets, tc.want, tc.wantSets)
			}
			if err := presence.ValidateDisplayName(got); err != nil {
				t.Fatalf("the shown name %q does not validate: %v", got, err)
			}
		})
	}
}

func TestShownPhoto(t *testing.T) {
	if got := presence.ShownPhoto(presence.Identity{Picture: "https://example.com/a.png"}); got != "https://example.com/a.png" {
		t.Fatalf("got %q", got)
	}
	if got := presence.ShownPhoto(presence.Identity{Picture: "https://example.com/" + strings.Repeat("a", presence.MaxPhotoURLLength)}); got != "" {
		t.Fatalf("an overlong picture URL was kept: %d bytes", len(got))
	}
}
