package layers

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/roomlease/roomlease/"

// The rules, by package under functions/:
//   - the domain (presence) imports nothing of this module: it owns the
//     types and the ports everything else is written against;
//   - adapters implement or consume those ports and never import each other
//     or the wiring, so that any one of them can be replaced alone;
//   - leaves (logging, httpjson, ratelimit, memo) are small utilities that import nothing of
//     this module;
//   - only the wiring (app, config) may import adapters.
var (
	domain   = "functions/presence"
	adapters = []string{"functions/firestoredb", "functions/httpapi", "functions/sweep", "functions/auth", "functions/appcheck"}
	leaves   = []string{"functions/logging", "functions/httpjson", "functions/ratelimit", "functions/memo"}
	wiring   = []string{"functions/app", "functions/config"}
)

func TestLayers_ImportRules(t *testing.T) {
	imports := moduleImports(t)
	for _, pkg := range append(append([]string{domain}, adapters...), leaves...) {
		if _, ok := imports[pkg]; !ok {
			t.Fatalf("package %s not found by go list; update the rules in this test", pkg)
		}
	}
	for pkg, deps := range imports {
		for _, dep := range deps {
			switch {
			case pkg == domain || slices.Contains(leaves, pkg):
				t.Errorf("%s imports %s: the domain and the leaves import nothing of this module", pkg, dep)
			case slices.Contains(adapters, pkg) && (slices.Contains(adapters, dep) || slices.Contains(wiring, dep)):
				t.Errorf("adapter %s imports %s: adapters depend on the domain's ports, not on each other", pkg, dep)
			}
		}
	}
}

// moduleImports maps each package under functions/ to the packages of this
// module it imports (tests excluded), both without the module prefix.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"functions/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		m[pkg] = nil
		for _, dep := range fields[1:] {
			if rest, ok := strings.CutPrefix(dep, module); ok {
				m[pkg] = append(m[pkg], rest)
			}
		}
	}
	return m
}
