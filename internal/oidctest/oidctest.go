// Package oidctest stands in for Google's ID-token issuer in tests: a
// locally generated RSA key, its public half served as a JWKS on a
// 127.0.0.1 httptest server (the URL a verifier is pointed at instead of
// Google's), and tokens signed with it carrying the claims Google puts in
// a service account's ID token. Nothing here reaches Google: what it
// cannot show is that Google's real keys verify (docs/events.md).
package oidctest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Issuer is what Google's ID tokens carry as iss.
const Issuer = "https://accounts.google.com"

// Google is a fake Google: a key, its key set's URL, and a token minter.
type Google struct {
	KeysURL string
	key     *rsa.PrivateKey
	kid     string
}

// NewGoogle generates a key and serves its JWKS until tb ends.
func NewGoogle(tb testing.TB) *Google {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	g := &Google{key: key, kid: "test-key-1"}
	jwks, err := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": g.kid,
		"n": b64(key.PublicKey.N.Bytes()), "e": b64(big.NewInt(int64(key.PublicKey.E)).Bytes()),
	}}})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(jwks)
	}))
	tb.Cleanup(srv.Close)
	g.KeysURL = srv.URL + "/oauth2/v3/certs"
	return g
}

// Claims are a token's claims; Token fills in what is left zero.
type Claims struct {
	Issuer        string // default Issuer
	Audience      string
	Email         string
	EmailVerified *bool // default true
	IssuedAt      time.Time
	Expires       time.Time // default IssuedAt + 1h
}

// Token returns a token signed with g's key (RS256, g's kid).
func (g *Google) Token(tb testing.TB, c Claims) string {
	tb.Helper()
	return g.sign(tb, g.key, c)
}

// ForeignToken returns a token with g's kid signed by another key: what a
// forger who knows the key id but not the key can make.
func (g *Google) ForeignToken(tb testing.TB, c Claims) string {
	tb.Helper()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	return g.sign(tb, other, c)
}

func (g *Google) sign(tb testing.TB, key *rsa.PrivateKey, c Claims) string {
	if c.Issuer == "" {
		c.Issuer = Issuer
	}
	if c.IssuedAt.IsZero() {
		c.IssuedAt = time.Now()
	}
	if c.Expires.IsZero() {
		c.Expires = c.IssuedAt.Add(time.Hour)
	}
	verified := true
	if c.EmailVerified != nil {
		verified = *c.EmailVerified
	}
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": g.kid})
	payload, _ := json.Marshal(map[string]any{
		"iss": c.Issuer, "aud": c.Audience, "azp": "1234567890", "sub": "1234567890",
		"email": c.Email, "email_verified": verified,
		"iat": c.IssuedAt.Unix(), "exp": c.Expires.Unix(),
	})
	signed := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		tb.Fatal(err)
	}
	return signed + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
