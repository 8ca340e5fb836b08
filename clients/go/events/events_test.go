package events_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/clients/go/events"
)

// fakeGoogle signs tokens with a locally generated key and serves its
// public half as a JWKS on 127.0.0.1, as Google's certs URL would.
type fakeGoogle struct {
	key     *rsa.PrivateKey
	url     string
	fetches atomic.Int32
	down    atomic.Bool
}

func newFakeGoogle(t *testing.T) *fakeGoogle {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGoogle{key: key}
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "RSA", "alg": "RS256", "kid": "k1",
		"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.fetches.Add(1)
		if g.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(jwks)
	}))
	t.Cleanup(srv.Close)
	g.url = srv.URL
	return g
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (g *fakeGoogle) token(t *testing.T, key *rsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	c := map[string]any{"iss": "https://accounts.google.com", "aud": pushAudience, "email": pushSA, "email_verified": true,
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "sub": "1"}
	for k, v := range claims {
		c[k] = v
	}
	h, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"})
	p, _ := json.Marshal(c)
	signed := b64(h) + "." + b64(p)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + b64(sig)
}

const (
	pushAudience = "https://backend.example/roomlease-events"
	pushSA       = "roomlease-push@app.iam.gserviceaccount.com"
)

func pushBody(attrs map[string]string, data string) string {
	b, _ := json.Marshal(map[string]any{
		"message": map[string]any{"attributes": attrs, "data": base64.StdEncoding.EncodeToString([]byte(data)),
			"messageId": "m-1", "publishTime": "2026-12-02T01:02:04Z", "orderingKey": "standup"},
		"subscription": "projects/app/subscriptions/roomlease-events-push", "deliveryAttempt": 2})
	return string(b)
}

func eventAttrs(id, typ string) map[string]string {
	return map[string]string{"ce-specversion": "1.0", "ce-id": id, "ce-type": typ,
		"ce-source": "//roomlease/projects/app/databases/roomlease", "ce-subject": "rooms/standup",
		"ce-time": "2026-12-02T01:02:03.456789123Z", "content-type": "application/json"}
}

const leftData = `{"roomId":"standup","lifetime":"2026-12-02T01:00:00.123456Z","participantId":"uid-1","participantSeq":3,
"reason":"expired","participant":{"displayName":"Ada","state":{"role":"agent"},"sessionCount":1},"futureField":42}`

func pushRequest(token, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

func TestDecodePush(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		ev, err := events.DecodePush(pushRequest("", pushBody(eventAttrs("e1", events.TypeParticipantLeft), leftData)))
		if err != nil {
			t.Fatal(err)
		}
		if ev.ID != "e1" || ev.Type != events.TypeParticipantLeft || ev.Subject != "rooms/standup" || ev.MessageID != "m-1" ||
			ev.Attempt != 2 || ev.Time.Nanosecond() != 456789123 {
			t.Fatalf("event %+v", ev)
		}
		d, err := ev.Decode()
		if err != nil || d.RoomID != "standup" || d.ParticipantSeq != 3 || d.Reason != "expired" || d.Participant.DisplayName != "Ada" ||
			d.Lifetime.Nanosecond() != 123456000 {
			t.Fatalf("data %+v, %v", d, err)
		}
	})
	missing := eventAttrs("e1", events.TypeParticipantLeft)
	delete(missing, "ce-id")
	for name, body := range map[string]string{
		"NotJSON":       "hello",
		"NoCEID":        pushBody(missing, leftData),
		"WrongSpec":     pushBody(map[string]string{"ce-specversion": "0.3", "ce-id": "e", "ce-type": "t", "ce-subject": "s"}, leftData),
		"DataNotJSON":   pushBody(eventAttrs("e1", events.TypeParticipantLeft), "not json"),
		"DataNotBase64": strings.Replace(pushBody(eventAttrs("e1", events.TypeRoomClosed), "{}"), `"data":"e30="`, `"data":"%%%"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := events.DecodePush(pushRequest("", body)); !errors.Is(err, events.ErrNotAnEvent) {
				t.Fatalf("got %v, want ErrNotAnEvent", err)
			}
		})
	}
}

func TestPushVerifier(t *testing.T) {
	g := newFakeGoogle(t)
	v := &events.PushVerifier{Audience: pushAudience, Email: pushSA, KeysURL: g.url}
	ctx := context.Background()
	if err := v.Verify(ctx, pushRequest(g.token(t, g.key, "k1", nil), "")); err != nil {
		t.Fatalf("valid push token: %v", err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	refused := []struct {
		name  string
		token string
		want  error
	}{
		{"NoToken", "", events.ErrUnauthenticated},
		{"OtherKey", g.token(t, other, "k1", nil), events.ErrUnauthenticated},
		{"WrongAudience", g.token(t, g.key, "k1", map[string]any{"aud": "https://elsewhere.example"}), events.ErrUnauthenticated},
		{"WrongIssuer", g.token(t, g.key, "k1", map[string]any{"iss": "https://securetoken.google.com/app"}), events.ErrUnauthenticated},
		{"Expired", g.token(t, g.key, "k1", map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}), events.ErrUnauthenticated},
		{"OtherAccount", g.token(t, g.key, "k1", map[string]any{"email": "someone@app.iam.gserviceaccount.com"}), events.ErrForbidden},
		{"EmailNotVerified", g.token(t, g.key, "k1", map[string]any{"email_verified": false}), events.ErrForbidden},
		{"AlgNone", "eyJhbGciOiJub25lIn0." + strings.Split(g.token(t, g.key, "k1", nil), ".")[1] + ".", events.ErrUnauthenticated},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			if err := v.Verify(ctx, pushRequest(tc.token, "")); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("KeySetFetchedOnce", func(t *testing.T) {
		before := g.fetches.Load()
		for range 3 {
			v.Verify(ctx, pushRequest(g.token(t, g.key, "k1", nil), ""))
			v.Verify(ctx, pushRequest(g.token(t, g.key, "made-up", nil), ""))
		}
		if n := g.fetches.Load() - before; n != 0 {
			t.Fatalf("%d fetches within the key set's max-age and refetch pause, want 0", n)
		}
	})
}

// A key server that is down is not the caller's fault: the error is no
// ErrUnauthenticated, so Handler answers 500 and Pub/Sub retries.
func TestPushVerifier_KeysDown(t *testing.T) {
	g := newFakeGoogle(t)
	g.down.Store(true)
	v := &events.PushVerifier{Audience: pushAudience, Email: pushSA, KeysURL: g.url}
	err := v.Verify(context.Background(), pushRequest(g.token(t, g.key, "k1", nil), ""))
	if err == nil || errors.Is(err, events.ErrUnauthenticated) || errors.Is(err, events.ErrForbidden) {
		t.Fatalf("keys down: %v, want a plain error", err)
	}
}

func TestHandler(t *testing.T) {
	g := newFakeGoogle(t)
	var handled []string
	fail := false
	h := events.Handler(events.HandlerOptions{
		Verifier: &events.PushVerifier{Audience: pushAudience, Email: pushSA, KeysURL: g.url},
		Logger:   log.New(io.Discard, "", 0),
		Handle: func(_ context.Context, ev events.Event) error {
			if fail {
				return errors.New("database down")
			}
			handled = append(handled, ev.ID)
			return nil
		},
	})
	serve := func(token, body string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, pushRequest(token, body))
		return w.Code
	}
	tok := g.token(t, g.key, "k1", nil)
	body := func(id string) string { return pushBody(eventAttrs(id, events.TypeParticipantJoined), leftData) }

	if c := serve(tok, body("a")); c != 204 {
		t.Fatalf("first delivery: %d", c)
	}
	if c := serve(tok, body("a")); c != 204 {
		t.Fatalf("redelivery: %d, want 204 (acknowledged)", c)
	}
	if len(handled) != 1 {
		t.Fatalf("handled %v, want a once", handled)
	}
	// A failure is not marked: its redelivery is handled.
	fail = true
	if c := serve(tok, body("b")); c != 500 {
		t.Fatalf("failed handling: %d, want 500 (redeliver)", c)
	}
	fail = false
	if c := serve(tok, body("b")); c != 204 || len(handled) != 2 || handled[1] != "b" {
		t.Fatalf("redelivery after a failure: %d, handled %v", c, handled)
	}
	if c := serve("", body("c")); c != 401 {
		t.Fatalf("no token: %d, want 401", c)
	}
	if c := serve(g.token(t, g.key, "k1", map[string]any{"email": "x@y.iam.gserviceaccount.com"}), body("c")); c != 403 {
		t.Fatalf("another account: %d, want 403", c)
	}
	if c := serve(tok, "{}"); c != 400 {
		t.Fatalf("not an event: %d, want 400", c)
	}
	if len(handled) != 2 {
		t.Fatalf("refused requests reached Handle: %v", handled)
	}
}

func TestMemoryDeduper_ForgetsTheOldest(t *testing.T) {
	d := &events.MemoryDeduper{Size: 2}
	ctx := context.Background()
	for _, id := range []string{"a", "b", "b", "c"} {
		d.Mark(ctx, id)
	}
	for id, want := range map[string]bool{"a": false, "b": true, "c": true} {
		if got, _ := d.Seen(ctx, id); got != want {
			t.Errorf("Seen(%s) = %v, want %v", id, got, want)
		}
	}
}
