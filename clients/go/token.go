package client

import "context"

// TokenSource supplies the Firebase ID token every request carries as its
// bearer token: the user the client acts as.
//
// IDToken returns a token that is valid now, refreshing it first if it
// must; ctx bounds that refresh. The client also stops waiting when ctx
// ends, so a source that ignores ctx cannot hang a request past its
// timeout (its call is then left to return by itself).
//
// CustomTokenSource is one for a service's own user; StaticToken one for
// tests and short scripts; TokenFunc adapts anything else, such as an
// oauth2.TokenSource:
//
//	client.TokenFunc(func(context.Context) (string, error) {
//		t, err := ts.Token()
//		if err != nil {
//			return "", err
//		}
//		return t.AccessToken, nil
//	})
type TokenSource interface {
	IDToken(ctx context.Context) (string, error)
}

// TokenFunc is a TokenSource that calls itself.
type TokenFunc func(ctx context.Context) (string, error)

// IDToken returns f(ctx).
func (f TokenFunc) IDToken(ctx context.Context) (string, error) { return f(ctx) }

// StaticToken is a token source that always returns idToken: for tests and
// short scripts (an ID token lasts an hour).
func StaticToken(idToken string) TokenSource {
	return TokenFunc(func(context.Context) (string, error) { return idToken, nil })
}
