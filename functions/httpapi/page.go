package httpapi

import (
	"net/http"
	"strconv"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
)

type rosterPageResponse struct {
	RoomID        string        `json:"roomId"`
	Revision      int64         `json:"revision"`
	Participants  []rosterEntry `json:"participants"`
	NextPageToken string        `json:"nextPageToken,omitempty"`
}

// participants serves GET /v1/rooms/{roomId}/participants?pageSize=&pageToken=:
// one page of the roster, for a live participant (anyone else gets the
// room read's 404). In a large room, whose listeners follow the summary,
// this is how a client reads the whole roster.
func (h *Handler) participants(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	req := presence.RosterPageRequest{RoomID: roomID, CallerID: who.UID, After: r.URL.Query().Get("pageToken")}
	if v := r.URL.Query().Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return errorf(presence.EInvalid, "pageSize must be a whole number")
		}
		req.Limit = n
	}
	page, err := h.store.RosterPage(r.Context(), req)
	if err != nil {
		return err
	}
	resp := rosterPageResponse{RoomID: roomID, Revision: page.Revision, NextPageToken: page.Next,
		Participants: make([]rosterEntry, 0, len(page.Participants))}
	for _, p := range page.Participants {
		resp.Participants = append(resp.Participants, rosterEntry{ParticipantID: p.ID, DisplayName: p.DisplayName, PhotoURL: p.PhotoURL,
			State: stateOrEmpty(p.State), Away: p.Away, SessionCount: p.SessionCount, JoinedAt: formatTime(p.JoinedAt)})
	}
	httpjson.Write(w, http.StatusOK, resp)
	return nil
}
