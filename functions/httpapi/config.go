package httpapi

import (
	"net/http"

	"github.com/roomlease/roomlease/functions/httpjson"
)

// DefaultDatabase is the database the Firebase SDKs open when none is
// named, and the one reported when Options.Database is empty.
const DefaultDatabase = "(default)"

type configResponse struct {
	ProjectID        string  `json:"projectId"`
	Database         string  `json:"database"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
	LeaseSeconds     float64 `json:"leaseSeconds"`
	// RecentlyLeftSeconds is how long a departure stays in recentlyLeft
	// (ROOMLEASE_RECENTLY_LEFT): the records outlive it until TTL removes
	// them, so listening clients hide older ones themselves.
	RecentlyLeftSeconds float64 `json:"recentlyLeftSeconds"`
}

// config answers GET /v1/config: where clients must listen, and the
// timings they will be told on join. The Firebase SDKs open the "(default)"
// database unless told otherwise, while a deployment usually keeps its
// rooms in a database of its own; a client that listens to another database
// than the server writes sees rooms that stay empty, and nothing fails. So
// the server names its database, and a client checks it before its first
// join.
//
// It passes no gate, like /healthz: a client asks before it has signed in,
// and the answer holds nothing that is not already in the app's Firebase
// configuration or its first join reply. It reads nothing from Firestore.
func (h *Handler) config(w http.ResponseWriter) {
	httpjson.Write(w, http.StatusOK, configResponse{
		ProjectID:        h.project,
		Database:         h.database,
		HeartbeatSeconds: h.settings.Heartbeat.Seconds(),
		LeaseSeconds:     h.settings.Lease.Seconds(),

		RecentlyLeftSeconds: h.settings.RecentlyLeft.Seconds(),
	})
}
