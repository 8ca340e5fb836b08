package terraform

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	fnconfig "github.com/roomlease/roomlease/functions/config"
	"github.com/roomlease/roomlease/functions/firestoredb"
)

// These tests keep three descriptions of the Firestore layout in step: the
// application's constants (functions/firestoredb), the emulator's
// firestore/firestore.indexes.json, and this Terraform configuration. They
// read the .tf files with the HCL parser, so they need neither Terraform nor
// a provider; scripts/check-terraform covers what only Terraform can check.

func TestTerraform_TTLPolicies(t *testing.T) {
	cfg := mustLoadConfig(t)

	t.Run("CollectionGroupsMatchSchema", func(t *testing.T) {
		var groups []string
		cfg.mustDecodeLocal(t, "ttl_collection_groups", &groups)
		want := firestoredb.TTLCollectionGroups
		if !sameSet(groups, want) {
			t.Errorf("local.ttl_collection_groups = %q, want the groups of firestoredb.TTLCollectionGroups %q", groups, want)
		}
	})

	t.Run("FieldMatchesSchema", func(t *testing.T) {
		var field string
		cfg.mustDecodeLocal(t, "ttl_field", &field)
		if field != firestoredb.FieldExpireAt {
			t.Errorf("local.ttl_field = %q, want firestoredb.FieldExpireAt %q", field, firestoredb.FieldExpireAt)
		}
	})

	// The locals only matter if the resource is built from them, with a TTL
	// policy and with indexing off.
	t.Run("ResourceBuiltFromLocals", func(t *testing.T) {
		r := cfg.mustResource(t, "google_firestore_field", "ttl")
		assertReferences(t, r, "for_each", "local.ttl_collection_groups")
		assertReferences(t, r, "field", "local.ttl_field")
		assertReferences(t, r, "collection", "each.key")
		if len(r.blocks("ttl_config")) != 1 {
			t.Errorf("google_firestore_field.ttl: want one ttl_config block, got %d", len(r.blocks("ttl_config")))
		}
		ic := r.blocks("index_config")
		if len(ic) != 1 {
			t.Fatalf("google_firestore_field.ttl: want one index_config block, got %d", len(ic))
		}
		if len(ic[0].Body.Attributes) != 0 || len(ic[0].Body.Blocks) != 0 {
			t.Errorf("google_firestore_field.ttl: index_config must be empty (indexing off), at %s", ic[0].DefRange())
		}
	})
}

func TestTerraform_Indexes(t *testing.T) {
	cfg := mustLoadConfig(t)
	want := mustLoadIndexesJSON(t)

	t.Run("CompositeIndexesMatchJSON", func(t *testing.T) {
		var got []struct {
			Collection string `json:"collection"`
			QueryScope string `json:"query_scope"`
			Fields     []struct {
				FieldPath   string `json:"field_path"`
				Order       string `json:"order"`
				ArrayConfig string `json:"array_config"`
			} `json:"fields"`
		}
		cfg.mustDecodeLocal(t, "composite_indexes", &got)

		var gotKeys, wantKeys []string
		for _, idx := range got {
			var fields []string
			for _, f := range idx.Fields {
				fields = append(fields, indexFieldKey(f.FieldPath, f.Order, f.ArrayConfig))
			}
			gotKeys = append(gotKeys, compositeKey(idx.Collection, idx.QueryScope, fields))
		}
		for _, idx := range want.Indexes {
			var fields []string
			for _, f := range idx.Fields {
				fields = append(fields, indexFieldKey(f.FieldPath, f.Order, f.ArrayConfig))
			}
			wantKeys = append(wantKeys, compositeKey(idx.CollectionGroup, idx.QueryScope, fields))
		}
		assertSameKeys(t, "composite indexes", gotKeys, wantKeys)
	})

	// In the JSON, TTL policies are field overrides like any other; in
	// Terraform they come from the TTL locals. Both sides are reduced to the
	// same form and compared as a whole.
	t.Run("FieldOverridesMatchJSON", func(t *testing.T) {
		var groups []string
		var ttlField string
		cfg.mustDecodeLocal(t, "ttl_collection_groups", &groups)
		cfg.mustDecodeLocal(t, "ttl_field", &ttlField)
		var overrides []struct {
			Collection string `json:"collection"`
			Field      string `json:"field"`
			Indexes    []struct {
				Order       string `json:"order"`
				ArrayConfig string `json:"array_config"`
				QueryScope  string `json:"query_scope"`
			} `json:"indexes"`
		}
		cfg.mustDecodeLocal(t, "field_index_overrides", &overrides)

		var gotKeys, wantKeys []string
		for _, g := range groups {
			gotKeys = append(gotKeys, overrideKey(g, ttlField, true, nil))
		}
		for _, o := range overrides {
			var idx []string
			for _, i := range o.Indexes {
				idx = append(idx, indexFieldKey(i.QueryScope, i.Order, i.ArrayConfig))
			}
			gotKeys = append(gotKeys, overrideKey(o.Collection, o.Field, false, idx))
		}
		for _, o := range want.FieldOverrides {
			var idx []string
			for _, i := range o.Indexes {
				// Firestore's default query scope for a field index is COLLECTION.
				scope := i.QueryScope
				if scope == "" {
					scope = "COLLECTION"
				}
				idx = append(idx, indexFieldKey(scope, i.Order, i.ArrayConfig))
			}
			wantKeys = append(wantKeys, overrideKey(o.CollectionGroup, o.FieldPath, o.TTL, idx))
		}
		assertSameKeys(t, "field overrides", gotKeys, wantKeys)
	})

	t.Run("ResourcesBuiltFromLocals", func(t *testing.T) {
		assertReferences(t, cfg.mustResource(t, "google_firestore_index", "composite"), "for_each", "local.composite_indexes")
		assertReferences(t, cfg.mustResource(t, "google_firestore_field", "index_override"), "for_each", "local.field_index_overrides")
	})

	// Every Firestore index or field resource must come from the locals
	// checked above; one written out by hand would escape this test.
	t.Run("NoOtherIndexResources", func(t *testing.T) {
		allowed := []string{
			"google_firestore_field.ttl",
			"google_firestore_field.index_override",
			"google_firestore_index.composite",
		}
		for _, r := range cfg.resources {
			if r.typ != "google_firestore_field" && r.typ != "google_firestore_index" {
				continue
			}
			if !slices.Contains(allowed, r.address()) {
				t.Errorf("%s (%s) is not built from the locals this test compares with firestore.indexes.json; add it to a local list instead", r.address(), r.block.DefRange())
			}
		}
	})
}

// The sweeper may be invoked by the scheduler's service account and nobody
// else: every IAM resource that mentions the Sweep function is listed here.
func TestTerraform_SweepInvokedOnlyByScheduler(t *testing.T) {
	cfg := mustLoadConfig(t)

	var grants []*resource
	for _, r := range cfg.resources {
		if !strings.Contains(r.typ, "_iam_") {
			continue
		}
		for _, attr := range r.block.Body.Attributes {
			if referencesPrefix(attr.Expr, "google_cloudfunctions2_function.sweep") {
				grants = append(grants, r)
				break
			}
		}
	}
	if len(grants) != 1 {
		var names []string
		for _, g := range grants {
			names = append(names, g.address())
		}
		t.Fatalf("want exactly one IAM grant on the Sweep function, got %d: %v", len(grants), names)
	}
	g := grants[0]
	if !strings.HasSuffix(g.typ, "_iam_member") {
		t.Errorf("%s: want an _iam_member (additive, one member), got %s", g.address(), g.typ)
	}
	assertReferences(t, g, "member", "google_service_account.scheduler.member")
	var role string
	mustLiteral(t, g, "role", &role)
	if role != "roles/run.invoker" {
		t.Errorf("%s: role = %q, want roles/run.invoker", g.address(), role)
	}
}

// The database Terraform sets up is the one the functions are told to use,
// and the one every Firestore resource configures.
func TestTerraform_Database(t *testing.T) {
	cfg := mustLoadConfig(t)

	t.Run("FunctionsToldWhichDatabase", func(t *testing.T) {
		env := cfg.mustObjectLocal(t, "common_env")
		v, ok := env[fnconfig.EnvDatabase]
		if !ok {
			t.Fatalf("local.common_env does not set %s", fnconfig.EnvDatabase)
		}
		if !exprReferences(v, "local.database_id") {
			t.Errorf("local.common_env.%s (%s) does not refer to local.database_id", fnconfig.EnvDatabase, v.Range())
		}
	})

	t.Run("DatabaseFromVariableOrCreated", func(t *testing.T) {
		id, ok := cfg.locals["database_id"]
		if !ok {
			t.Fatal("local.database_id not found")
		}
		for _, ref := range []string{"local.database_name", "var.create_database", "google_firestore_database.this[].name"} {
			if !exprReferences(id.Expr, ref) {
				t.Errorf("local.database_id (%s) does not refer to %s", id.SrcRange, ref)
			}
		}
		assertReferences(t, cfg.mustResource(t, "google_firestore_database", "this"), "name", "local.database_name")
		// database_id if set, else the instance's prefix.
		name, ok := cfg.locals["database_name"]
		if !ok {
			t.Fatal("local.database_name not found")
		}
		for _, ref := range []string{"var.database_id", "var.name_prefix"} {
			if !exprReferences(name.Expr, ref) {
				t.Errorf("local.database_name (%s) does not refer to %s", name.SrcRange, ref)
			}
		}
	})

	// Terraform's check of database_id and the functions' check of
	// ROOMLEASE_DATABASE must agree: an id Terraform accepts but the
	// functions refuse would deploy functions that never start. The id
	// defaults to name_prefix, so its default must be a valid id too.
	t.Run("SameIDRuleAsTheFunctions", func(t *testing.T) {
		path := filepath.Join(moduleDir, "variables.tf")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := hclparse.NewParser().ParseHCL(src, path)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		var variable, prefix *hclsyntax.Block
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			if b.Type == "variable" && len(b.Labels) == 1 && b.Labels[0] == "database_id" {
				variable = b
			}
			if b.Type == "variable" && len(b.Labels) == 1 && b.Labels[0] == "name_prefix" {
				prefix = b
			}
		}
		if variable == nil || prefix == nil {
			t.Fatal(`variable "database_id" or "name_prefix" not found in variables.tf`)
		}
		def, diags := prefix.Body.Attributes["default"].Expr.Value(nil)
		if diags.HasErrors() || !def.Type().Equals(cty.String) {
			t.Fatalf("var.name_prefix: the default must be a literal string (%s)", diags.Error())
		}
		if err := fnconfig.CheckDatabaseID(def.AsString()); err != nil {
			t.Errorf("var.name_prefix's default, the default database id: %v", err)
		}
		var conditions []string
		for _, v := range variable.Body.Blocks {
			if c, ok := v.Body.Attributes["condition"]; v.Type == "validation" && ok {
				r := c.Expr.Range()
				conditions = append(conditions, string(src[r.Start.Byte:r.End.Byte]))
			}
		}
		want := "regex(" + strconv.Quote(fnconfig.DatabaseIDPattern) + ","
		if !slices.ContainsFunc(conditions, func(c string) bool { return strings.Contains(c, want) }) {
			t.Errorf("var.database_id's validation %q does not use %s, the pattern config.CheckDatabaseID uses", conditions, want)
		}
	})

	t.Run("EveryFirestoreResourceUsesIt", func(t *testing.T) {
		for _, r := range cfg.resources {
			if r.typ == "google_firestore_field" || r.typ == "google_firestore_index" {
				assertReferences(t, r, "database", "local.database_id")
			}
		}
	})
}

// Every setting the functions read is one Terraform sets, so that none can
// be changed only by editing the module. The exceptions are deliberate.
func TestTerraform_EverySettingIsAVariable(t *testing.T) {
	cfg := mustLoadConfig(t)
	known := mustEnvNames(t, filepath.Join("..", "functions", "config"))
	notSet := map[string]string{
		"ROOMLEASE_SWEEP_INTERVAL":                "deprecated name of ROOMLEASE_SWEEP_MAX_PAUSE",
		"ROOMLEASE_ALLOW_EMULATORS_IN_PRODUCTION": "a local-development escape hatch, never deployed",
		"ROOMLEASE_LEASE_TOKEN_KEY":               "a secret: secret_environment_variables, from var.lease_token_key",
		"ROOMLEASE_SERVER_TIMING":                 "benchmarks only: replies that tell how busy the backend is",
	}
	set := cfg.envNames(t)
	for name := range known {
		if !set[name] && notSet[name] == "" {
			t.Errorf("functions/config reads %s, which local.common_env does not set: add a variable for it", name)
		}
	}
}

// The lease-token key reaches both functions as a secret, never as a plain
// environment variable (which anyone with read access to the function sees).
func TestTerraform_LeaseTokenKeyIsASecret(t *testing.T) {
	cfg := mustLoadConfig(t)
	if _, plain := cfg.mustObjectLocal(t, "common_env")["ROOMLEASE_LEASE_TOKEN_KEY"]; plain {
		t.Error("local.common_env sets ROOMLEASE_LEASE_TOKEN_KEY in plain text")
	}
	secrets := cfg.mustObjectLocal(t, "lease_token_secrets")
	if _, ok := secrets["ROOMLEASE_LEASE_TOKEN_KEY"]; !ok {
		t.Error("local.lease_token_secrets does not map ROOMLEASE_LEASE_TOKEN_KEY")
	}
	for _, name := range []string{"presence", "sweep"} {
		f := cfg.mustResource(t, "google_cloudfunctions2_function", name)
		found := false
		hclsyntax.VisitAll(f.block.Body, func(n hclsyntax.Node) hcl.Diagnostics {
			if b, ok := n.(*hclsyntax.Block); ok && b.Type == "dynamic" && len(b.Labels) == 1 && b.Labels[0] == "secret_environment_variables" {
				if a, ok := b.Body.Attributes["for_each"]; ok && exprReferences(a.Expr, "local.lease_token_secrets") {
					found = true
				}
			}
			return nil
		})
		if !found {
			t.Errorf("%s: no secret_environment_variables built from local.lease_token_secrets", f.address())
		}
	}
}

// Every environment variable Terraform gives the functions must be one they
// read (a constant of functions/config), and none may be a deprecated name.
func TestTerraform_EnvironmentKnownToFunctions(t *testing.T) {
	cfg := mustLoadConfig(t)
	known := mustEnvNames(t, filepath.Join("..", "functions", "config"))
	deprecated := []string{"ROOMLEASE_SWEEP_INTERVAL"} // now ROOMLEASE_SWEEP_MAX_PAUSE

	set := cfg.envNames(t)
	for name := range set {
		if !known[name] {
			t.Errorf("Terraform sets %s, which functions/config does not read", name)
		}
		if slices.Contains(deprecated, name) {
			t.Errorf("Terraform sets the deprecated %s", name)
		}
	}
}

// With user credentials the Firebase Rules API refuses calls that name no
// quota project; terraform test cannot see provider settings, so this does,
// for every root that configures the provider. The module itself has none.
func TestTerraform_ProviderNamesQuotaProject(t *testing.T) {
	if _, ok := mustLoadConfig(t).providers["google"]; ok {
		t.Error("the module has a provider block; a module takes its provider from the caller")
	}
	for _, dir := range exampleDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkQuotaProject(t, mustLoadConfigIn(t, dir)) })
	}
}

func checkQuotaProject(t *testing.T, cfg *config) {
	p, ok := cfg.providers["google"]
	if !ok {
		t.Fatal("no provider \"google\" block")
	}
	r := &resource{typ: "provider", name: "google", block: p}
	var override bool
	mustLiteral(t, r, "user_project_override", &override)
	if !override {
		t.Error("provider google: user_project_override must be true")
	}
	assertReferences(t, r, "billing_project", "var.project_id")
}

// Every project-level grant goes through APIs that a fresh project may not
// have enabled yet, so each must wait for google_project_service.enabled.
func TestTerraform_ProjectIAMAfterAPIs(t *testing.T) {
	cfg := mustLoadConfig(t)
	for _, r := range cfg.resources {
		if r.typ != "google_project_iam_member" {
			continue
		}
		assertReferences(t, r, "depends_on", "google_project_service.enabled")
	}
}

// envNames returns the names of the environment variables Terraform gives
// either function: local.common_env's and those sweep_env adds.
func (c *config) envNames(t *testing.T) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	for name := range c.mustObjectLocal(t, "common_env") {
		set[name] = true
	}
	// sweep_env = merge(local.common_env, { ... })
	call, ok := c.locals["sweep_env"].Expr.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != "merge" {
		t.Fatalf("local.sweep_env must be merge(local.common_env, {...})")
	}
	for _, arg := range call.Args {
		if obj, ok := arg.(*hclsyntax.ObjectConsExpr); ok {
			for name := range mustObjectItems(t, obj, "local.sweep_env") {
				set[name] = true
			}
		}
	}
	return set
}

// --- Loading the configuration ---------------------------------------------

type config struct {
	locals    map[string]*hclsyntax.Attribute
	resources []*resource
	providers map[string]*hclsyntax.Block
}

type resource struct {
	typ, name string
	block     *hclsyntax.Block
}

func (r *resource) address() string { return r.typ + "." + r.name }

func (r *resource) blocks(typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range r.block.Body.Blocks {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

// Where the module and the roots that call it live.
const moduleDir = "modules/roomlease"

var exampleDirs = []string{"examples/basic", "examples/two-instances"}

// mustLoadConfig parses the module's .tf files (its subdirectories, such as
// tests, are not part of it, as for Terraform).
func mustLoadConfig(tb testing.TB) *config {
	tb.Helper()
	return mustLoadConfigIn(tb, moduleDir)
}

func mustLoadConfigIn(tb testing.TB, dir string) *config {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no .tf files found (err %v)", err)
	}
	parser := hclparse.NewParser()
	cfg := &config{locals: map[string]*hclsyntax.Attribute{}, providers: map[string]*hclsyntax.Block{}}
	for _, p := range paths {
		f, diags := parser.ParseHCLFile(p)
		if diags.HasErrors() {
			tb.Fatalf("parsing %s: %s", p, diags.Error())
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			switch b.Type {
			case "locals":
				for name, attr := range b.Body.Attributes {
					if prev, dup := cfg.locals[name]; dup {
						tb.Fatalf("local.%s defined twice: %s and %s", name, prev.SrcRange, attr.SrcRange)
					}
					cfg.locals[name] = attr
				}
			case "resource":
				cfg.resources = append(cfg.resources, &resource{typ: b.Labels[0], name: b.Labels[1], block: b})
			case "provider":
				cfg.providers[b.Labels[0]] = b
			}
		}
	}
	return cfg
}

// mustObjectLocal returns the items of a local written as an object
// constructor ({ KEY = expr, ... }), or built from some with merge() and
// conditionals, by key.
func (c *config) mustObjectLocal(tb testing.TB, name string) map[string]hclsyntax.Expression {
	tb.Helper()
	attr, ok := c.locals[name]
	if !ok {
		tb.Fatalf("local.%s not found", name)
	}
	items := map[string]hclsyntax.Expression{}
	var collect func(e hclsyntax.Expression)
	collect = func(e hclsyntax.Expression) {
		switch e := e.(type) {
		case *hclsyntax.ObjectConsExpr:
			for k, v := range mustObjectItems(tb, e, "local."+name) {
				items[k] = v
			}
		case *hclsyntax.FunctionCallExpr:
			if e.Name != "merge" {
				tb.Fatalf("local.%s: %s() at %s; only merge() of object constructors can be read", name, e.Name, e.Range())
			}
			for _, a := range e.Args {
				collect(a)
			}
		case *hclsyntax.ConditionalExpr:
			collect(e.TrueResult)
			collect(e.FalseResult)
		default:
			tb.Fatalf("local.%s (%s) must be an object constructor { ... } or merge() of them", name, e.Range())
		}
	}
	collect(attr.Expr)
	return items
}

func mustObjectItems(tb testing.TB, obj *hclsyntax.ObjectConsExpr, what string) map[string]hclsyntax.Expression {
	tb.Helper()
	items := map[string]hclsyntax.Expression{}
	for _, item := range obj.Items {
		k, diags := item.KeyExpr.Value(nil)
		if diags.HasErrors() || !k.Type().Equals(cty.String) {
			tb.Fatalf("%s: key at %s must be a literal name", what, item.KeyExpr.Range())
		}
		items[k.AsString()] = item.ValueExpr
	}
	return items
}

// mustEnvNames returns the string constants starting with ROOMLEASE_ that
// the Go files of dir declare: the environment variables the functions read.
func mustEnvNames(tb testing.TB, dir string) map[string]bool {
	tb.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		tb.Fatal(err)
	}
	names := map[string]bool{}
	for _, pkg := range pkgs {
		ast.Inspect(pkg, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "ROOMLEASE_") {
					names[s] = true
				}
			}
			return true
		})
	}
	if len(names) == 0 {
		tb.Fatalf("no ROOMLEASE_ names found in %s", dir)
	}
	return names
}

func (c *config) mustResource(tb testing.TB, typ, name string) *resource {
	tb.Helper()
	for _, r := range c.resources {
		if r.typ == typ && r.name == name {
			return r
		}
	}
	tb.Fatalf("resource %s.%s not found", typ, name)
	return nil
}

// mustDecodeLocal evaluates a local that must be a literal (no references,
// no function calls) and decodes it into v through its JSON form.
func (c *config) mustDecodeLocal(tb testing.TB, name string, v any) {
	tb.Helper()
	attr, ok := c.locals[name]
	if !ok {
		tb.Fatalf("local.%s not found", name)
	}
	mustDecodeLiteral(tb, attr, "local."+name, v)
}

func mustLiteral(tb testing.TB, r *resource, attrName string, v any) {
	tb.Helper()
	attr, ok := r.block.Body.Attributes[attrName]
	if !ok {
		tb.Fatalf("%s has no attribute %s", r.address(), attrName)
	}
	mustDecodeLiteral(tb, attr, r.address()+"."+attrName, v)
}

func mustDecodeLiteral(tb testing.TB, attr *hclsyntax.Attribute, what string, v any) {
	tb.Helper()
	val, diags := attr.Expr.Value(nil)
	if diags.HasErrors() {
		tb.Fatalf("%s must be a literal so that it can be checked here: %s", what, diags.Error())
	}
	buf, err := ctyjson.Marshal(val, val.Type())
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(buf, v); err != nil {
		tb.Fatalf("%s has an unexpected shape: %v (value %s)", what, err, buf)
	}
}

// assertReferences checks that attribute attrName of r refers to ref
// (for example "local.ttl_field"), directly or inside an expression.
func assertReferences(tb testing.TB, r *resource, attrName, ref string) {
	tb.Helper()
	attr, ok := r.block.Body.Attributes[attrName]
	if !ok {
		tb.Errorf("%s has no attribute %s", r.address(), attrName)
		return
	}
	if !exprReferences(attr.Expr, ref) {
		tb.Errorf("%s.%s (%s) does not refer to %s", r.address(), attrName, attr.SrcRange, ref)
	}
}

func exprReferences(expr hclsyntax.Expression, ref string) bool {
	for _, tr := range expr.Variables() {
		if traversalString(tr) == ref {
			return true
		}
	}
	return false
}

func referencesPrefix(expr hclsyntax.Expression, prefix string) bool {
	for _, tr := range expr.Variables() {
		s := traversalString(tr)
		if s == prefix || strings.HasPrefix(s, prefix+".") || strings.HasPrefix(s, prefix+"[") {
			return true
		}
	}
	return false
}

// traversalString renders the attribute steps of a traversal, e.g.
// "google_service_account.scheduler.member"; index steps become "[]".
func traversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		default:
			b.WriteString("[]")
		}
	}
	return b.String()
}

// --- firestore.indexes.json ------------------------------------------------

type indexesJSON struct {
	Indexes []struct {
		CollectionGroup string `json:"collectionGroup"`
		QueryScope      string `json:"queryScope"`
		Fields          []struct {
			FieldPath   string `json:"fieldPath"`
			Order       string `json:"order"`
			ArrayConfig string `json:"arrayConfig"`
		} `json:"fields"`
	} `json:"indexes"`
	FieldOverrides []struct {
		CollectionGroup string `json:"collectionGroup"`
		FieldPath       string `json:"fieldPath"`
		TTL             bool   `json:"ttl"`
		Indexes         []struct {
			Order       string `json:"order"`
			ArrayConfig string `json:"arrayConfig"`
			QueryScope  string `json:"queryScope"`
		} `json:"indexes"`
	} `json:"fieldOverrides"`
}

func mustLoadIndexesJSON(tb testing.TB) *indexesJSON {
	tb.Helper()
	buf, err := os.ReadFile(filepath.Join("..", "firestore", "firestore.indexes.json"))
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(buf)))
	// An unknown key would be silently ignored and could hide a difference.
	dec.DisallowUnknownFields()
	var v indexesJSON
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("firestore.indexes.json: %v", err)
	}
	return &v
}

// --- Comparable forms -------------------------------------------------------

func indexFieldKey(name, order, arrayConfig string) string {
	if arrayConfig != "" {
		return name + " array:" + arrayConfig
	}
	return name + " " + order
}

func compositeKey(collection, scope string, fields []string) string {
	// Field order matters in a composite index, so it is kept.
	return fmt.Sprintf("%s (%s): %s", collection, scope, strings.Join(fields, ", "))
}

func overrideKey(collection, field string, ttl bool, indexes []string) string {
	// The indexes of one field are a set.
	slices.Sort(indexes)
	return fmt.Sprintf("%s.%s ttl=%t indexes=[%s]", collection, field, ttl, strings.Join(indexes, "; "))
}

func assertSameKeys(tb testing.TB, what string, got, want []string) {
	tb.Helper()
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	if slices.Equal(got, want) {
		return
	}
	tb.Errorf("%s differ between Terraform and firestore/firestore.indexes.json\nTerraform:\n  %s\nJSON:\n  %s",
		what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b) && len(slices.Compact(a)) == len(a)
}
