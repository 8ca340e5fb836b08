// Package auth verifies Firebase ID tokens: the caller's identity comes from
// the token's uid, never from a request body.
//
// Verification has two halves:
//
//  1. The token itself (signature, audience, issuer, expiry), checked by the
//     Firebase Admin SDK's VerifyIDToken on every request. In production
//     that is local work against Google's public keys, which the SDK caches.
//  2. The user behind it: a disabled user, a deleted one, or a token issued
//     before the user's tokens were revoked is refused. That needs the user
//     record, an RPC to Firebase Auth, so it is looked up at most once per
//     CheckEvery per uid and instance (see users.go): a disabled user or a
//     revoked token is refused within CheckEvery, at a cost that grows with
//     the number of users, not with their request rate. The number of users
//     is the client's to choose (anonymous uids are free), so the lookups
//     of an instance have a budget of their own (budget.go), and a request
//     whose user is new when it is spent is refused with ERateLimited.
//
// With FIREBASE_AUTH_EMULATOR_HOST set, the SDK accepts the Auth emulator's
// unsigned tokens and, in half 1, itself looks the user up on every request
// (and refuses disabled users and revoked tokens at once); half 2 runs as in
// production.
package auth

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	firebase "firebase.google.com/go/v4"
	fbauth "firebase.google.com/go/v4/auth"
	"google.golang.org/api/option"

	"github.com/roomlease/roomlease/functions/presence"
)

// Options configure a Verifier. The zero value is usable.
type Options struct {
	// CheckEvery is how long a user's record, once looked up, is trusted:
	// the most a disabled user or a revoked token keeps working on an
	// instance that has just looked. Default DefaultCheckEvery; at most
	// MaxCheckEvery.
	CheckEvery time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failed user lookups; nil means slog.Default().
	Logger *slog.Logger
	// LookupRate and LookupBurst are the instance's budget of user lookups
	// (budget.go): LookupRate a second sustained, LookupBurst at once, half
	// of it kept for refreshes of users already known. Zero takes
	// DefaultLookupRate and DefaultLookupBurst.
	LookupRate  float64
	LookupBurst int
}

// DefaultCheckEvery and MaxCheckEvery bound the revocation check's period.
const (
	DefaultCheckEvery = 30 * time.Second
	MaxCheckEvery     = time.Minute
)

// Verifier checks ID tokens for one Firebase project.
type Verifier struct {
	decode func(ctx context.Context, idToken string) (*fbauth.Token, error)
	users  *userCheck
}

// NewVerifier returns a Verifier for projectID.
func NewVerifier(ctx context.Context, projectID string, o Options) (*Verifier, error) {
	var opts []option.ClientOption
	if os.Getenv("FIREBASE_AUTH_EMULATOR_HOST") != "" {
		// The emulator needs no credentials; without this, the SDK would
		// look for Application Default Credentials that a laptop may lack.
		opts = append(opts, option.WithoutAuthentication())
	}
	app, err := firebase.NewApp(ctx, &firebase.Config{ProjectID: projectID}, opts...)
	if err != nil {
		return nil, fmt.Errorf("firebase app: %w", err)
	}
	client, err := app.Auth(ctx)
	if err != nil {
		return nil, fmt.Errorf("firebase auth client: %w", err)
	}
	return newVerifier(client.VerifyIDToken, client.GetUser, o)
}

func newVerifier(decode func(context.Context, string) (*fbauth.Token, error), lookup lookupFunc, o Options) (*Verifier, error) {
	if o.CheckEvery == 0 {
		o.CheckEvery = DefaultCheckEvery
	}
	if o.CheckEvery < 0 || o.CheckEvery > MaxCheckEvery {
		return nil, fmt.Errorf("revocation check period %v must be more than 0 and at most %v", o.CheckEvery, MaxCheckEvery)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.LookupRate == 0 {
		o.LookupRate = DefaultLookupRate
	}
	if o.LookupBurst == 0 {
		o.LookupBurst = DefaultLookupBurst
	}
	budget, err := newLookupBudget(o.LookupRate, o.LookupBurst)
	if err != nil {
		return nil, err
	}
	return &Verifier{decode: decode, users: newUserCheck(lookup, budget, o)}, nil
}

// VerifyIDToken returns the identity a valid token carries: its uid, and
// the name and picture claims its issuer put in it (Firebase Auth copies a
// user's displayName and photoURL there), which the API shows instead of
// names a client asserts.
//
// Returns EUnauthenticated for a malformed, expired or foreign token, for a
// token issued in a second before its user's tokens were revoked,
// and for a user that is disabled or no longer exists; ERateLimited (with
// RetryAfter) when the user needs a lookup, has no recent answer to fall
// back on, and the instance's lookup budget is spent; EUnavailable when
// verification could not be completed (the key server, Firebase Auth or the
// emulator unreachable, and no recent answer about the user to fall back
// on).
func (v *Verifier) VerifyIDToken(ctx context.Context, idToken string) (presence.Identity, error) {
	tok, err := v.decode(ctx, idToken)
	switch {
	case err == nil:
	case fbauth.IsIDTokenExpired(err):
		return presence.Identity{}, presence.Errorf(presence.EUnauthenticated, "the ID token has expired; refresh it")
	case fbauth.IsIDTokenInvalid(err), fbauth.IsUserNotFound(err), fbauth.IsUserDisabled(err):
		return presence.Identity{}, presence.Errorf(presence.EUnauthenticated, "the ID token is not valid for this project")
	default:
		return presence.Identity{}, fmt.Errorf("verifying ID token: %w: %w", presence.Errorf(presence.EUnavailable, "could not verify the ID token; retry"), err)
	}
	if err := v.users.check(ctx, tok.UID, time.Unix(tok.IssuedAt, 0)); err != nil {
		return presence.Identity{}, err
	}
	name, _ := tok.Claims["name"].(string)
	picture, _ := tok.Claims["picture"].(string)
	return presence.Identity{UID: tok.UID, Name: name, Picture: picture}, nil
}
