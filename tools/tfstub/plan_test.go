package main

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// On create, a computed attribute the configuration leaves unset is unknown
// in the plan, as the real provider plans it: left null, a reference such
// as "${google_service_account.x.email}" would fail a plan the real provider
// passes. Attributes the configuration sets, and optional ones that are not
// computed, keep their values.
func TestUnknownComputed(t *testing.T) {
	block := &tfprotov5.SchemaBlock{
		Attributes: []*tfprotov5.SchemaAttribute{
			{Name: "name", Type: tftypes.String, Required: true},
			{Name: "email", Type: tftypes.String, Computed: true},
			{Name: "labels", Type: tftypes.String, Optional: true},
			{Name: "project", Type: tftypes.String, Optional: true, Computed: true},
		},
		BlockTypes: []*tfprotov5.SchemaNestedBlock{{
			TypeName: "config",
			Nesting:  tfprotov5.SchemaNestedBlockNestingModeList,
			Block: &tfprotov5.SchemaBlock{Attributes: []*tfprotov5.SchemaAttribute{
				{Name: "uri", Type: tftypes.String, Computed: true},
			}},
		}},
	}
	inner := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"uri": tftypes.String}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String, "email": tftypes.String, "labels": tftypes.String, "project": tftypes.String,
		"config": tftypes.List{ElementType: inner},
	}}
	proposed := tftypes.NewValue(typ, map[string]tftypes.Value{
		"name":    tftypes.NewValue(tftypes.String, "presence"),
		"email":   tftypes.NewValue(tftypes.String, nil),
		"labels":  tftypes.NewValue(tftypes.String, nil),
		"project": tftypes.NewValue(tftypes.String, "p"),
		"config": tftypes.NewValue(tftypes.List{ElementType: inner}, []tftypes.Value{
			tftypes.NewValue(inner, map[string]tftypes.Value{"uri": tftypes.NewValue(tftypes.String, nil)}),
		}),
	})
	planned, err := unknownComputed(block, proposed)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := planned.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if attrs["email"].IsKnown() {
		t.Error("email (computed, unset) must be unknown")
	}
	if !attrs["labels"].IsKnown() || !attrs["labels"].IsNull() {
		t.Error("labels (optional, not computed, unset) must stay null")
	}
	var project string
	if err := attrs["project"].As(&project); err != nil || project != "p" {
		t.Errorf("project (set) = %q, %v; want p", project, err)
	}
	var list []tftypes.Value
	if err := attrs["config"].As(&list); err != nil {
		t.Fatal(err)
	}
	var cfg map[string]tftypes.Value
	if err := list[0].As(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg["uri"].IsKnown() {
		t.Error("config[0].uri (computed, in a nested block) must be unknown")
	}
}
