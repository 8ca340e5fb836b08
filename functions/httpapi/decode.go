package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/roomlease/roomlease/functions/presence"
)

// MaxBodyBytes bounds request bodies. The largest legitimate body (a join
// with a 64-character display name) is a few hundred bytes.
const MaxBodyBytes = 4 << 10

// decodeBody reads a JSON object into dst, strictly: a body must say it is
// JSON (Content-Type application/json, UTF-8 if a charset is named) and be
// at most MaxBodyBytes, then decodeJSON applies. The media type is checked
// only when there is a body: an empty one is refused as not an object.
func decodeBody(r *http.Request, dst any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return errorf(presence.EInvalid, "the body could not be read")
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := checkMediaType(r.Header.Get("Content-Type")); err != nil {
			return err
		}
	}
	if len(body) > MaxBodyBytes {
		return errorf(presence.ETooLarge, "the body is larger than 4 KiB")
	}
	return decodeJSON(body, dst)
}

// checkMediaType accepts application/json, with or without a charset
// parameter naming UTF-8 (OkHttp and some browsers add one). A body sent
// without a type, as text/plain (what a cross-origin form or a "simple"
// fetch sends, which skips the CORS preflight) or in another charset is not
// read as JSON.
func checkMediaType(contentType string) error {
	if contentType == "" {
		return errorf(eMediaType, "a request body needs Content-Type: application/json")
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		return errorf(eMediaType, "the body must be application/json")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return errorf(eMediaType, "the body must be UTF-8 JSON (charset=utf-8)")
	}
	return nil
}

// decodeJSON is decodeBody's parsing half, separate so that it can be
// fuzzed. The body must be valid UTF-8 holding exactly one JSON object whose
// keys are dst's field names, exactly (case included) and each at most once.
// encoding/json alone would replace invalid UTF-8 with U+FFFD, match keys
// case-insensitively, let the last of two equal keys win and decode null
// into nothing, silently accepting what the client did not mean.
func decodeJSON(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf(presence.EInvalid, "the body must be a JSON object")
	}
	if !utf8.Valid(body) {
		return errorf(presence.EInvalid, "the body must be UTF-8")
	}
	if err := checkKeys(body, jsonFields(dst)); err != nil {
		return err
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
