// Command support-backend is an example of an app's backend consuming
// roomlease's presence events from a Pub/Sub push subscription
// (docs/events.md, "Delivering to your backend"): when a support call's
// agent leaves (or crashes), the ticket is reassigned; when the call's
// room closes, its transcript is finalized. The ticket and transcript
// stores here only log; a real backend puts its own behind the two
// interfaces of backend.go.
//
//	PORT=8090 PUSH_AUDIENCE=https://backend.example/events \
//	  PUSH_SERVICE_ACCOUNT=roomlease-push@PROJECT.iam.gserviceaccount.com \
//	  go run ./examples/support-backend
//
// Without PUSH_AUDIENCE and PUSH_SERVICE_ACCOUNT it accepts requests
// without a token: the Pub/Sub emulator's push sends none.
package main

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/roomlease/roomlease/clients/go/events"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8090"
	}
	logger := log.New(os.Stderr, "support-backend: ", log.LstdFlags)
	b := &Backend{Tickets: loggingTickets{logger}, Transcripts: loggingTranscripts{logger}}
	opts := events.HandlerOptions{Handle: b.Handle, Logger: logger}
	if aud, sa := os.Getenv("PUSH_AUDIENCE"), os.Getenv("PUSH_SERVICE_ACCOUNT"); aud != "" || sa != "" {
		opts.Verifier = &events.PushVerifier{Audience: aud, Email: sa}
	} else {
		logger.Print("PUSH_AUDIENCE and PUSH_SERVICE_ACCOUNT unset: accepting push requests without a token (local runs only)")
	}
	mux := http.NewServeMux()
	mux.Handle("/events", events.Handler(opts))
	logger.Printf("listening on 127.0.0.1:%s, push endpoint /events", port)
	srv := &http.Server{Addr: "127.0.0.1:" + port, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Fatal(srv.ListenAndServe())
}

type loggingTickets struct{ log *log.Logger }

func (t loggingTickets) Reassign(_ context.Context, ticketID, agentID, reason string) error {
	t.log.Printf("ticket %s: reassigning from %s (%s)", ticketID, agentID, reason)
	return nil
}

type loggingTranscripts struct{ log *log.Logger }

func (t loggingTranscripts) Finalize(_ context.Context, roomID string, lifetime time.Time) error {
	t.log.Printf("room %s (lifetime %s): transcript finalized", roomID, lifetime.Format(time.RFC3339Nano))
	return nil
}
