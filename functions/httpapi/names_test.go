package httpapi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// Names from the identity (a security property): when the ID token carries
// a name, the roster shows it whatever the client sends, so nobody can show
// up as "Support" or under another user's name; the token's picture comes
// with it. A client's name is shown only for a token without one (an
// anonymous user), or when the operator allows client names.
func TestAPI_NamesComeFromTheIdentity(t *testing.T) {
	email := fmt.Sprintf("ada-%d@example.com", time.Now().UnixNano())
	ada := emulatortest.SignUpWithProfile(t, email, "correct horse battery", "Ada Lovelace", "https://example.com/ada.png")
	anon := emulatortest.SignUp(t)

	tests := []struct {
		name        string
		allow       bool
		user        emulatortest.User
		sent        string
		wantName    string
		wantPicture string
	}{
		{"a named token's name wins over the client's", false, ada, `,"displayName":"Support"`, "Ada Lovelace", "https://example.com/ada.png"},
		{"a named token needs no name from the client", false, ada, ``, "Ada Lovelace", "https://example.com/ada.png"},
		{"an anonymous user's own name is shown", false, anon, `,"displayName":"Grace"`, "Grace", ""},
		{"with client names allowed, the client's name wins", true, ada, `,"displayName":"Support"`, "Support", "https://example.com/ada.png"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) { o.AllowClientNames = tc.allow })
			if r := f.do(t, "POST", "/v1/rooms/names/join", tc.user.IDToken, `{"sessionId":"tab"`+tc.sent+`}`); r.status != 200 {
				t.Fatalf("join: %d %s", r.status, r.raw)
			}
			r := f.do(t, "GET", "/v1/rooms/names", tc.user.IDToken, "")
			ps, _ := r.body["participants"].([]any)
			if r.status != 200 || len(ps) != 1 {
				t.Fatalf("room: %d %s", r.status, r.raw)
			}
			p := ps[0].(map[string]any)
			if p["displayName"] != tc.wantName {
				t.Errorf("displayName %v, want %q", p["displayName"], tc.wantName)
			}
			if got, _ := p["photoURL"].(string); got != tc.wantPicture {
				t.Errorf("photoURL %q, want %q", got, tc.wantPicture)
			}
			entry, err := f.client.Doc("rooms/names/participants/" + tc.user.UID).Get(t.Context())
			if err != nil || entry.Data()["displayName"] != tc.wantName {
				t.Errorf("stored entry %v, %v; want displayName %q for listeners too", entry.Data(), err, tc.wantName)
			}
		})
	}
}
