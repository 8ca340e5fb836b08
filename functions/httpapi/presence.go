package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
)

type joinRequest struct {
	SessionID   string          `json:"sessionId"`
	DisplayName *string         `json:"displayName"`
	State       json.RawMessage `json:"state"`
	Away        bool            `json:"away"`
}

type joinResponse struct {
	RoomID           string  `json:"roomId"`
	ParticipantID    string  `json:"participantId"`
	SessionID        string  `json:"sessionId"`
	Generation       int64   `json:"generation"`
	LeaseExpiresAt   string  `json:"leaseExpiresAt"`
	LeaseSeconds     float64 `json:"leaseSeconds"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
	Revision         int64   `json:"revision"`
	// RenewAt and LeaseToken: when to send the first heartbeat, and what
	// to send with it (see leaseAnswer).
	RenewAt    string `json:"renewAt"`
	LeaseToken string `json:"leaseToken,omitempty"`
	// Database is where this room's roster lives: a client that listens
	// elsewhere sees an empty room (see config.go).
	Database string `json:"database"`
	// Held, with RetryAfterSeconds: the join kept the stored state, name
	// and mode, the user's state budget being spent (presence.Allowance).
	Held              bool `json:"held,omitempty"`
	RetryAfterSeconds int  `json:"retryAfterSeconds,omitempty"`
}

func (h *Handler) join(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	uid := who.UID
	var body joinRequest
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: roomID, ParticipantID: uid, SessionID: body.SessionID},
		PhotoURL: presence.ShownPhoto(who), Away: body.Away}
	var sent string
	if body.DisplayName != nil {
		sent = *body.DisplayName
	}
	// The token's name, when it has one, wins over the client's (see
	// presence.ShownName): nobody shows up under another user's name.
	req.DisplayName, req.HasDisplayName = presence.ShownName(who, sent, body.DisplayName != nil, h.allowClientNames)
	if body.State != nil {
		st, err := presence.ParseState(body.State, h.settings.MaxStateBytes)
		if err != nil {
			return err
		}
		req.State, req.HasState = st, true
	}
	var wait time.Duration
	req.Allowance = h.changeAllowance(r, uid, "join", &wait)
	res, err := h.store.Join(r.Context(), req)
	if err != nil {
		return err
	}
	reply := joinResponse{
		RoomID: roomID, ParticipantID: uid, SessionID: res.Session.ID, Generation: res.Session.Generation,
		LeaseExpiresAt:   formatTime(res.Session.LeaseExpiresAt),
		LeaseSeconds:     h.settings.ForMode(res.Session.Away).Lease.Seconds(),
		HeartbeatSeconds: h.settings.ForMode(res.Session.Away).Heartbeat.Seconds(),
		Revision:         res.Revision,
		Database:         h.database,
		RenewAt:          formatTime(res.Grant.RenewAt),
		LeaseToken:       res.Grant.Token,
	}
	if res.Held {
		reply.Held, reply.RetryAfterSeconds = true, retryAfterSeconds(wait)
	}
	httpjson.Write(w, http.StatusOK, reply)
	return nil
}

type sessionRequest struct {
	SessionID  string `json:"sessionId"`
	Generation int64  `json:"generation"`
}

// sessionRef decodes a heartbeat's or leave's body. The ids are validated
// by the store, once, with the rest of the request.
func (h *Handler) sessionRef(r *http.Request, roomID, uid string) (presence.SessionRef, error) {
	var body sessionRequest
	if err := decodeBody(r, &body); err != nil {
		return presence.SessionRef{}, err
	}
	return presence.SessionRef{SessionKey: presence.SessionKey{RoomID: roomID, ParticipantID: uid, SessionID: body.SessionID},
		Generation: body.Generation}, nil
}

type heartbeatRequest struct {
	SessionID  string `json:"sessionId"`
	Generation int64  `json:"generation"`
	Away       *bool  `json:"away"`
	LeaseToken string `json:"leaseToken"`
}

// leaseAnswer is what every answer to a lease holder carries: the lease's
// end, when to renew it (the client's next heartbeat), and the token to
// send with that heartbeat (absent when the deployment has no token key).
type leaseAnswer struct {
	LeaseExpiresAt string `json:"leaseExpiresAt"`
	RenewAt        string `json:"renewAt"`
	LeaseToken     string `json:"leaseToken,omitempty"`
}

func leaseAnswerOf(g presence.Grant) leaseAnswer {
	return leaseAnswer{LeaseExpiresAt: formatTime(g.LeaseExpiresAt), RenewAt: formatTime(g.RenewAt), LeaseToken: g.Token}
}

type heartbeatResponse struct {
	leaseAnswer
	// With "away" in the request: the session's mode and the lease and
	// interval that go with it.
	Away             *bool   `json:"away,omitempty"`
	LeaseSeconds     float64 `json:"leaseSeconds,omitempty"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds,omitempty"`
}

func (h *Handler) heartbeat(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	var body heartbeatRequest
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: roomID, ParticipantID: who.UID, SessionID: body.SessionID},
		Generation: body.Generation, Token: body.LeaseToken}
	if body.Away == nil {
		g, err := h.store.Renew(r.Context(), ref)
		if err != nil {
			return err
		}
		httpjson.Write(w, http.StatusOK, heartbeatResponse{leaseAnswer: leaseAnswerOf(g)})
		return nil
	}
	// Over the state budget, a toggle that would change the roster waits:
	// the reply's away is the mode in force, and the client's next
	// heartbeat asks again. Refusing the heartbeat would end a live lease.
	var wait time.Duration
	g, err := h.store.HeartbeatAway(r.Context(), presence.AwayRequest{SessionRef: ref, Away: *body.Away,
		Allowance: h.changeAllowance(r, who.UID, "heartbeat", &wait)})
	if err != nil {
		return err
	}
	mode := h.settings.ForMode(g.Away)
	httpjson.Write(w, http.StatusOK, heartbeatResponse{leaseAnswer: leaseAnswerOf(g), Away: &g.Away,
		LeaseSeconds: mode.Lease.Seconds(), HeartbeatSeconds: mode.Heartbeat.Seconds()})
	return nil
}

func (h *Handler) leave(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	uid := who.UID
	ref, err := h.sessionRef(r, roomID, uid)
	if err != nil {
		return err
	}
	res, err := h.store.Leave(r.Context(), ref)
	if err != nil {
		return err
	}
	body := leaveResponse{Removed: res.Removed}
	if !res.CleanupAfter.IsZero() {
		body.CleanupAfter = formatTime(res.CleanupAfter)
	}
	httpjson.Write(w, http.StatusOK, body)
	return nil
}

type leaveResponse struct {
	Removed bool `json:"removed"`
	// CleanupAfter is present when the room is in its empty-room grace.
	CleanupAfter string `json:"cleanupAfter,omitempty"`
}

type rosterEntry struct {
	ParticipantID string         `json:"participantId"`
	DisplayName   string         `json:"displayName"`
	PhotoURL      string         `json:"photoURL,omitempty"`
	State         presence.State `json:"state"`
	Away          bool           `json:"away"`
	SessionCount  int            `json:"sessionCount"`
	JoinedAt      string         `json:"joinedAt"`
}

type roomResponse struct {
	RoomID       string           `json:"roomId"`
	State        string           `json:"state"`
	Revision     int64            `json:"revision"`
	Participants []rosterEntry    `json:"participants"`
	RecentlyLeft []departureEntry `json:"recentlyLeft"`
}

type departureEntry struct {
	ParticipantID string `json:"participantId"`
	DisplayName   string `json:"displayName"`
	PhotoURL      string `json:"photoURL,omitempty"`
	LeftAt        string `json:"leftAt"`
	Reason        string `json:"reason"`
}

func (h *Handler) room(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	uid := who.UID
	roster, err := h.store.Roster(r.Context(), presence.RosterRequest{RoomID: roomID, CallerID: uid})
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, rosterResponse(roomID, roster))
	return nil
}

// rosterResponse is the reply to a roster read, a member's or a service's.
func rosterResponse(roomID string, roster presence.Roster) roomResponse {
	resp := roomResponse{RoomID: roomID, State: string(roster.Room.State), Revision: roster.Revision,
		Participants: make([]rosterEntry, 0, len(roster.Participants)),
		RecentlyLeft: make([]departureEntry, 0, len(roster.RecentlyLeft))}
	for _, d := range roster.RecentlyLeft {
		resp.RecentlyLeft = append(resp.RecentlyLeft, departureEntry{ParticipantID: d.ParticipantID,
			DisplayName: d.DisplayName, PhotoURL: d.PhotoURL, LeftAt: formatTime(d.LeftAt), Reason: d.Reason})
	}
	for _, p := range roster.Participants {
		resp.Participants = append(resp.Participants, rosterEntry{
			ParticipantID: p.ID, DisplayName: p.DisplayName, PhotoURL: p.PhotoURL, State: stateOrEmpty(p.State),
			Away: p.Away, SessionCount: p.SessionCount, JoinedAt: formatTime(p.JoinedAt)})
	}
	return resp
}

// formatTime renders instants as RFC 3339 in UTC with milliseconds.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// stateOrEmpty is st, or {} for a participant who never set one: clients
// always read an object.
func stateOrEmpty(st presence.State) presence.State {
	if st == nil {
		return presence.State{}
	}
	return st
}

type stateRequest struct {
	SessionID  string          `json:"sessionId"`
	Generation int64           `json:"generation"`
	State      json.RawMessage `json:"state"`
}

type stateResponse struct {
	State    presence.State `json:"state"`
	Revision int64          `json:"revision"`
}

// state replaces the caller's state: POST /v1/rooms/{roomId}/state.
func (h *Handler) state(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	var body stateRequest
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.State == nil {
		return errorf(presence.EInvalid, "state is required: a JSON object")
	}
	st, err := presence.ParseState(body.State, h.settings.MaxStateBytes)
	if err != nil {
		return err
	}
	if err := h.checkStateRate(r, who.UID); err != nil {
		return err
	}
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: roomID, ParticipantID: who.UID, SessionID: body.SessionID},
		Generation: body.Generation}
	res, err := h.store.SetState(r.Context(), presence.StateRequest{SessionRef: ref, State: st})
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, stateResponse{State: stateOrEmpty(res.State), Revision: res.Revision})
	return nil
}
