package events

import (
	"context"
	"errors"
	"log"
	"net/http"
)

// HandlerOptions configure Handler.
type HandlerOptions struct {
	// Verifier checks the push request's token. Nil accepts every
	// request: only for an endpoint that nothing but Pub/Sub can reach
	// (or a local run on the emulator, which sends no token).
	Verifier *PushVerifier
	// Deduper drops events already handled; nil: a MemoryDeduper.
	Deduper Deduper
	// Handle is called once per event (per Deduper); an error has the
	// event redelivered. Feed eventfold from here to keep a roster.
	Handle func(ctx context.Context, ev Event) error
	// Logger receives refusals and failures; nil: log.Default().
	Logger *log.Logger
}

// Handler serves a push subscription's endpoint. Its statuses are what
// Pub/Sub acts on: 204 acknowledges (handled, or a duplicate); 401 and 403
// refuse a request whose token is not the push subscription's; 400 is a
// message that is no roomlease event, and 500 a failure of Handle or of
// the Deduper or the key fetch. Pub/Sub redelivers everything but 2xx,
// with the subscription's backoff, and dead-letters it after the maximum
// attempts.
func Handler(o HandlerOptions) http.Handler {
	if o.Deduper == nil {
		o.Deduper = &MemoryDeduper{}
	}
	if o.Logger == nil {
		o.Logger = log.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		ctx := r.Context()
		if o.Verifier != nil {
			if err := o.Verifier.Verify(ctx, r); err != nil {
				status := http.StatusInternalServerError
				switch {
				case errors.Is(err, ErrUnauthenticated):
					status = http.StatusUnauthorized
				case errors.Is(err, ErrForbidden):
					status = http.StatusForbidden
				}
				o.Logger.Printf("events: push request refused: %v", err)
				http.Error(w, http.StatusText(status), status)
				return
			}
		}
		ev, err := DecodePush(r)
		if err != nil {
			o.Logger.Printf("events: %v", err)
			http.Error(w, "not a roomlease event", http.StatusBadRequest)
			return
		}
		// 1. A duplicate is acknowledged without calling Handle. 2. Handle.
		// 3. Mark only after Handle succeeded: a failure is redelivered
		// and handled again. Two deliveries at once may both pass 1, so
		// Handle must be idempotent all the same.
		if seen, err := o.Deduper.Seen(ctx, ev.ID); err != nil {
			o.Logger.Printf("events: dedup of %s: %v", ev.ID, err)
			http.Error(w, "dedup failed", http.StatusInternalServerError)
			return
		} else if seen {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if err := o.Handle(ctx, ev); err != nil {
			o.Logger.Printf("events: handling %s %s (%s): %v", ev.Type, ev.Subject, ev.ID, err)
			http.Error(w, "handling failed", http.StatusInternalServerError)
			return
		}
		if err := o.Deduper.Mark(ctx, ev.ID); err != nil {
			// Handled; a redelivery will be handled again, which an
			// idempotent Handle tolerates.
			o.Logger.Printf("events: marking %s: %v", ev.ID, err)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
