// Command terraform-provider-google (built from tools/tfstub) is a stand-in
// for the hashicorp/google provider that knows the real provider's schema and
// nothing else. It lets `terraform validate` and `terraform test` with
// mock_provider run where the Terraform registry cannot be reached.
//
// What it does: it serves the schema that `terraform providers schema -json`
// printed for the real provider (resources, data sources, ephemeral
// resources, functions and the provider block), so Terraform core catches
// what the schema catches (unknown attributes and blocks, missing required
// ones, wrong types, block counts). On top of that it makes the value checks
// the real provider makes in code for the attributes roomlease's
// configuration sets (checks.go): IAM member formats, service account IDs,
// service names and enum values. Those checks run in `terraform validate`
// and, with mock_provider, in `terraform test` once mocked values are
// known, which is where a random mock string in an IAM member shows up. It
// plans a change as exactly the proposed state.
//
// What it does not do: it talks to no API, so it cannot apply, import, read
// data sources or call provider functions; those requests fail with an error
// that says so. It does not reproduce the provider's plan-time logic
// (CustomizeDiff, defaults, diff suppression, replacement decisions), nor
// value checks on attributes that checks.go does not list; a resource type
// new to the configuration fails this package's tests until it has been
// reviewed (reviewedTypes), a new attribute on a known type does not.
//
// The schema file is located by the -schema flag, else TFSTUB_SCHEMA, else
// the path baked in at build time with
//
//	go build -ldflags "-X main.defaultSchemaPath=/path/to/schema.json"
//
// because Terraform starts providers itself and passes them no arguments.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5/tf5server"
)

// providerAddress is the address Terraform expects this binary to serve.
// dev_overrides map hashicorp/google to the directory holding the binary.
const providerAddress = "registry.terraform.io/hashicorp/google"

// defaultSchemaPath is set with -ldflags -X at build time.
var defaultSchemaPath string

func main() {
	schemaPath := flag.String("schema", "", "path to the JSON printed by `terraform providers schema -json`")
	flag.Parse()

	path := *schemaPath
	if path == "" {
		path = os.Getenv("TFSTUB_SCHEMA")
	}
	if path == "" {
		path = defaultSchemaPath
	}
	if path == "" {
		fmt.Fprintln(os.Stderr, "tfstub: no schema file: pass -schema, set TFSTUB_SCHEMA or build with -ldflags -X main.defaultSchemaPath=...")
		os.Exit(2)
	}

	// Only the file's presence is checked here, so that a wrong path fails
	// the plugin handshake with a readable message. Reading it is left to
	// the first request that needs it (see Server).
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(os.Stderr, "tfstub: %v\n", err)
		os.Exit(1)
	}

	err := tf5server.Serve(providerAddress, func() tfprotov5.ProviderServer {
		return &Server{SchemaPath: path}
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "tfstub: %v\n", err)
		os.Exit(1)
	}
}
