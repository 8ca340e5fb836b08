package client_test

import (
	"testing"

	"github.com/roomlease/roomlease/functions/httpapi"
)

// The table above is the client's knowledge of the server's errors; the
// server's own table (httpapi.ErrorStatuses) is the truth. Every code the
// server can send must be in the client's table with the status the server
// sends it with, so that a code added to the server without a sentinel
// fails here, rather than reaching callers as an unknown error.
func TestAPIError_TheClientKnowsEveryCodeTheServerSends(t *testing.T) {
	known := map[string]int{}
	for _, tc := range table {
		known[tc.code] = tc.status
	}
	server := httpapi.ErrorStatuses()
	if len(server) == 0 {
		t.Fatal("the server's table is empty")
	}
	for code, status := range server {
		if got, ok := known[code]; !ok {
			t.Errorf("the server sends %q (%d), which the client's table lacks", code, status)
		} else if got != status {
			t.Errorf("the server sends %q with %d, the client's table says %d", code, status, got)
		}
	}
}
