// Package appchecktest stands in for Firebase App Check in tests: a local
// JWKS endpoint, which the Admin SDK's appcheck package is pointed at, and
// RS256 tokens signed with a key generated per test, carrying the claims
// the SDK checks (issuer, audience, subject, expiry, issued-at).
package appchecktest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	fbappcheck "firebase.google.com/go/v4/appcheck"
	"github.com/golang-jwt/jwt/v4"
)

// AppID is the subject of the tokens: a Firebase web app id.
const AppID = "1:123456789:web:0123456789abcdef"

// Issuer signs App Check tokens and serves their public key.
type Issuer struct {
	key     *rsa.PrivateKey
	kid     string
	srv     *httptest.Server
	fetches atomic.Int64
	down    atomic.Bool
	hang    atomic.Bool
}

// Start serves a key set and points the Admin SDK at it (appcheck.JWKSUrl)
// until tb ends. Tests that use it must not run in parallel with other
// tests that set JWKSUrl.
func Start(tb testing.TB) *Issuer {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	iss := &Issuer{key: key, kid: "test-key-1"}
	iss.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		iss.fetches.Add(1)
		if iss.hang.Load() {
			// An unreachable key server: no answer until the caller gives up.
			<-r.Context().Done()
			return
		}
		if iss.down.Load() {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "use": "sig", "alg": "RS256", "kid": iss.kid,
			"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
		}}})
	}))
	previous := fbappcheck.JWKSUrl
	fbappcheck.JWKSUrl = iss.srv.URL
	tb.Cleanup(func() {
		fbappcheck.JWKSUrl = previous
		iss.srv.Close()
	})
	return iss
}

// Fetches is how many times the key set was requested.
func (i *Issuer) Fetches() int64 { return i.fetches.Load() }

// SetDown makes the key set endpoint answer 503 (true) or serve again.
func (i *Issuer) SetDown(down bool) { i.down.Store(down) }

// SetHang makes the key set endpoint answer nothing until the request is
// given up (true), or serve again.
func (i *Issuer) SetHang(hang bool) { i.hang.Store(hang) }

// Token returns a token for projectID that expires at exp (real time: the
// SDK checks expiry against the system clock).
func (i *Issuer) Token(tb testing.TB, projectID string, exp time.Time) string {
	tb.Helper()
	return i.sign(tb, i.key, projectID, exp)
}

// Valid returns a token for projectID valid for the next hour.
func (i *Issuer) Valid(tb testing.TB, projectID string) string {
	return i.Token(tb, projectID, time.Now().Add(time.Hour))
}

// Forged returns a token with every claim right but signed by another key
// under this issuer's key id.
func (i *Issuer) Forged(tb testing.TB, projectID string) string {
	tb.Helper()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	return i.sign(tb, other, projectID, time.Now().Add(time.Hour))
}

func (i *Issuer) sign(tb testing.TB, key *rsa.PrivateKey, projectID string, exp time.Time) string {
	tb.Helper()
	iat := time.Now().Add(-time.Minute)
	if exp.Before(iat) {
		iat = exp.Add(-time.Hour)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"iss": "https://firebaseappcheck.googleapis.com/123456789",
		"sub": AppID,
		"aud": []string{"projects/123456789", "projects/" + projectID},
		"exp": exp.Unix(),
		"iat": iat.Unix(),
	})
	tok.Header["kid"] = i.kid
	s, err := tok.SignedString(key)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
