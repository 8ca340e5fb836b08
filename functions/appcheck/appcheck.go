// Package appcheck verifies Firebase App Check tokens with the Firebase
// Admin SDK: RS256 signatures against App Check's public key set (JWKS),
// the issuer, the audience (this project), the subject (the app) and the
// expiry. Verification is local once the key set is fetched; the key set
// is public, so no credentials and no IAM grant are needed.
//
// What App Check proves, and what not: a valid token says the request
// came from a registered app on a device that passed attestation
// (reCAPTCHA Enterprise, Play Integrity, App Attest) within the token's
// lifetime. It does not identify the user (that is the ID token's job)
// and a token can be replayed until it expires.
package appcheck

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	firebase "firebase.google.com/go/v4"
	fbappcheck "firebase.google.com/go/v4/appcheck"
	"github.com/golang-jwt/jwt/v4"

	"github.com/roomlease/roomlease/functions/presence"
)

// RetryKeysAfter is how long a failed fetch of the key set is remembered:
// requests in that time are answered "could not verify" at once instead of
// each waiting for a fetch of their own.
const RetryKeysAfter = 5 * time.Second

// KeyFetchTimeout bounds the fetch of the key set, so that an unreachable
// key server costs the requests that wait for it at most this long, once
// per RetryKeysAfter, rather than their whole deadline.
const KeyFetchTimeout = 5 * time.Second

// Verifier checks App Check tokens for one Firebase project. It is safe for
// concurrent use.
type Verifier struct {
	projectID    string
	now          func() time.Time
	fetchTimeout time.Duration // KeyFetchTimeout; shorter in tests

	// The Admin SDK's client fetches the key set when it is built (and
	// then every 6 hours in the background). It is built on first use,
	// not at start-up: a failed fetch at wiring time would break the
	// instance for good, and a mode that never sees a token (off, or
	// monitor before clients send any) never fetches.
	mu        sync.Mutex
	client    *fbappcheck.Client
	failUntil time.Time
	lastErr   error
}

// NewVerifier returns a Verifier for projectID; now is its clock.
func NewVerifier(projectID string, now func() time.Time) *Verifier {
	return &Verifier{projectID: projectID, now: now, fetchTimeout: KeyFetchTimeout}
}

// VerifyAppCheckToken returns nil when token is a valid App Check token for
// this project.
//
// Returns EUnauthenticated for a token that is malformed, expired, signed
// by another key, or issued for another project; EUnavailable when the key
// set could not be fetched, so that the token could not be checked.
func (v *Verifier) VerifyAppCheckToken(ctx context.Context, token string) (err error) {
	client, err := v.clientFor(ctx)
	if err != nil {
		return err
	}
	// The SDK reads claims with unchecked type assertions after the
	// signature check: only a token signed by App Check's own keys could
	// make them panic, but a panic must never become a 500.
	defer func() {
		if p := recover(); p != nil {
			err = presence.Errorf(presence.EUnauthenticated, "the App Check token is not valid")
		}
	}()
	if _, err := client.VerifyToken(token); err != nil {
		return invalid(err)
	}
	return nil
}

func (v *Verifier) clientFor(ctx context.Context) (*fbappcheck.Client, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.client != nil {
		return v.client, nil
	}
	if v.now().Before(v.failUntil) {
		return nil, unavailable(v.lastErr)
	}
	// One fetch at a time: concurrent first requests wait for it rather
	// than each fetching the key set.
	ctx, cancel := context.WithTimeout(ctx, v.fetchTimeout)
	defer cancel()
	app, err := firebase.NewApp(ctx, &firebase.Config{ProjectID: v.projectID})
	if err == nil {
		v.client, err = app.AppCheck(ctx)
	}
	if err != nil {
		v.failUntil, v.lastErr = v.now().Add(RetryKeysAfter), err
		return nil, unavailable(err)
	}
	return v.client, nil
}

func unavailable(cause error) error {
	return fmt.Errorf("fetching the App Check key set: %w: %w",
		presence.Errorf(presence.EUnavailable, "could not verify the App Check token; retry"), cause)
}

// invalid turns the SDK's reasons into a message a client developer can
// act on. It never repeats the token.
func invalid(err error) error {
	var ve *jwt.ValidationError
	switch {
	case errors.As(err, &ve) && ve.Errors&jwt.ValidationErrorExpired != 0:
		return presence.Errorf(presence.EUnauthenticated, "the App Check token has expired; get a new one")
	case errors.Is(err, fbappcheck.ErrTokenAudience):
		return presence.Errorf(presence.EUnauthenticated, "the App Check token is for another project")
	default:
		return presence.Errorf(presence.EUnauthenticated, "the App Check token is not valid")
	}
}
