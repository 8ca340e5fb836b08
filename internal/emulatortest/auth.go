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
	url := fmt.Sprintf("http://%s/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake-api-key", AuthHost(tb))
	resp, err := http.Post(url, "application/json", bytes.NewReader([]byte(`{"returnSecureToken":true}`)))
	if err != nil {
		tb.Fatalf("signing up in the Auth emulator: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		LocalID string `json:"localId"`
		IDToken string `json:"idToken"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.IDToken == "" {
		tb.Fatalf("signing up in the Auth emulator: status %s, err %v", resp.Status, err)
	}
	return User{UID: out.LocalID, IDToken: out.IDToken}
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
