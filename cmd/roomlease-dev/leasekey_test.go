package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The key the dev server once signed lease tokens with, written in the
// repository: whoever could read it could forge tokens for their own
// sessions wherever the server ran, also against a real project.
const repositoryKey = "roomlease-dev: lease tokens for the emulators only"

// Without ROOMLEASE_LEASE_TOKEN_KEY, the dev server signs lease tokens
// with a key drawn at its start, known to nobody else: a token it issues
// does not verify with the key once in the repository. With the variable
// set, that key signs them.
func TestDevServer_LeaseTokensAreSignedWithAKeyOfItsOwn(t *testing.T) {
	emulatortest.FirestoreHost(t)
	emulatortest.AuthHost(t)
	user := emulatortest.SignUp(t)
	ctx := context.Background()
	// tokenOf joins a room on a fresh dev server started with env and
	// returns the token and the session document it is bound to.
	tokenOf := func(env []string) (token, doc string) {
		base := StartDevServer(t, env, "-sweep=false")
		room := fmt.Sprintf("lease-key-%d", time.Now().UnixNano())
		j, err := NewClient(t, base, user).Join(ctx, room, "tab", nil)
		if err != nil {
			t.Fatal(err)
		}
		if j.LeaseToken == "" {
			t.Fatal("the dev server issued no lease token")
		}
		return j.LeaseToken, fmt.Sprintf("projects/%s/databases/%s/documents/rooms/%s/participants/%s/sessions/tab",
			emulatortest.AuthProjectID(), j.Database, room, user.UID)
	}
	signer := func(key string) *leasetoken.Signer {
		s, err := leasetoken.NewSigner([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	token, doc := tokenOf(nil)
	if _, ok := signer(repositoryKey).Verify(doc, token); ok {
		t.Fatal("a token of the dev server verifies with the key in the repository: anyone can forge them")
	}
	const chosen = "a key this test chose, 32 bytes or more"
	token, doc = tokenOf([]string{"ROOMLEASE_LEASE_TOKEN_KEY=" + chosen})
	if _, ok := signer(chosen).Verify(doc, token); !ok {
		t.Fatal("with ROOMLEASE_LEASE_TOKEN_KEY set, the dev server's token does not verify with that key")
	}
}
