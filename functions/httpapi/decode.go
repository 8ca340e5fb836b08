package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"unicode/utf8"

	"github.com/roomlease/roomlease/functions/presence"
)

// MaxBodyBytes bounds request bodies. The largest legitimate body (a join
// with a 64-character display name) is a few hundred bytes.
const MaxBodyBytes = 4 << 10

// decodeBody reads a JSON object into dst, strictly: the media type must be
// JSON, the body at most MaxBodyBytes of valid UTF-8 holding exactly one
// object with no unknown fields. encoding/json would otherwise replace
// invalid UTF-8 with U+FFFD and ignore unknown fields, silently accepting
// what the client did not mean.
func decodeBody(r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return errorf(eMediaType, "the body must be application/json")
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return errorf(presence.EInvalid, "the body could not be read")
	}
	if len(body) > MaxBodyBytes {
		return errorf(eTooLarge, "the body is larger than 4 KiB")
	}
	return decodeJSON(body, dst)
}

// decodeJSON is decodeBody's parsing half, separate so that it can be fuzzed.
func decodeJSON(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf(presence.EInvalid, "the body must be a JSON object")
	}
	if !utf8.Valid(body) {
		return errorf(presence.EInvalid, "the body must be UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			return errorf(presence.EInvalid, "field "+typeErr.Field+" has the wrong type")
		default:
			return errorf(presence.EInvalid, "the body is not valid JSON for this request: "+trimJSONError(err))
		}
	}
	if dec.More() {
		return errorf(presence.EInvalid, "the body must hold exactly one JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errorf(presence.EInvalid, "the body must hold exactly one JSON object")
	}
	return nil
}

// trimJSONError keeps encoding/json's explanation short and free of Go type
// names, which mean nothing to a client.
func trimJSONError(err error) string {
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120]
	}
	return msg
}
