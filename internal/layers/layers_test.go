package layers

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/roomlease/roomlease"

// layer is what a package of this module is for; the rules below say what
// each may import.
type layer string

const (
	domain     layer = "domain"      // the presence model and its ports: the standard library only
	adapter    layer = "adapter"     // implements or consumes the ports: the domain and leaves
	leaf       layer = "leaf"        // a small utility: nothing of this module
	wiring     layer = "wiring"      // builds the app: anything under functions/
	function   layer = "function"    // the root package the buildpack compiles: wiring and leaves
	command    layer = "command"     // a main package
	client     layer = "client"      // the Go client: nothing of this module
	benchmark  layer = "benchmark"   // bench/: the domain, adapters, leaves and the client
	testHelper layer = "test helper" // imported by tests only
	testOnly   layer = "test only"   // a package that holds only tests
	example    layer = "example"     // an app of a roomlease user: the Go client only
)

// layers classifies every package of the module. A package missing here
// fails the test: a new package must say what it is.
var layers = map[string]layer{
	"":                      function,
	"functions/presence":    domain,
	"functions/firestoredb": adapter,
	"functions/httpapi":     adapter,
	"functions/sweep":       adapter,
	"functions/summarize":   adapter,
	"functions/auth":        adapter,
	"functions/appcheck":    adapter,
	// Pub/Sub: the events' one publisher (CloudEvents on the topic).
	"functions/pubsubevents": adapter,
	"functions/logging":      leaf,
	"functions/httpjson":     leaf,
	"functions/ratelimit":    leaf,
	"functions/memo":         leaf,
	"functions/leasetoken":   leaf,
	"functions/steptime":     leaf,
	// The configuration reads and validates the settings that the wiring
	// hands to each adapter, in that adapter's own option types.
	"functions/config":      wiring,
	"functions/app":         wiring,
	"cmd/roomlease-dev":     command,
	"cmd/roomlease-load":    command,
	"cmd/roomlease-events":  command,    // tails the presence events (scripts/dev)
	"clients/go":            client,     // a module of its own: see clientmodule_test.go
	"clients/go/clienttest": testHelper, // the client's own tests and clientintegration share it
	// Folding events into a roster, for consumers: the client's module.
	"clients/go/eventfold":  client,
	"bench":                 benchmark,
	"bench/chaos":           benchmark,
	"bench/emuprofile":      benchmark,
	"bench/fanout":          benchmark,
	"bench/fleet":           benchmark,
	"bench/harness":         benchmark,
	"bench/measure":         benchmark,
	"bench/naive":           benchmark,
	"bench/render":          benchmark,
	"bench/sharedreads":     benchmark,
	"bench/emuscan":         benchmark,
	"bench/workload":        benchmark,
	"internal/testclock":    testHelper,
	"internal/testlog":      testHelper,
	"internal/emulatortest": testHelper,
	"internal/appchecktest": testHelper,
	"internal/faultproxy":   testHelper,
	"internal/devserver":    testHelper,
	"internal/oidctest":     testHelper, // a fake Google ID-token issuer
	// The events consumer's helper, in the client's module.
	"clients/go/events": client,
	"internal/layers":   testOnly,
	// A backend consuming the presence events, as an app would write it.
	"examples/support-backend": example,
	"terraform":                testOnly,

	// The Go client's tests against the dev server, in this module
	// because they run it.
	"internal/clientintegration": testOnly,
	// Events end to end: the dev server's API to a Pub/Sub subscriber.
	"internal/eventsintegration": testOnly,
}

// allowed says which layers of this module a package of each layer may
// import outside its tests; the domain's limit to the standard library,
// and test helpers' limit to tests, are checked on their own.
var allowed = map[layer][]layer{
	domain:     nil,
	adapter:    {domain, leaf},
	leaf:       nil,
	wiring:     {domain, adapter, leaf, wiring},
	function:   {wiring, leaf},
	command:    {function, wiring, leaf, domain, adapter, benchmark},
	client:     {client}, // the client module's packages build on each other (events on eventfold), never on the server
	benchmark:  {domain, adapter, leaf, client, benchmark},
	testHelper: {testHelper, client},
	testOnly:   nil,
	example:    {client},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestLayers_ImportRules(t *testing.T) {
	for _, p := range modulePackages(t) {
		for _, err := range check(p) {
			t.Error(err)
		}
	}
}

// check returns what breaks the rules in p's imports (tests excluded).
func check(p pkg) []error {
	name := rel(p.ImportPath)
	own, ok := layers[name]
	if !ok {
		return []error{fmt.Errorf("package %q is not classified: add it to the layers table of internal/layers", name)}
	}
	var errs []error
	for _, dep := range p.Imports {
		if own == domain && !standard(dep) {
			errs = append(errs, fmt.Errorf("the domain %s imports %s: it may import only the standard library", name, dep))
			continue
		}
		if !inModule(dep) {
			continue
		}
		depLayer, ok := layers[rel(dep)]
		switch {
		case !ok:
			continue // reported as its own package
		case depLayer == testHelper && own != testHelper:
			errs = append(errs, fmt.Errorf("%s imports the test helper %s outside its tests", name, rel(dep)))
		case !slices.Contains(allowed[own], depLayer):
			errs = append(errs, fmt.Errorf("%s (%s) imports %s (%s): a %s may import only %v of this module",
				name, own, rel(dep), depLayer, own, allowed[own]))
		}
	}
	return errs
}

// The rules themselves, shown to fail when broken.
func TestLayers_EachRuleFailsWhenBroken(t *testing.T) {
	tests := []struct {
		name string
		p    pkg
	}{
		{"the domain imports Firestore", pkg{module + "/functions/presence", []string{"cloud.google.com/go/firestore"}}},
		{"the domain imports a third-party module", pkg{module + "/functions/presence", []string{"golang.org/x/time/rate"}}},
		{"an adapter imports another", pkg{module + "/functions/sweep", []string{module + "/functions/firestoredb"}}},
		{"an adapter imports the wiring", pkg{module + "/functions/httpapi", []string{module + "/functions/app"}}},
		{"a leaf imports the domain", pkg{module + "/functions/memo", []string{module + "/functions/presence"}}},
		{"the wiring imports the benchmark", pkg{module + "/functions/config", []string{module + "/bench"}}},
		{"production code imports a test helper", pkg{module + "/bench", []string{module + "/internal/testclock"}}},
		{"the client imports the server", pkg{module + "/clients/go", []string{module + "/functions/presence"}}},
		{"an unclassified package", pkg{module + "/functions/newthing", nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if errs := check(tc.p); len(errs) == 0 {
				t.Fatal("the rule did not catch it")
			}
		})
	}
	if errs := check(pkg{module + "/functions/presence", []string{"context", "net/http"}}); len(errs) != 0 {
		t.Fatalf("the standard library is refused to the domain: %v", errs)
	}
}

// modulePackages lists every package of the module with its imports.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkg
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < len(layers)/2 {
		t.Fatalf("go list found %d packages; expected about %d", len(pkgs), len(layers))
	}
	return pkgs
}

func rel(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
}

func inModule(importPath string) bool {
	return importPath == module || strings.HasPrefix(importPath, module+"/")
}

// standard reports whether importPath is in the standard library: its
// first element has no dot.
func standard(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}
