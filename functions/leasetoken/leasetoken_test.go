package leasetoken_test

import (
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/leasetoken"
)

const doc = "projects/p/databases/d/documents/rooms/r/participants/alice/sessions/s1"

func mustSigner(t *testing.T, key string) *leasetoken.Signer {
	t.Helper()
	s, err := leasetoken.NewSigner([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func claims() leasetoken.Claims {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	return leasetoken.Claims{Generation: 1772366400000001, LeaseExpiresAt: at.Add(15 * time.Second),
		UpdateTime: at.Add(-time.Microsecond), Away: true, RefreshAt: at.Add(30 * 24 * time.Hour)}
}

func TestSigner_RoundTrip(t *testing.T) {
	s := mustSigner(t, strings.Repeat("k", 32))
	tok := s.Sign(doc, claims())
	got, ok := s.Verify(doc, tok)
	if !ok {
		t.Fatalf("Verify(Sign) failed for %q", tok)
	}
	if got != claims() {
		t.Fatalf("claims = %+v, want %+v", got, claims())
	}
}

func TestSigner_Refuses(t *testing.T) {
	s := mustSigner(t, strings.Repeat("k", 32))
	tok := s.Sign(doc, claims())
	body, sig, _ := strings.Cut(tok, ".")
	other := mustSigner(t, strings.Repeat("x", 32))
	// A token whose lease end was moved by the client: re-encode a payload
	// with one byte changed, keeping the signature.
	forged := []byte(body)
	forged[20] ^= 1
	cases := []struct {
		name   string
		signer *leasetoken.Signer
		doc    string
		token  string
	}{
		{"another document (room, user, session, project or database)", s, doc + "x", tok},
		{"another key", other, doc, tok},
		{"a changed claim", s, doc, string(forged) + "." + sig},
		{"no signature", s, doc, body},
		{"empty", s, doc, ""},
		{"garbage", s, doc, "not.a-token"},
		{"too long", s, doc, tok + strings.Repeat("A", 100)},
		{"a nil signer (no key configured)", nil, doc, tok},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := c.signer.Verify(c.doc, c.token); ok {
				t.Fatalf("Verify accepted %q", c.token)
			}
		})
	}
}

func TestSigner_NilSignsNothing(t *testing.T) {
	var s *leasetoken.Signer
	if tok := s.Sign(doc, claims()); tok != "" {
		t.Fatalf("nil signer signed %q", tok)
	}
}

func TestNewSigner_RefusesShortKeys(t *testing.T) {
	if _, err := leasetoken.NewSigner([]byte("short")); err == nil {
		t.Fatal("a 5-byte key was accepted")
	}
}
