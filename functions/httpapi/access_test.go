package httpapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	firebase "firebase.google.com/go/v4"
	fbauth "firebase.google.com/go/v4/auth"
	"google.golang.org/api/option"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
)

func adminAuth(t *testing.T) *fbauth.Client {
	t.Helper()
	ctx := context.Background()
	app, err := firebase.NewApp(ctx, &firebase.Config{ProjectID: emulatortest.AuthProjectID()}, option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	c, err := app.Auth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// joinAt joins room as user and returns the session body for later calls.
func (f *apiFixture) joinAt(t *testing.T, room string, u emulatortest.User) string {
	t.Helper()
	j := f.do(t, "POST", "/v1/rooms/"+room+"/join", u.IDToken, `{"sessionId":"tab-1"}`)
	if j.status != 200 {
		t.Fatalf("join: %d %s", j.status, j.raw)
	}
	return `{"sessionId":"tab-1","generation":` + jsonInt(int64(j.body["generation"].(float64))) + `}`
}

// The whole path answers a revoked or disabled user's token with the
// documented 401 once the verifier's check period has passed. (Against the
// Auth emulator the Admin SDK also looks the user up on every request and
// refuses a disabled user or a revoked token at once; the check itself is
// tested in functions/auth.) Ada's token is dated a second back, so that it
// is issued before the revocation's second however fast the test runs: a
// token of that second itself is accepted, by the SDK as by roomlease.
func TestAPI_RevokedAndDisabledUsersGet401(t *testing.T) {
	clock := testclock.New(time.Now())
	f := mustOpenAPIWith(t, auth.Options{Now: clock.Now})
	admin := adminAuth(t)
	ada, bob := emulatortest.SignUp(t), emulatortest.SignUp(t)
	ada.IDToken = emulatortest.ResignToken(t, ada.IDToken, func(c map[string]any) {
		c["iat"] = c["iat"].(float64) - 1
	})
	adaSess, bobSess := f.joinAt(t, "gate", ada), f.joinAt(t, "gate", bob)

	if err := admin.RevokeRefreshTokens(context.Background(), ada.UID); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.UpdateUser(context.Background(), bob.UID, (&fbauth.UserToUpdate{}).Disabled(true)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(auth.DefaultCheckEvery)
	for name, c := range map[string]struct{ token, body string }{"revoked": {ada.IDToken, adaSess}, "disabled": {bob.IDToken, bobSess}} {
		hb := f.do(t, "POST", "/v1/rooms/gate/heartbeat", c.token, c.body)
		if hb.status != 401 || errCode(hb) != "unauthenticated" || hb.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s user's heartbeat: %d %s", name, hb.status, hb.raw)
		}
	}
}

// A user removed from a room's policy gets 403 on heartbeat, typing and
// receipts (this instance had not cached the room's policy yet).
func TestAPI_RemovedFromPolicyGets403(t *testing.T) {
	f := MustOpenAPI(t)
	ada, bob := emulatortest.SignUp(t), emulatortest.SignUp(t)
	adaSess, bobSess := f.joinAt(t, "club", ada), f.joinAt(t, "club", bob)
	_, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("club").Set(context.Background(),
		map[string]any{"allowedUsers": []string{bob.UID}, "updatedAt": firestore.ServerTimestamp})
	if err != nil {
		t.Fatal(err)
	}
	for path, body := range map[string]string{
		"heartbeat": adaSess,
		"typing":    adaSess[:len(adaSess)-1] + `,"typing":true}`,
		"receipts":  `{"lastReadSeq":1}`,
	} {
		if r := f.do(t, "POST", "/v1/rooms/club/"+path, ada.IDToken, body); r.status != 403 || errCode(r) != "permission_denied" {
			t.Errorf("%s of a user the policy left out: %d %s", path, r.status, r.raw)
		}
	}
	if hb := f.do(t, "POST", "/v1/rooms/club/heartbeat", bob.IDToken, bobSess); hb.status != 200 {
		t.Errorf("heartbeat of a listed user: %d %s", hb.status, hb.raw)
	}
}

// A new email account's first ID token works at once. Firebase sets the
// account's validSince to that token's own second, and a check that refused
// tokens of that second answered the sign-up's token 401 "revoked" for its
// whole hour.
func TestAPI_NewEmailAccountsFirstTokenJoins(t *testing.T) {
	clock := testclock.New(time.Now())
	f := mustOpenAPIWith(t, auth.Options{Now: clock.Now})
	u := emulatortest.SignUpWithEmail(t, fmt.Sprintf("grace-%d@example.com", time.Now().UnixNano()), "a-secret")
	if j := f.do(t, "POST", "/v1/rooms/welcome/join", u.IDToken, `{"sessionId":"tab-1"}`); j.status != 200 {
		t.Fatalf("join with the sign-up's own token: %d %s", j.status, j.raw)
	}
	changed := emulatortest.ChangePassword(t, u.IDToken, "another-secret")
	clock.Advance(auth.DefaultCheckEvery) // so that the check sees the change
	if r := f.do(t, "GET", "/v1/rooms/welcome", changed.IDToken, ""); r.status != 200 {
		t.Fatalf("read with the token a password change returned: %d %s", r.status, r.raw)
	}
}
