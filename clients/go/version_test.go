package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	client "github.com/roomlease/roomlease/clients/go"
)

// Every request names the client and its version, so that the server can
// say whether it still serves it.
func TestClient_SendsItsVersion(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Roomlease-Client")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"code":"room_not_found","message":"m"}}`))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, client.StaticToken("t"))
	if err != nil {
		t.Fatal(err)
	}
	c.Room(context.Background(), "r")
	if h := <-got; h != "go/"+client.Version {
		t.Fatalf("Roomlease-Client = %q, want %q", h, "go/"+client.Version)
	}
}
