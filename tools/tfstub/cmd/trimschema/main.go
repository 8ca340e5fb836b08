// Command trimschema cuts the JSON that `terraform providers schema -json`
// prints for hashicorp/google (about 9 MB, 1 300 resource types) down to the
// resource and data source types a set of Terraform directories use, so that
// the offline checks can carry the schema inside the repository.
//
//	terraform providers schema -json | go run ./cmd/trimschema -out schema/google-7.45.0.json ../../terraform
//
// Every directory argument is searched recursively for *.tf files; the
// types named in their resource and data blocks are kept, with the provider
// block. Ephemeral resources and provider functions are dropped: the
// configuration uses none, and the stub serves nothing for them then. The
// output has sorted keys and a final newline, so that regenerating it from
// the same provider gives the same bytes and a provider upgrade gives a
// reviewable diff.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

const providerAddress = "registry.terraform.io/hashicorp/google"

func main() {
	in := flag.String("in", "-", "schema JSON to read (- for standard input)")
	out := flag.String("out", "-", "trimmed schema to write (- for standard output)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: trimschema [-in FILE] [-out FILE] TERRAFORM_DIR...")
		os.Exit(2)
	}
	if err := run(*in, *out, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "trimschema: %v\n", err)
		os.Exit(1)
	}
}

func run(inPath, outPath string, dirs []string) error {
	var r io.Reader = os.Stdin
	if inPath != "-" {
		f, err := os.Open(inPath)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	resources, dataSources, err := usedTypes(dirs)
	if err != nil {
		return err
	}
	trimmed, err := trim(r, resources, dataSources)
	if err != nil {
		return err
	}
	if outPath == "-" {
		_, err = os.Stdout.Write(trimmed)
		return err
	}
	return os.WriteFile(outPath, trimmed, 0o644)
}

var blockHeader = regexp.MustCompile(`(?m)^\s*(resource|data)\s+"([a-z0-9_]+)"`)

// usedTypes returns the google_* resource and data source types named in
// the *.tf files under dirs, sorted.
func usedTypes(dirs []string) (resources, dataSources []string, err error) {
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != dir {
				return filepath.SkipDir // .terraform/ holds modules and providers, not ours
			}
			if d.IsDir() || !strings.HasSuffix(path, ".tf") {
				return nil
			}
			buf, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range blockHeader.FindAllStringSubmatch(string(buf), -1) {
				if !strings.HasPrefix(m[2], "google_") {
					continue
				}
				if m[1] == "resource" {
					resources = append(resources, m[2])
				} else {
					dataSources = append(dataSources, m[2])
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	slices.Sort(resources)
	slices.Sort(dataSources)
	return slices.Compact(resources), slices.Compact(dataSources), nil
}

// trim keeps the provider block and the named types of the google provider's
// schema. Schemas are kept as raw JSON: trimming must not reinterpret them.
func trim(r io.Reader, resources, dataSources []string) ([]byte, error) {
	var file struct {
		FormatVersion   string                                `json:"format_version"`
		ProviderSchemas map[string]map[string]json.RawMessage `json:"provider_schemas"`
	}
	if err := json.NewDecoder(r).Decode(&file); err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	google, ok := file.ProviderSchemas[providerAddress]
	if !ok {
		return nil, fmt.Errorf("the schema has no %s provider", providerAddress)
	}
	pick := func(section string, names []string) (map[string]json.RawMessage, error) {
		var all map[string]json.RawMessage
		if raw, ok := google[section]; ok {
			if err := json.Unmarshal(raw, &all); err != nil {
				return nil, fmt.Errorf("%s: %w", section, err)
			}
		}
		kept := map[string]json.RawMessage{}
		var missing []string
		for _, n := range names {
			s, ok := all[n]
			if !ok {
				missing = append(missing, n)
				continue
			}
			kept[n] = s
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("the provider has no %s %s", strings.TrimSuffix(section, "_schemas"), strings.Join(missing, ", "))
		}
		return kept, nil
	}
	res, err := pick("resource_schemas", resources)
	if err != nil {
		return nil, err
	}
	data, err := pick("data_source_schemas", dataSources)
	if err != nil {
		return nil, err
	}
	provider, ok := google["provider"]
	if !ok {
		return nil, errors.New("the schema has no provider block")
	}
	out := map[string]any{
		"format_version": file.FormatVersion,
		"provider_schemas": map[string]any{
			providerAddress: map[string]any{
				"provider":            provider,
				"resource_schemas":    res,
				"data_source_schemas": data,
			},
		},
	}
	buf, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return nil, err
	}
	return append(buf, '\n'), nil
}
