package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/oidctest"
)

const (
	backendSA = "support-backend@app.iam.gserviceaccount.com"
	audience  = "https://europe-west1-app.cloudfunctions.net/roomlease-presence"
)

func mustServiceVerifier(t *testing.T, keysURL string) *auth.ServiceVerifier {
	t.Helper()
	v, err := auth.NewServiceVerifier(context.Background(), auth.ServiceOptions{
		Accounts: []string{"Support-Backend@app.iam.gserviceaccount.com"}, Audience: audience, KeysURL: keysURL})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestServiceVerifier(t *testing.T) {
	google := oidctest.NewGoogle(t)
	v := mustServiceVerifier(t, google.KeysURL)
	ctx := context.Background()
	no := false

	t.Run("OK", func(t *testing.T) {
		email, err := v.VerifyServiceToken(ctx, google.Token(t, oidctest.Claims{Audience: audience, Email: backendSA}))
		if err != nil || email != backendSA {
			t.Fatalf("listed account: %q, %v", email, err)
		}
	})
	t.Run("BareIssuerSpelling", func(t *testing.T) {
		tok := google.Token(t, oidctest.Claims{Issuer: "accounts.google.com", Audience: audience, Email: backendSA})
		if _, err := v.VerifyServiceToken(ctx, tok); err != nil {
			t.Fatalf("iss accounts.google.com: %v", err)
		}
	})

	refused := []struct {
		name, code string
		token      string
	}{
		{"UnlistedAccount", presence.EForbidden, google.Token(t, oidctest.Claims{Audience: audience, Email: "intruder@app.iam.gserviceaccount.com"})},
		{"WrongAudience", presence.EUnauthenticated, google.Token(t, oidctest.Claims{Audience: "https://elsewhere.example", Email: backendSA})},
		{"Expired", presence.EUnauthenticated, google.Token(t, oidctest.Claims{Audience: audience, Email: backendSA,
			IssuedAt: time.Now().Add(-2 * time.Hour), Expires: time.Now().Add(-time.Hour)})},
		{"OtherKey", presence.EUnauthenticated, google.ForeignToken(t, oidctest.Claims{Audience: audience, Email: backendSA})},
		{"OtherIssuer", presence.EUnauthenticated, google.Token(t, oidctest.Claims{Issuer: "https://securetoken.google.com/app", Audience: audience, Email: backendSA})},
		{"EmailNotVerified", presence.EUnauthenticated, google.Token(t, oidctest.Claims{Audience: audience, Email: backendSA, EmailVerified: &no})},
		{"NoEmail", presence.EUnauthenticated, google.Token(t, oidctest.Claims{Audience: audience})},
		{"NotAJWT", presence.EUnauthenticated, "not.a.token"},
		{"UnsignedLikeTheAuthEmulator", presence.EUnauthenticated, unsigned(t, google, audience)},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			email, err := v.VerifyServiceToken(ctx, tc.token)
			if got := presence.ErrorCode(err); got != tc.code {
				t.Fatalf("got %q (%v, email %q), want %s", got, err, email, tc.code)
			}
		})
	}
}

// unsigned is a valid token with its signature removed and alg "none",
// the shape of the Auth emulator's tokens.
func unsigned(t *testing.T, g *oidctest.Google, aud string) string {
	tok := g.Token(t, oidctest.Claims{Audience: aud, Email: backendSA})
	// eyJhbGciOiJub25lIn0 is {"alg":"none"}.
	parts := strings.Split(tok, ".")
	return "eyJhbGciOiJub25lIn0." + parts[1] + "."
}

func TestServiceVerifier_IsServiceToken(t *testing.T) {
	google := oidctest.NewGoogle(t)
	v := mustServiceVerifier(t, google.KeysURL)
	if !v.IsServiceToken(google.Token(t, oidctest.Claims{Audience: audience, Email: backendSA})) {
		t.Error("a Google ID token is not taken for a service token")
	}
	firebaseLike := google.Token(t, oidctest.Claims{Issuer: "https://securetoken.google.com/demo-roomlease", Audience: "demo-roomlease"})
	if v.IsServiceToken(firebaseLike) || v.IsServiceToken("garbage") {
		t.Error("a Firebase ID token, or garbage, is taken for a service token")
	}
}

// Google's keys unreachable: the caller is told to retry (503), not that
// its token is bad.
func TestServiceVerifier_KeysUnavailable(t *testing.T) {
	google := oidctest.NewGoogle(t)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	v := mustServiceVerifier(t, down.URL)
	_, err := v.VerifyServiceToken(context.Background(), google.Token(t, oidctest.Claims{Audience: audience, Email: backendSA}))
	if presence.ErrorCode(err) != presence.EUnavailable {
		t.Fatalf("keys unavailable: %v, want %s", err, presence.EUnavailable)
	}
}

func TestNewServiceVerifier_RefusesUselessOptions(t *testing.T) {
	for name, o := range map[string]auth.ServiceOptions{
		"NoAccount":  {Audience: audience},
		"NoAudience": {Accounts: []string{backendSA}},
		"BadKeysURL": {Accounts: []string{backendSA}, Audience: audience, KeysURL: "certs"},
	} {
		if _, err := auth.NewServiceVerifier(context.Background(), o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
