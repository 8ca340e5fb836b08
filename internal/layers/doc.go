// Package layers holds only a test: the import rules that keep roomlease's
// architecture what the README's layout says it is.
//
// Every package of the module is classified in one table (layers_test.go),
// and a package missing from it fails the test. The domain
// (functions/presence) imports only the standard library; adapters import
// the domain and leaves, never each other or the wiring; leaves and the Go
// client import nothing of this module; and no package outside the tests
// imports a test helper (internal/testclock, testlog, emulatortest,
// appchecktest, faultproxy, devserver).
//
// The Go client is a module of its own (clients/go): clientmodule_test.go
// runs the go command there and fails if the client or its tests import a
// package of the server's module, or if its module graph holds the server
// or a dependency only the server has (the Admin SDK, the Functions
// Framework, HCL, Firestore).
package layers
