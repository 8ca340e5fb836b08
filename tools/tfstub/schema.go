package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ProviderSchema is one provider's schema, converted to the plugin protocol's
// types once at start-up.
type ProviderSchema struct {
	Provider           *tfprotov5.Schema
	Resources          map[string]*tfprotov5.Schema
	DataSources        map[string]*tfprotov5.Schema
	EphemeralResources map[string]*tfprotov5.Schema
	Functions          map[string]*tfprotov5.Function
}

// The structs below mirror the subset of the `terraform providers schema
// -json` format (format_version 1.0) that a schema needs. Fields the protocol
// has no use for, such as description_kind, are ignored.
type jsonSchemaFile struct {
	FormatVersion   string                        `json:"format_version"`
	ProviderSchemas map[string]jsonProviderSchema `json:"provider_schemas"`
}

type jsonProviderSchema struct {
	Provider           jsonSchema              `json:"provider"`
	Resources          map[string]jsonSchema   `json:"resource_schemas"`
	DataSources        map[string]jsonSchema   `json:"data_source_schemas"`
	EphemeralResources map[string]jsonSchema   `json:"ephemeral_resource_schemas"`
	Functions          map[string]jsonFunction `json:"functions"`
}

type jsonSchema struct {
	Version int64     `json:"version"`
	Block   jsonBlock `json:"block"`
}

type jsonBlock struct {
	Attributes  map[string]jsonAttribute `json:"attributes"`
	BlockTypes  map[string]jsonBlockType `json:"block_types"`
	Description string                   `json:"description"`
	Deprecated  bool                     `json:"deprecated"`
}

type jsonAttribute struct {
	Type        json.RawMessage `json:"type"`
	NestedType  json.RawMessage `json:"nested_type"`
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Optional    bool            `json:"optional"`
	Computed    bool            `json:"computed"`
	Sensitive   bool            `json:"sensitive"`
	Deprecated  bool            `json:"deprecated"`
	WriteOnly   bool            `json:"write_only"`
}

type jsonBlockType struct {
	NestingMode string    `json:"nesting_mode"`
	Block       jsonBlock `json:"block"`
	MinItems    int64     `json:"min_items"`
	MaxItems    int64     `json:"max_items"`
}

type jsonFunction struct {
	Summary           string              `json:"summary"`
	Description       string              `json:"description"`
	ReturnType        json.RawMessage     `json:"return_type"`
	Parameters        []jsonFunctionParam `json:"parameters"`
	VariadicParameter *jsonFunctionParam  `json:"variadic_parameter"`
}

type jsonFunctionParam struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Type        json.RawMessage `json:"type"`
	IsNullable  bool            `json:"is_nullable"`
}

// LoadSchema reads a `terraform providers schema -json` file and converts the
// schema of the provider at address. It fails if the file cannot be read or
// parsed, if it does not describe that provider, or if any type in it is not
// a valid type constraint.
func LoadSchema(path, address string) (*ProviderSchema, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading schema: %w", err)
	}
	var file jsonSchemaFile
	if err := json.Unmarshal(buf, &file); err != nil {
		return nil, fmt.Errorf("parsing schema %s: %w", path, err)
	}
	if file.FormatVersion != "1.0" {
		return nil, fmt.Errorf("schema %s: format_version %q, want \"1.0\"", path, file.FormatVersion)
	}
	js, ok := file.ProviderSchemas[address]
	if !ok {
		return nil, fmt.Errorf("schema %s has no provider %q", path, address)
	}

	ps := &ProviderSchema{
		Resources:          map[string]*tfprotov5.Schema{},
		DataSources:        map[string]*tfprotov5.Schema{},
		EphemeralResources: map[string]*tfprotov5.Schema{},
		Functions:          map[string]*tfprotov5.Function{},
	}
	if ps.Provider, err = convertSchema(js.Provider); err != nil {
		return nil, fmt.Errorf("provider block: %w", err)
	}
	for _, set := range []struct {
		kind string
		in   map[string]jsonSchema
		out  map[string]*tfprotov5.Schema
	}{
		{"resource", js.Resources, ps.Resources},
		{"data source", js.DataSources, ps.DataSources},
		{"ephemeral resource", js.EphemeralResources, ps.EphemeralResources},
	} {
		for name, s := range set.in {
			if set.out[name], err = convertSchema(s); err != nil {
				return nil, fmt.Errorf("%s %s: %w", set.kind, name, err)
			}
		}
	}
	for name, f := range js.Functions {
		if ps.Functions[name], err = convertFunction(f); err != nil {
			return nil, fmt.Errorf("function %s: %w", name, err)
		}
	}
	return ps, nil
}

func convertSchema(s jsonSchema) (*tfprotov5.Schema, error) {
	b, err := convertBlock(s.Block)
	if err != nil {
		return nil, err
	}
	return &tfprotov5.Schema{Version: s.Version, Block: b}, nil
}

func convertBlock(jb jsonBlock) (*tfprotov5.SchemaBlock, error) {
	b := &tfprotov5.SchemaBlock{
		Description: jb.Description,
		Deprecated:  jb.Deprecated,
	}
	// Sorted so that the schema Terraform receives is the same on every run;
	// map order would otherwise leak into diagnostics.
	for _, name := range sortedKeys(jb.Attributes) {
		ja := jb.Attributes[name]
		// Protocol 5 has no nested attribute types; the google provider
		// (itself a protocol 5 provider) never reports them.
		if len(ja.NestedType) > 0 {
			return nil, fmt.Errorf("attribute %s: nested_type needs protocol 6, which this stub does not serve", name)
		}
		t, err := tftypes.ParseJSONType(ja.Type)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		b.Attributes = append(b.Attributes, &tfprotov5.SchemaAttribute{
			Name:        name,
			Type:        t,
			Description: ja.Description,
			Required:    ja.Required,
			Optional:    ja.Optional,
			Computed:    ja.Computed,
			Sensitive:   ja.Sensitive,
			Deprecated:  ja.Deprecated,
			WriteOnly:   ja.WriteOnly,
		})
	}
	for _, name := range sortedKeys(jb.BlockTypes) {
		jt := jb.BlockTypes[name]
		mode, err := nestingMode(jt.NestingMode)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		nested, err := convertBlock(jt.Block)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		b.BlockTypes = append(b.BlockTypes, &tfprotov5.SchemaNestedBlock{
			TypeName: name,
			Block:    nested,
			Nesting:  mode,
			MinItems: jt.MinItems,
			MaxItems: jt.MaxItems,
		})
	}
	return b, nil
}

func nestingMode(s string) (tfprotov5.SchemaNestedBlockNestingMode, error) {
	switch s {
	case "single":
		return tfprotov5.SchemaNestedBlockNestingModeSingle, nil
	case "list":
		return tfprotov5.SchemaNestedBlockNestingModeList, nil
	case "set":
		return tfprotov5.SchemaNestedBlockNestingModeSet, nil
	case "map":
		return tfprotov5.SchemaNestedBlockNestingModeMap, nil
	case "group":
		return tfprotov5.SchemaNestedBlockNestingModeGroup, nil
	}
	return tfprotov5.SchemaNestedBlockNestingModeInvalid, fmt.Errorf("unknown nesting_mode %q", s)
}

func convertFunction(jf jsonFunction) (*tfprotov5.Function, error) {
	ret, err := tftypes.ParseJSONType(jf.ReturnType)
	if err != nil {
		return nil, fmt.Errorf("return type: %w", err)
	}
	f := &tfprotov5.Function{
		Summary:     jf.Summary,
		Description: jf.Description,
		Return:      &tfprotov5.FunctionReturn{Type: ret},
	}
	for _, jp := range jf.Parameters {
		p, err := convertParam(jp)
		if err != nil {
			return nil, err
		}
		f.Parameters = append(f.Parameters, p)
	}
	if jf.VariadicParameter != nil {
		if f.VariadicParameter, err = convertParam(*jf.VariadicParameter); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func convertParam(jp jsonFunctionParam) (*tfprotov5.FunctionParameter, error) {
	t, err := tftypes.ParseJSONType(jp.Type)
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", jp.Name, err)
	}
	return &tfprotov5.FunctionParameter{
		Name:           jp.Name,
		Description:    jp.Description,
		Type:           t,
		AllowNullValue: jp.IsNullable,
	}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
