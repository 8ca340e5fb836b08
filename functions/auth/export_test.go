package auth

import (
	"context"

	fbauth "firebase.google.com/go/v4/auth"
)

// NewVerifierWith builds a Verifier from its two halves, so that a test can
// decide the token half (see auth_test.go for why) and count the lookups.
func NewVerifierWith(decode func(context.Context, string) (*fbauth.Token, error),
	lookup func(context.Context, string) (*fbauth.UserRecord, error), o Options) (*Verifier, error) {
	return newVerifier(decode, lookup, o)
}

// Timing constants, for tests that step around them.
const (
	StaleLimit = staleLimit
	RetryPause = retryPause
)
