package httpapi

import (
	"net/http"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
)

type occupancyResponse struct {
	RoomID   string `json:"roomId"`
	Count    int    `json:"count"`
	Revision int64  `json:"revision"`
	AsOf     string `json:"asOf"`
}

// occupancy serves GET /v1/rooms/{roomId}/occupancy: how many are in a
// room whose policy says publicOccupancy, to anyone signed in. Any other
// room answers as a room read answers an outsider (404 room_not_found,
// one message), whether it exists or not.
func (h *Handler) occupancy(w http.ResponseWriter, r *http.Request, roomID string, _ presence.Identity) error {
	o, err := h.store.Occupancy(r.Context(), roomID)
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, occupancyResponse{RoomID: o.RoomID, Count: o.Count, Revision: o.Revision, AsOf: formatTime(o.AsOf)})
	return nil
}
