// Package clientintegration holds only tests: the Go client
// (github.com/roomlease/roomlease/clients/go, a module of its own) against
// the real dev server on the Firestore and Auth emulators, as scripts/test
// starts them. They live in the server's module because they build and run
// cmd/roomlease-dev, which the client's module must not require; the
// client's own tests (clients/go) use stub servers and a manual clock.
package clientintegration
