// Package terraform holds no code. It exists so that config_test.go, which
// checks the Terraform configuration in this directory against the
// application's Firestore schema and firestore/firestore.indexes.json, runs
// with `go test ./...`.
//
// The configuration itself is checked by scripts/check-terraform (terraform
// fmt, validate and test against the google provider's schema).
package terraform
