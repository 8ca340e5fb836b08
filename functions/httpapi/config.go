package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"strconv"

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
	// Emulators is present only on a server that runs on the emulators
	// (scripts/dev, the tests): a deployment's reply has no such field.
	Emulators *emulatorsResponse `json:"emulators,omitempty"`
}

// Emulators are the emulators a local server stores and verifies tokens
// on, host:port as the server reaches them (FIRESTORE_EMULATOR_HOST,
// FIREBASE_AUTH_EMULATOR_HOST). The zero value is a server on the real
// services. Locally the server and the app share 127.0.0.1, so the
// server's addresses are the app's too.
type Emulators struct {
	Firestore string
	Auth      string
}

type emulatorsResponse struct {
	// Firestore is what connectFirestoreEmulator takes, and the
	// firestoreEmulator option of createRoomleaseClient.
	Firestore *firestoreEmulator `json:"firestore,omitempty"`
	// Auth is what connectAuthEmulator takes.
	Auth *authEmulator `json:"auth,omitempty"`
}

type firestoreEmulator struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

type authEmulator struct {
	URL string `json:"url"`
}

// SplitEmulatorHost splits an emulator's host:port; config.FromEnv uses
// it to refuse a malformed one at start-up.
func SplitEmulatorHost(hostport string) (host string, port int, err error) {
	h, p, err := net.SplitHostPort(hostport)
	if err == nil {
		port, err = strconv.Atoi(p)
	}
	if err != nil || h == "" || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("%q is not host:port", hostport)
	}
	return h, port, nil
}

// response is what GET /v1/config says of the emulators: nil, and so no
// field at all, on a server that runs on none.
func (e Emulators) response() *emulatorsResponse {
	if e == (Emulators{}) {
		return nil
	}
	r := &emulatorsResponse{}
	if host, port, err := SplitEmulatorHost(e.Firestore); err == nil {
		r.Firestore = &firestoreEmulator{Host: host, Port: port}
	}
	if e.Auth != "" {
		r.Auth = &authEmulator{URL: "http://" + e.Auth}
	}
	return r
}

// config answers GET /v1/config: where clients must listen, and the
// timings they will be told on join. The Firebase SDKs open the "(default)"
// database unless told otherwise, while a deployment usually keeps its
// rooms in a database of its own; a client that listens to another database
// than the server writes sees rooms that stay empty, and nothing fails. So
// the server names its database, and a client checks it before its first
// join.
//
// On the emulators it also says where they are, so that one app snippet
// runs against scripts/dev and a deployment alike: it connects the
// Firebase SDKs to the emulators exactly when the server says it uses
// them (README, "Quick start").
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
		Emulators:           h.emulators,
	})
}
