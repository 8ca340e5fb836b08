// Package auth verifies Firebase ID tokens: the caller's identity comes from
// the token's uid, never from a request body.
//
// With FIREBASE_AUTH_EMULATOR_HOST set, the Firebase Admin SDK accepts the
// Auth emulator's unsigned tokens and asks the emulator whether the user
// still exists; everything else (audience, issuer, expiry) is checked as in
// production.
package auth

import (
	"context"
	"fmt"
	"os"

	firebase "firebase.google.com/go/v4"
	fbauth "firebase.google.com/go/v4/auth"
	"google.golang.org/api/option"

	"github.com/roomlease/roomlease/functions/presence"
)

// Verifier checks ID tokens for one Firebase project.
type Verifier struct {
	client *fbauth.Client
}

// NewVerifier returns a Verifier for projectID.
func NewVerifier(ctx context.Context, projectID string) (*Verifier, error) {
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
	return &Verifier{client: client}, nil
}

// VerifyIDToken returns the uid of a valid token.
//
// Returns EUnauthenticated for a malformed, expired, revoked or foreign
// token, or one whose user no longer exists; EUnavailable when verification
// could not be completed (the key server or the emulator is unreachable).
func (v *Verifier) VerifyIDToken(ctx context.Context, idToken string) (string, error) {
	tok, err := v.client.VerifyIDToken(ctx, idToken)
	switch {
	case err == nil:
		return tok.UID, nil
	case fbauth.IsIDTokenExpired(err):
		return "", presence.Errorf(presence.EUnauthenticated, "the ID token has expired; refresh it")
	case fbauth.IsIDTokenInvalid(err), fbauth.IsUserNotFound(err), fbauth.IsUserDisabled(err):
		return "", presence.Errorf(presence.EUnauthenticated, "the ID token is not valid for this project")
	default:
		return "", fmt.Errorf("verifying ID token: %w: %w", presence.Errorf(presence.EUnavailable, "could not verify the ID token; retry"), err)
	}
}
