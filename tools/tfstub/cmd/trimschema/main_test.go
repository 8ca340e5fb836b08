package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fullSchema = `{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/google":{
 "provider":{"version":0,"block":{"attributes":{"project":{"type":"string","optional":true}}}},
 "resource_schemas":{
  "google_storage_bucket":{"version":0,"block":{"attributes":{"name":{"type":"string","required":true}}}},
  "google_compute_instance":{"version":0,"block":{}}},
 "data_source_schemas":{"google_project":{"version":0,"block":{}},"google_compute_zones":{"version":0,"block":{}}},
 "ephemeral_resource_schemas":{"google_service_account_access_token":{"version":0,"block":{}}},
 "functions":{"region_from_zone":{}}}}}`

func writeTF(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTrim_KeepsOnlyUsedTypes(t *testing.T) {
	dir := t.TempDir()
	writeTF(t, dir, "main.tf", "resource \"google_storage_bucket\" \"b\" {}\ndata \"google_project\" \"p\" {}\n")
	// Types used only in a subdirectory (a module, a test fixture) count too.
	writeTF(t, filepath.Join(dir, "modules", "m"), "m.tf", "  resource \"google_storage_bucket\" \"again\" {}\n")
	// Providers and modules that terraform init downloaded do not.
	writeTF(t, filepath.Join(dir, ".terraform"), "x.tf", "resource \"google_compute_instance\" \"x\" {}\n")

	res, data, err := usedTypes([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := trim(strings.NewReader(fullSchema), res, data)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ProviderSchemas map[string]map[string]map[string]json.RawMessage `json:"provider_schemas"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	g := got.ProviderSchemas[providerAddress]
	if len(g["resource_schemas"]) != 1 || g["resource_schemas"]["google_storage_bucket"] == nil {
		t.Errorf("resource_schemas = %v, want only google_storage_bucket", keys(g["resource_schemas"]))
	}
	if len(g["data_source_schemas"]) != 1 || g["data_source_schemas"]["google_project"] == nil {
		t.Errorf("data_source_schemas = %v, want only google_project", keys(g["data_source_schemas"]))
	}
	if g["ephemeral_resource_schemas"] != nil || g["functions"] != nil {
		t.Errorf("ephemeral resources and functions must be dropped, got %s", out)
	}
	if _, ok := got.ProviderSchemas[providerAddress]["provider"]; !ok {
		t.Errorf("the provider block must be kept: %s", out)
	}
	// Same input, same bytes: the vendored file diffs only when the provider does.
	again, _ := trim(strings.NewReader(fullSchema), res, data)
	if string(again) != string(out) {
		t.Error("trimming twice gave different output")
	}
}

func TestTrim_RefusesTypesTheProviderLacks(t *testing.T) {
	_, err := trim(strings.NewReader(fullSchema), []string{"google_storage_bukket"}, nil)
	if err == nil || !strings.Contains(err.Error(), "google_storage_bukket") {
		t.Fatalf("err = %v, want it to name the unknown type", err)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
