// Package terraform holds no code. It exists so that config_test.go, which
// checks the module in modules/roomlease (and the provider blocks of the
// example roots in examples/) against the application's Firestore schema,
// its settings and firestore/firestore.indexes.json, runs with
// `go test ./...`.
//
// The configuration itself is checked by scripts/check-terraform (terraform
// fmt, validate, test and plans against the google provider's schema).
package terraform
