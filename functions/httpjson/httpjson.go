// Package httpjson writes roomlease's JSON responses, and its one error
// shape, {"error": {"code": "...", "message": "..."}}, for every function:
// the client API, the Sweep endpoint and the root package's start-up guard.
package httpjson

import (
	"encoding/json"
	"net/http"
)

// Write answers with status and body encoded as JSON. Responses are never
// cached: they describe presence at one instant.
func Write(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}

// ErrorBody is the documented error shape.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is a snake_case code and a message safe to show a client.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WriteError answers with status and the error shape.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	Write(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: message}})
}
