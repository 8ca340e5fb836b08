package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
)

// ServiceTokenVerifier checks the ID tokens of backend services (Google
// service accounts), which read rosters of rooms they are not in to repair
// a gap in the presence events (docs/events.md, "Reading a roster as a
// service").
type ServiceTokenVerifier interface {
	// IsServiceToken reports, without verifying it, whether token is one
	// this verifier checks (a Google ID token rather than a Firebase one).
	IsServiceToken(token string) bool
	// VerifyServiceToken returns the service account's email. Returns
	// EUnauthenticated for a token that is not valid here (signature,
	// expiry, audience, issuer), EForbidden for a valid token of an
	// account not allowed to read, EUnavailable when it could not check.
	VerifyServiceToken(ctx context.Context, token string) (string, error)
}

// ServiceRosterReader reads any room's live roster and its participants'
// event sequence numbers, without a member check. Returns EInvalid for a
// malformed room id, ENotFound for an absent room.
type ServiceRosterReader interface {
	ServiceRoster(ctx context.Context, roomID string) (presence.Snapshot, error)
}

// serviceRateKey prefixes a service account's email in the per-caller rate
// limiter, so that it never shares a bucket with a Firebase uid.
const serviceRateKey = "service:"

// serviceToken returns the bearer token of r when it is a service's, and
// service reads are on.
func (h *Handler) serviceToken(r *http.Request) (string, bool) {
	if h.services == nil {
		return "", false
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, h.services.IsServiceToken(token)
}

// serveService answers a service's request. Services only read: App Check
// is skipped (a backend has no attested app; its Google-signed token is a
// stronger proof than App Check's), and every other action is refused
// before anything is read.
func (h *Handler) serveService(w http.ResponseWriter, r *http.Request, action, roomID, token string) error {
	email, err := h.services.VerifyServiceToken(r.Context(), token)
	if err != nil {
		if presence.ErrorCode(err) == presence.EUnauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer realm="roomlease"`)
		}
		return err
	}
	if action != "" {
		return errorf(presence.EForbidden, "a service account may only read rosters (GET /v1/rooms/{roomId})")
	}
	if err := h.checkRate(r, serviceRateKey+email, actionName(action)); err != nil {
		return err
	}
	snap, err := h.serviceRosters.ServiceRoster(r.Context(), roomID)
	if err != nil {
		return err
	}
	resp := serviceRoomResponse{roomResponse: rosterResponse(roomID, snap.Roster), Lifetime: formatLifetime(snap.Room),
		ParticipantSeqs: snap.EventSeqs}
	if resp.ParticipantSeqs == nil {
		resp.ParticipantSeqs = map[string]int64{}
	}
	httpjson.Write(w, http.StatusOK, resp)
	return nil
}

// serviceRoomResponse is a member's reply plus the room's lifetime, which
// a consumer compares with the events' "lifetime" to know whether the
// snapshot belongs to the lifetime its events are about, and the latest
// participantSeq of everyone who had an event in it (present or gone): the
// snapshot reflects exactly the events up to those numbers.
type serviceRoomResponse struct {
	roomResponse
	Lifetime        string           `json:"lifetime"`
	ParticipantSeqs map[string]int64 `json:"participantSeqs"`
}

// formatLifetime renders the room's createdAt as the events render their
// lifetime (RFC 3339 with every digit Firestore keeps, microseconds):
// two lifetimes of one room id never render alike.
func formatLifetime(room presence.Room) string {
	return room.CreatedAt.UTC().Format(time.RFC3339Nano)
}
