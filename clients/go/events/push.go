package events

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// MaxPushBytes bounds a push request's body: Pub/Sub's 10 MB message
// limit, base64-encoded, with room for the envelope. roomlease's events
// are a few kilobytes at most.
const MaxPushBytes = 14 << 20

// ErrNotAnEvent is returned for a push request that is not a roomlease
// event: not the push envelope, or without the CloudEvents attributes.
var ErrNotAnEvent = errors.New("events: not a roomlease event")

// pushEnvelope is what a Pub/Sub push subscription posts (without
// payload unwrapping).
type pushEnvelope struct {
	Message struct {
		Attributes  map[string]string `json:"attributes"`
		Data        string            `json:"data"`
		MessageID   string            `json:"messageId"`
		PublishTime string            `json:"publishTime"`
		OrderingKey string            `json:"orderingKey"`
	} `json:"message"`
	Subscription    string `json:"subscription"`
	DeliveryAttempt int    `json:"deliveryAttempt"`
}

// DecodePush reads the event a push request carries. It does not check
// who sent it: PushVerifier does.
//
// Returns an error wrapping ErrNotAnEvent for a body that is not a push
// envelope of a CloudEvents 1.0 message with ce-id, ce-type and
// ce-subject, and the read error for a body that could not be read.
func DecodePush(r *http.Request) (Event, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxPushBytes+1))
	if err != nil {
		return Event{}, fmt.Errorf("events: reading the push request: %w", err)
	}
	if len(body) > MaxPushBytes {
		return Event{}, fmt.Errorf("%w: the body is over %d bytes", ErrNotAnEvent, MaxPushBytes)
	}
	var env pushEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return Event{}, fmt.Errorf("%w: the body is not a Pub/Sub push envelope: %v", ErrNotAnEvent, err)
	}
	a := env.Message.Attributes
	if a["ce-specversion"] != "1.0" || a["ce-id"] == "" || a["ce-type"] == "" || a["ce-subject"] == "" {
		return Event{}, fmt.Errorf("%w: message %s lacks the CloudEvents 1.0 attributes (ce-specversion, ce-id, ce-type, ce-subject)",
			ErrNotAnEvent, env.Message.MessageID)
	}
	data, err := base64.StdEncoding.DecodeString(env.Message.Data)
	if err != nil {
		return Event{}, fmt.Errorf("%w: message %s's data is not base64: %v", ErrNotAnEvent, env.Message.MessageID, err)
	}
	if !json.Valid(data) {
		return Event{}, fmt.Errorf("%w: message %s's data is not JSON", ErrNotAnEvent, env.Message.MessageID)
	}
	ev := Event{ID: a["ce-id"], Type: a["ce-type"], Source: a["ce-source"], Subject: a["ce-subject"], Data: data,
		MessageID: env.Message.MessageID, Attempt: env.DeliveryAttempt}
	if t := a["ce-time"]; t != "" {
		if ev.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return Event{}, fmt.Errorf("%w: ce-time %s is not RFC 3339", ErrNotAnEvent, strconv.Quote(t))
		}
	}
	return ev, nil
}
