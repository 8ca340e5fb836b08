package client_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// `go get github.com/roomlease/roomlease/clients/go` resolves only if this
// module's path is the repository's (the root module's path) followed by
// the folder it sits in: Go finds a module in a subdirectory of a
// repository by that folder, and its release tags by the same prefix
// (clients/go/vX.Y.Z, as scripts/release tags them).
func TestModulePath_ResolvesFromTheRepository(t *testing.T) {
	module := regexp.MustCompile(`(?m)^module (\S+)$`)
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := module.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s names no module", path)
		}
		return string(m[1])
	}
	root, own := read(filepath.Join("..", "..", "go.mod")), read("go.mod")
	if want := root + "/clients/go"; own != want {
		t.Fatalf("clients/go/go.mod is module %s, want %s: the repository's path and this folder", own, want)
	}
}
