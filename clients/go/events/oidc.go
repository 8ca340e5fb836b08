package events

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GoogleKeysURL is where Google publishes the keys its ID tokens are
// signed with (JWKS), the tokens Pub/Sub puts on push requests.
const GoogleKeysURL = "https://www.googleapis.com/oauth2/v3/certs"

// ErrUnauthenticated is returned for a push request whose token is
// missing or not valid for this endpoint; ErrForbidden for a valid token
// of another account than the push subscription's.
var (
	ErrUnauthenticated = errors.New("events: the push request's token is not valid here")
	ErrForbidden       = errors.New("events: the push request comes from another service account")
)

// Bounds of the key cache.
const (
	// refetchAfter spaces fetches for a key id the cached set lacks, so
	// that tokens with made-up key ids cannot make every request a fetch.
	refetchAfter = time.Minute
	// defaultKeysMaxAge is how long a key set without a usable
	// Cache-Control is kept.
	defaultKeysMaxAge = time.Hour
	// clockSkew is how far the token's times may be off ours.
	clockSkew = 2 * time.Minute
)

// PushVerifier checks the OIDC token Pub/Sub puts on a push request
// (Authorization: Bearer …) when the push subscription is configured with
// a service account and an audience. It is safe for concurrent use.
type PushVerifier struct {
	// Audience is the push subscription's oidc_token audience (by default
	// Pub/Sub uses the push endpoint's URL). Required.
	Audience string
	// Email is the push subscription's service account. Required.
	Email string
	// KeysURL replaces GoogleKeysURL (tests); HTTPClient fetches it
	// (default: a client with a 10 s timeout); Now is the clock (default
	// time.Now).
	KeysURL    string
	HTTPClient *http.Client
	Now        func() time.Time

	mu        sync.Mutex
	keys      map[string]*rsa.PublicKey
	keysUntil time.Time
	fetchedAt time.Time
}

type tokenHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

type tokenClaims struct {
	Iss           string `json:"iss"`
	Aud           string `json:"aud"`
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
	Exp           int64  `json:"exp"`
	Iat           int64  `json:"iat"`
}

// Verify checks r's bearer token. Returns an error wrapping
// ErrUnauthenticated for a missing, malformed, expired or foreign token
// (signature, issuer, audience), ErrForbidden for a valid token of another
// email, and a plain error when Google's keys could not be fetched (retry).
func (v *PushVerifier) Verify(ctx context.Context, r *http.Request) error {
	if v.Audience == "" || v.Email == "" {
		return errors.New("events: PushVerifier needs Audience and Email")
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
	}
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return fmt.Errorf("%w: not a JWT", ErrUnauthenticated)
	}
	var h tokenHeader
	var c tokenClaims
	if err := decodeSegment(parts[0], &h); err != nil {
		return fmt.Errorf("%w: header: %v", ErrUnauthenticated, err)
	}
	if err := decodeSegment(parts[1], &c); err != nil {
		return fmt.Errorf("%w: claims: %v", ErrUnauthenticated, err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || h.Alg != "RS256" {
		return fmt.Errorf("%w: not an RS256 signature", ErrUnauthenticated)
	}
	// The signature first: nothing the claims say counts before it holds.
	key, err := v.key(ctx, h.Kid)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) != nil {
		return fmt.Errorf("%w: bad signature", ErrUnauthenticated)
	}
	now := v.now()
	switch {
	case c.Iss != "accounts.google.com" && c.Iss != "https://accounts.google.com":
		return fmt.Errorf("%w: issuer %q is not Google", ErrUnauthenticated, c.Iss)
	case c.Aud != v.Audience:
		return fmt.Errorf("%w: audience %q, want %q", ErrUnauthenticated, c.Aud, v.Audience)
	case now.After(time.Unix(c.Exp, 0).Add(clockSkew)):
		return fmt.Errorf("%w: expired", ErrUnauthenticated)
	case time.Unix(c.Iat, 0).After(now.Add(clockSkew)):
		return fmt.Errorf("%w: issued in the future", ErrUnauthenticated)
	case !c.EmailVerified || !strings.EqualFold(c.Email, v.Email):
		return fmt.Errorf("%w: %q", ErrForbidden, c.Email)
	}
	return nil
}

func decodeSegment(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (v *PushVerifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

// key returns the public key kid names, from the cached key set while it
// is fresh, else from a new fetch. An unknown kid refetches at most once
// per refetchAfter (Google adds keys before it signs with them).
func (v *PushVerifier) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	if k, ok := v.keys[kid]; ok && now.Before(v.keysUntil) {
		return k, nil
	}
	if v.keys != nil && now.Before(v.keysUntil) && now.Sub(v.fetchedAt) < refetchAfter {
		return nil, fmt.Errorf("%w: unknown key id %q", ErrUnauthenticated, kid)
	}
	keys, maxAge, err := v.fetch(ctx)
	if err != nil {
		return nil, err
	}
	v.keys, v.fetchedAt, v.keysUntil = keys, now, now.Add(maxAge)
	if k, ok := keys[kid]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("%w: unknown key id %q", ErrUnauthenticated, kid)
}

func (v *PushVerifier) fetch(ctx context.Context) (map[string]*rsa.PublicKey, time.Duration, error) {
	url := v.KeysURL
	if url == "" {
		url = GoogleKeysURL
	}
	client := v.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("events: fetching Google's keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("events: fetching Google's keys: status %d", resp.StatusCode)
	}
	var set struct {
		Keys []struct {
			Kty, Kid, N, E string
		} `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		return nil, 0, fmt.Errorf("events: Google's keys: %w", err)
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if k.Kty != "RSA" || err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
			continue
		}
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return keys, maxAge(resp.Header.Get("Cache-Control")), nil
}

// maxAge reads Cache-Control's max-age, or defaultKeysMaxAge.
func maxAge(cc string) time.Duration {
	for _, d := range strings.Split(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(d), "max-age="); ok {
			if s, err := strconv.Atoi(v); err == nil && s > 0 {
				return time.Duration(s) * time.Second
			}
		}
	}
	return defaultKeysMaxAge
}
