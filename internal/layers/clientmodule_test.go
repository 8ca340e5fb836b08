package layers

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The Go client is a module of its own (clients/go) so that a service
// that imports it does not inherit the server's dependencies. The server
// module requires it through a replace directive, which would make it
// easy to slip back: one import of a server package from the client (even
// from a test) would need a require of the server module, and with it the
// Admin SDK. These tests run the go command in the client's module and
// fail if that happens.

const clientModule = module + "/clients/go"

// clientDir is the client module's directory, from this package's.
const clientDir = "../../clients/go"

// serverDependencies are modules the client must never need: the server
// itself and what only the server uses.
var serverDependencies = []string{
	module,
	"firebase.google.com/go",
	"github.com/GoogleCloudPlatform/functions-framework-go",
	"github.com/hashicorp/hcl",
	"cloud.google.com/go/firestore",
}

type clientPkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func TestClientModule_ImportsNothingOfTheServer(t *testing.T) {
	out := goCommand(t, "list", "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
	dec := json.NewDecoder(strings.NewReader(out))
	n := 0
	for {
		var p clientPkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		for _, err := range serverImports(p) {
			t.Error(err)
		}
	}
	if n == 0 {
		t.Fatal("go list found no package in the client's module")
	}
}

func TestClientModule_RequiresNoServerDependency(t *testing.T) {
	mods := strings.Fields(strings.ReplaceAll(goCommand(t, "list", "-m", "-f", "{{.Path}}", "all"), "\n", " "))
	if len(mods) == 0 || mods[0] != clientModule {
		t.Fatalf("go list -m all in %s: %v; want %s first", clientDir, mods, clientModule)
	}
	for _, err := range forbiddenModules(mods) {
		t.Error(err)
	}
}

// The checks themselves, shown to fail when broken.
func TestClientModule_ChecksFailWhenBroken(t *testing.T) {
	broken := []clientPkg{
		{ImportPath: clientModule, Imports: []string{module + "/functions/presence"}},
		{ImportPath: clientModule, TestImports: []string{module + "/internal/emulatortest"}},
		{ImportPath: clientModule + "_test", XTestImports: []string{module + "/functions/httpapi"}},
		{ImportPath: clientModule, Imports: []string{module}},
	}
	for _, p := range broken {
		if len(serverImports(p)) == 0 {
			t.Errorf("not caught: %+v", p)
		}
	}
	fine := clientPkg{ImportPath: clientModule + "_test", XTestImports: []string{clientModule, clientModule + "/clienttest", "net/http"}}
	if errs := serverImports(fine); len(errs) != 0 {
		t.Errorf("the client's own packages refused: %v", errs)
	}
	for _, mod := range []string{"firebase.google.com/go/v4", "github.com/GoogleCloudPlatform/functions-framework-go", "github.com/hashicorp/hcl/v2", module} {
		if len(forbiddenModules([]string{clientModule, mod})) == 0 {
			t.Errorf("a requirement of %s not caught", mod)
		}
	}
	if errs := forbiddenModules([]string{clientModule, "golang.org/x/sync"}); len(errs) != 0 {
		t.Errorf("an unrelated module refused: %v", errs)
	}
}

// serverImports returns an error for each import of p, its tests'
// included, from the server's module.
func serverImports(p clientPkg) []error {
	var errs []error
	for _, imports := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
		for _, dep := range imports {
			if inModule(dep) && dep != clientModule && !strings.HasPrefix(dep, clientModule+"/") {
				errs = append(errs, fmt.Errorf("the Go client's %s imports %s of the server's module", p.ImportPath, dep))
			}
		}
	}
	return errs
}

// forbiddenModules returns an error for each module of mods (go list -m
// all in the client's module) that is a server dependency.
func forbiddenModules(mods []string) []error {
	var errs []error
	for _, mod := range mods {
		if mod == clientModule {
			continue
		}
		for _, bad := range serverDependencies {
			if mod == bad || strings.HasPrefix(mod, bad+"/") {
				errs = append(errs, fmt.Errorf("the Go client's module needs %s, a dependency of the server only", mod))
			}
		}
	}
	return errs
}

// goCommand runs the go command in the client's module, outside any
// workspace, and returns its output.
func goCommand(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = clientDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), clientDir, err, stderr)
	}
	return string(out)
}
