package emulatortest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// AuthProjectID is the project the Auth emulator issues tokens for: the one
// scripts/test starts it with.
func AuthProjectID() string {
	if p := os.Getenv("ROOMLEASE_PROJECT_ID"); p != "" {
		return p
	}
	return "demo-roomlease"
}

// User is an account in the Auth emulator with a fresh ID token.
type User struct {
	UID     string
	IDToken string
}

// SignUp creates an anonymous user in the Auth emulator, as a web client's
// signInAnonymously would, and returns its uid and ID token.
func SignUp(tb testing.TB) User {
	tb.Helper()
	return identityToolkit(tb, "accounts:signUp", map[string]any{"returnSecureToken": true})
}

// SignUpWithEmail creates an email and password account in the Auth
// emulator, as createUserWithEmailAndPassword would, and returns the uid and
// the ID token the sign-up itself returned. Unlike an anonymous sign-up, it
// sets the account's validSince to the second of that token.
func SignUpWithEmail(tb testing.TB, email, password string) User {
	tb.Helper()
	return identityToolkit(tb, "accounts:signUp", map[string]any{"email": email, "password": password, "returnSecureToken": true})
}

// ChangePassword changes the password of the account whose ID token is
// idToken, as updatePassword would, and returns the new ID token the change
// returned. Firebase moves validSince to that token's second, so tokens of
// earlier seconds stop working.
func ChangePassword(tb testing.TB, idToken, password string) User {
	tb.Helper()
	return identityToolkit(tb, "accounts:update", map[string]any{"idToken": idToken, "password": password, "returnSecureToken": true})
}

// SignUpWithProfile creates an email and password account with a display
// name and photo URL, as createUserWithEmailAndPassword and updateProfile
// would, then signs in again, and returns a token that carries them as its
// name and picture claims.
func SignUpWithProfile(tb testing.TB, email, password, displayName, photoURL string) User {
	tb.Helper()
	u := SignUpWithEmail(tb, email, password)
	call(tb, "accounts:update", map[string]any{"idToken": u.IDToken, "displayName": displayName, "photoUrl": photoURL}, nil)
	return identityToolkit(tb, "accounts:signInWithPassword", map[string]any{"email": email, "password": password, "returnSecureToken": true})
}

// identityToolkit calls an Identity Toolkit method of the Auth emulator that
// answers with an account and a fresh ID token.
func identityToolkit(tb testing.TB, method string, body map[string]any) User {
	tb.Helper()
	var out struct {
		LocalID string `json:"localId"`
		IDToken string `json:"idToken"`
	}
	call(tb, method, body, &out)
	if out.IDToken == "" {
		tb.Fatalf("%s in the Auth emulator: no ID token in the answer", method)
	}
	return User{UID: out.LocalID, IDToken: out.IDToken}
}

// call calls an Identity Toolkit method of the Auth emulator and decodes
// its answer into out (when not nil).
func call(tb testing.TB, method string, body map[string]any, out any) {
	tb.Helper()
	url := fmt.Sprintf("http://%s/identitytoolkit.googleapis.com/v1/%s?key=fake-api-key", AuthHost(tb), method)
	raw, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("%s in the Auth emulator: %v", method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("%s in the Auth emulator: status %s", method, resp.Status)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			tb.Fatalf("%s in the Auth emulator: %v", method, err)
		}
	}
}

// IssuedAt returns the iat claim of an ID token (the second it was issued),
// read without verifying it.
func IssuedAt(tb testing.TB, token string) int64 {
	tb.Helper()
	var iat int64
	ResignToken(tb, token, func(c map[string]any) {
		f, ok := c["iat"].(float64)
		if !ok {
			tb.Fatalf("token without a numeric iat: %v", c)
		}
		iat = int64(f)
	})
	return iat
}

// ResignToken returns token with its claims edited by edit. The emulator's
// tokens are unsigned (alg "none"), so the result is exactly what a client
// could forge: a way to test that verification checks audience, issuer and
// expiry rather than trusting the token's shape.
func ResignToken(tb testing.TB, token string, edit func(claims map[string]any)) string {
	tb.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		tb.Fatalf("not a JWT: %q", token)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		tb.Fatal(err)
	}
	claims := map[string]any{}
	if err := json.Unmarshal(raw, &claims); err != nil {
		tb.Fatal(err)
	}
	edit(claims)
	raw, err = json.Marshal(claims)
	if err != nil {
		tb.Fatal(err)
	}
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "."
}
