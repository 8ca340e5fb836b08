package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/api/idtoken"
	"google.golang.org/api/option"

	"github.com/roomlease/roomlease/functions/presence"
)

// GoogleKeysURL is where Google publishes the keys that sign its ID
// tokens (a JWKS); google.golang.org/api/idtoken fetches it and caches it
// for as long as its Cache-Control says.
const GoogleKeysURL = "https://www.googleapis.com/oauth2/v3/certs"

// ServiceKeyFetchTimeout bounds one fetch of Google's keys.
const ServiceKeyFetchTimeout = 5 * time.Second

// googleIssuers are the two spellings of the issuer Google's ID tokens
// carry. A Firebase ID token's issuer is https://securetoken.google.com/…,
// never one of these, so the two kinds of token cannot be confused.
var googleIssuers = []string{"accounts.google.com", "https://accounts.google.com"}

// ServiceOptions configure a ServiceVerifier.
type ServiceOptions struct {
	// Accounts are the service accounts' emails allowed to read any
	// room's roster (ROOMLEASE_SERVICE_ACCOUNTS). Compared without case.
	Accounts []string
	// Audience is the aud a token must carry (ROOMLEASE_SERVICE_AUDIENCE):
	// the API's URL, so that a token minted for another service is no use
	// here.
	Audience string
	// KeysURL replaces GoogleKeysURL (tests serve their own key set on
	// 127.0.0.1). Empty: Google's.
	KeysURL string
}

// ServiceVerifier checks Google-signed ID tokens (OIDC) of the backend
// services allowed to read rosters. It is safe for concurrent use.
//
// What it cannot check offline: that the keys are Google's. Tests sign
// with a local key served as the key set; in production the key set is
// fetched from GoogleKeysURL over TLS.
type ServiceVerifier struct {
	validator *idtoken.Validator
	audience  string
	accounts  map[string]bool
}

// NewServiceVerifier returns a ServiceVerifier, or an error for options
// that could never admit anyone (no account, no audience).
func NewServiceVerifier(ctx context.Context, o ServiceOptions) (*ServiceVerifier, error) {
	if len(o.Accounts) == 0 {
		return nil, errors.New("service reads need at least one service account")
	}
	if o.Audience == "" {
		return nil, errors.New("service reads need an audience")
	}
	t := &keyTransport{base: http.DefaultTransport}
	if o.KeysURL != "" {
		u, err := url.Parse(o.KeysURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("keys URL %q is not an absolute URL", o.KeysURL)
		}
		t.redirect = u
	}
	validator, err := idtoken.NewValidator(ctx, option.WithHTTPClient(&http.Client{Transport: t, Timeout: ServiceKeyFetchTimeout}))
	if err != nil {
		return nil, fmt.Errorf("ID-token validator: %w", err)
	}
	v := &ServiceVerifier{validator: validator, audience: o.Audience, accounts: map[string]bool{}}
	for _, a := range o.Accounts {
		v.accounts[strings.ToLower(a)] = true
	}
	return v, nil
}

// IsServiceToken reports whether token claims to be a Google ID token (by
// its issuer, unverified): such a token is this verifier's to check, any
// other the Firebase verifier's. Nothing is trusted on the strength of
// this answer alone.
func (v *ServiceVerifier) IsServiceToken(token string) bool {
	_, payload, ok := peek(token)
	return ok && isGoogleIssuer(payload.Issuer)
}

// VerifyServiceToken returns the email of the service account a valid
// token was issued to.
//
// Returns EUnauthenticated for a token that is malformed, not RS256,
// expired, not signed by Google's keys, for another audience, from another
// issuer, or without a verified email claim; EForbidden for a valid token
// of an account not in the list; EUnavailable when Google's keys could not
// be fetched.
func (v *ServiceVerifier) VerifyServiceToken(ctx context.Context, token string) (string, error) {
	header, _, ok := peek(token)
	// idtoken also accepts ES256 against IAP's keys; a service account's
	// token is RS256, and nothing else is looked at.
	if !ok || header.Alg != "RS256" {
		return "", presence.Errorf(presence.EUnauthenticated, "the service token is not a Google-signed RS256 ID token")
	}
	payload, err := v.validator.Validate(ctx, token, v.audience)
	var fetch *keyFetchError
	switch {
	case errors.As(err, &fetch):
		return "", fmt.Errorf("verifying a service token: %w: %w", presence.Errorf(presence.EUnavailable, "could not verify the service token; retry"), err)
	case err != nil:
		return "", presence.Errorf(presence.EUnauthenticated, "the service token is not valid here (signature, expiry or audience)")
	}
	if !isGoogleIssuer(payload.Issuer) {
		return "", presence.Errorf(presence.EUnauthenticated, "the service token's issuer is not Google")
	}
	email, _ := payload.Claims["email"].(string)
	verified, _ := payload.Claims["email_verified"].(bool)
	if email == "" || !verified {
		return "", presence.Errorf(presence.EUnauthenticated, "the service token carries no verified email; mint it with the email included")
	}
	if !v.accounts[strings.ToLower(email)] {
		return "", presence.Errorf(presence.EForbidden, "this service account may not read rosters")
	}
	return email, nil
}

type jwtHeader struct {
	Alg string `json:"alg"`
}

type jwtPayload struct {
	Issuer string `json:"iss"`
}

// peek decodes a JWT's header and payload without verifying anything.
func peek(token string) (jwtHeader, jwtPayload, bool) {
	var h jwtHeader
	var p jwtPayload
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return h, p, false
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	pb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	if err1 != nil || err2 != nil || json.Unmarshal(hb, &h) != nil || json.Unmarshal(pb, &p) != nil {
		return h, p, false
	}
	return h, p, true
}

func isGoogleIssuer(iss string) bool {
	for _, g := range googleIssuers {
		if iss == g {
			return true
		}
	}
	return false
}

// keyFetchError marks a failure to fetch the key set, so that it becomes
// a 503 (retry) rather than a 401 (your token is bad).
type keyFetchError struct{ err error }

func (e *keyFetchError) Error() string { return "fetching Google's ID-token keys: " + e.err.Error() }
func (e *keyFetchError) Unwrap() error { return e.err }

// keyTransport is the validator's HTTP transport: it sends the key-set
// request to redirect when set (tests), and turns a failed fetch into a
// keyFetchError.
type keyTransport struct {
	base     http.RoundTripper
	redirect *url.URL
}

func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.redirect != nil {
		req = req.Clone(req.Context())
		req.URL = t.redirect
		req.Host = t.redirect.Host
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, &keyFetchError{err}
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, &keyFetchError{fmt.Errorf("status %d", resp.StatusCode)}
	}
	return resp, nil
}
