package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Server implements tfprotov5.ProviderServer on a schema alone. Resource
// validation runs the value checks of checks.go on top of the schema checks
// Terraform core has already made; planning echoes the
// proposed state, and anything that would need the real API fails with
// errNoAPI.
//
// The schema is read on first use, not at start-up: Terraform starts a
// provider process several times per command (and `terraform test` several
// times per run), but because the stub declares GetProviderSchemaOptional,
// Terraform asks only the first process for the schema and reuses it. The
// other processes never pay for reading and converting the 9 MB file.
type Server struct {
	SchemaPath string

	once   sync.Once
	schema *ProviderSchema
	err    error
}

// Schema returns the provider schema, loading it on the first call.
func (s *Server) Schema() (*ProviderSchema, error) {
	s.once.Do(func() {
		s.schema, s.err = LoadSchema(s.SchemaPath, providerAddress)
	})
	return s.schema, s.err
}

var _ tfprotov5.ProviderServer = (*Server)(nil)

const errNoAPI = "the schema-only stub provider (tools/tfstub) cannot do this; it talks to no API. Use the real hashicorp/google provider, or mock_provider in terraform test."

func noAPI(what string) []*tfprotov5.Diagnostic {
	return []*tfprotov5.Diagnostic{{
		Severity: tfprotov5.DiagnosticSeverityError,
		Summary:  what + " is not supported by the stub provider",
		Detail:   errNoAPI,
	}}
}

func (s *Server) GetMetadata(context.Context, *tfprotov5.GetMetadataRequest) (*tfprotov5.GetMetadataResponse, error) {
	resp := &tfprotov5.GetMetadataResponse{ServerCapabilities: capabilities()}
	schema, err := s.Schema()
	if err != nil {
		resp.Diagnostics = errDiag("loading the provider schema", err)
		return resp, nil
	}
	for _, name := range sortedKeys(schema.Resources) {
		resp.Resources = append(resp.Resources, tfprotov5.ResourceMetadata{TypeName: name})
	}
	for _, name := range sortedKeys(schema.DataSources) {
		resp.DataSources = append(resp.DataSources, tfprotov5.DataSourceMetadata{TypeName: name})
	}
	for _, name := range sortedKeys(schema.EphemeralResources) {
		resp.EphemeralResources = append(resp.EphemeralResources, tfprotov5.EphemeralResourceMetadata{TypeName: name})
	}
	for _, name := range sortedKeys(schema.Functions) {
		resp.Functions = append(resp.Functions, tfprotov5.FunctionMetadata{Name: name})
	}
	return resp, nil
}

func capabilities() *tfprotov5.ServerCapabilities {
	return &tfprotov5.ServerCapabilities{
		// Lets Terraform reuse the schema it got from the first process
		// instead of asking every process again (see Server).
		GetProviderSchemaOptional: true,
		// Destroy plans are answered like any other plan: with the
		// proposed (null) state.
		PlanDestroy: true,
	}
}

func (s *Server) GetProviderSchema(context.Context, *tfprotov5.GetProviderSchemaRequest) (*tfprotov5.GetProviderSchemaResponse, error) {
	schema, err := s.Schema()
	if err != nil {
		return &tfprotov5.GetProviderSchemaResponse{
			ServerCapabilities: capabilities(),
			Diagnostics:        errDiag("loading the provider schema", err),
		}, nil
	}
	return &tfprotov5.GetProviderSchemaResponse{
		ServerCapabilities:       capabilities(),
		Provider:                 schema.Provider,
		ResourceSchemas:          schema.Resources,
		DataSourceSchemas:        schema.DataSources,
		EphemeralResourceSchemas: schema.EphemeralResources,
		Functions:                schema.Functions,
	}, nil
}

func (s *Server) GetResourceIdentitySchemas(context.Context, *tfprotov5.GetResourceIdentitySchemasRequest) (*tfprotov5.GetResourceIdentitySchemasResponse, error) {
	// The exported schema carries no identity schemas, so there are none to serve.
	return &tfprotov5.GetResourceIdentitySchemasResponse{IdentitySchemas: map[string]*tfprotov5.ResourceIdentitySchema{}}, nil
}

func (s *Server) PrepareProviderConfig(_ context.Context, req *tfprotov5.PrepareProviderConfigRequest) (*tfprotov5.PrepareProviderConfigResponse, error) {
	return &tfprotov5.PrepareProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (s *Server) ConfigureProvider(context.Context, *tfprotov5.ConfigureProviderRequest) (*tfprotov5.ConfigureProviderResponse, error) {
	return &tfprotov5.ConfigureProviderResponse{}, nil
}

func (s *Server) StopProvider(context.Context, *tfprotov5.StopProviderRequest) (*tfprotov5.StopProviderResponse, error) {
	return &tfprotov5.StopProviderResponse{}, nil
}

// Resources.

// ValidateResourceTypeConfig runs the value checks of checks.go. Terraform
// core has already checked the configuration against the schema; what is
// left is what the real provider checks in code.
func (s *Server) ValidateResourceTypeConfig(_ context.Context, req *tfprotov5.ValidateResourceTypeConfigRequest) (*tfprotov5.ValidateResourceTypeConfigResponse, error) {
	rules := rulesFor(req.TypeName)
	if len(rules) == 0 || req.Config == nil {
		return &tfprotov5.ValidateResourceTypeConfigResponse{}, nil
	}
	ps, err := s.Schema()
	if err != nil {
		return &tfprotov5.ValidateResourceTypeConfigResponse{Diagnostics: errDiag("loading the provider schema", err)}, nil
	}
	schema, ok := ps.Resources[req.TypeName]
	if !ok {
		return &tfprotov5.ValidateResourceTypeConfigResponse{Diagnostics: unknownType("resource", req.TypeName)}, nil
	}
	config, err := req.Config.Unmarshal(schema.ValueType())
	if err != nil {
		return &tfprotov5.ValidateResourceTypeConfigResponse{Diagnostics: errDiag("decoding the configuration", err)}, nil
	}
	return &tfprotov5.ValidateResourceTypeConfigResponse{Diagnostics: checkValues(req.TypeName, config, rules)}, nil
}

func (s *Server) UpgradeResourceState(_ context.Context, req *tfprotov5.UpgradeResourceStateRequest) (*tfprotov5.UpgradeResourceStateResponse, error) {
	ps, err := s.Schema()
	if err != nil {
		return &tfprotov5.UpgradeResourceStateResponse{Diagnostics: errDiag("loading the provider schema", err)}, nil
	}
	schema, ok := ps.Resources[req.TypeName]
	if !ok {
		return &tfprotov5.UpgradeResourceStateResponse{Diagnostics: unknownType("resource", req.TypeName)}, nil
	}
	// State is stored as JSON; the stub has only one schema version, so
	// "upgrading" is decoding the JSON against the current schema, dropping
	// attributes that no longer exist.
	typ := schema.ValueType()
	val, err := req.RawState.UnmarshalWithOpts(typ, tfprotov5.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return &tfprotov5.UpgradeResourceStateResponse{Diagnostics: errDiag("decoding state", err)}, nil
	}
	dv, err := tfprotov5.NewDynamicValue(typ, val)
	if err != nil {
		return &tfprotov5.UpgradeResourceStateResponse{Diagnostics: errDiag("encoding state", err)}, nil
	}
	return &tfprotov5.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
}

func (s *Server) ReadResource(_ context.Context, req *tfprotov5.ReadResourceRequest) (*tfprotov5.ReadResourceResponse, error) {
	// Nothing remote to refresh from: the recorded state is the truth.
	return &tfprotov5.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}, nil
}

func (s *Server) PlanResourceChange(_ context.Context, req *tfprotov5.PlanResourceChangeRequest) (*tfprotov5.PlanResourceChangeResponse, error) {
	// The proposed state is configuration merged with prior state, which is
	// always a valid plan. On create, computed attributes the configuration
	// leaves unset are unknown until apply, as a real provider plans them;
	// left null, a reference such as "${google_service_account.x.email}"
	// would fail a plan that the real provider passes. A real provider would
	// also flag replacements; the stub does not.
	if req.PriorState == nil || req.ProposedNewState == nil {
		return &tfprotov5.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate}, nil
	}
	ps, err := s.Schema()
	if err != nil {
		return &tfprotov5.PlanResourceChangeResponse{Diagnostics: errDiag("loading the provider schema", err)}, nil
	}
	schema, ok := ps.Resources[req.TypeName]
	if !ok {
		return &tfprotov5.PlanResourceChangeResponse{Diagnostics: unknownType("resource", req.TypeName)}, nil
	}
	typ := schema.ValueType()
	prior, err := req.PriorState.Unmarshal(typ)
	if err != nil {
		return &tfprotov5.PlanResourceChangeResponse{Diagnostics: errDiag("decoding prior state", err)}, nil
	}
	if !prior.IsNull() {
		return &tfprotov5.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate}, nil
	}
	proposed, err := req.ProposedNewState.Unmarshal(typ)
	if err != nil {
		return &tfprotov5.PlanResourceChangeResponse{Diagnostics: errDiag("decoding proposed state", err)}, nil
	}
	planned, err := unknownComputed(schema.Block, proposed)
	if err != nil {
		return &tfprotov5.PlanResourceChangeResponse{Diagnostics: errDiag("planning computed attributes", err)}, nil
	}
	dv, err := tfprotov5.NewDynamicValue(typ, planned)
	if err != nil {
		return &tfprotov5.PlanResourceChangeResponse{Diagnostics: errDiag("encoding the plan", err)}, nil
	}
	return &tfprotov5.PlanResourceChangeResponse{PlannedState: &dv, PlannedPrivate: req.PriorPrivate}, nil
}

// unknownComputed returns v with every null attribute that the schema marks
// computed replaced by an unknown value of its type.
func unknownComputed(block *tfprotov5.SchemaBlock, v tftypes.Value) (tftypes.Value, error) {
	return tftypes.Transform(v, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsNull() && len(p.Steps()) > 0 && computedAt(block, p.Steps()) {
			return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
		}
		return v, nil
	})
}

// computedAt reports whether steps lead to a computed attribute of block,
// through nested blocks and their elements.
func computedAt(block *tfprotov5.SchemaBlock, steps []tftypes.AttributePathStep) bool {
	name, ok := steps[0].(tftypes.AttributeName)
	if !ok {
		return false
	}
	for _, a := range block.Attributes {
		if a.Name == string(name) {
			return len(steps) == 1 && a.Computed
		}
	}
	for _, b := range block.BlockTypes {
		if b.TypeName != string(name) {
			continue
		}
		rest := steps[1:]
		if b.Nesting != tfprotov5.SchemaNestedBlockNestingModeSingle && b.Nesting != tfprotov5.SchemaNestedBlockNestingModeGroup {
			if len(rest) == 0 {
				return false
			}
			rest = rest[1:] // the element key
		}
		return len(rest) > 0 && computedAt(b.Block, rest)
	}
	return false
}

func (s *Server) ApplyResourceChange(_ context.Context, req *tfprotov5.ApplyResourceChangeRequest) (*tfprotov5.ApplyResourceChangeResponse, error) {
	return &tfprotov5.ApplyResourceChangeResponse{Diagnostics: noAPI("applying " + req.TypeName)}, nil
}

func (s *Server) ImportResourceState(_ context.Context, req *tfprotov5.ImportResourceStateRequest) (*tfprotov5.ImportResourceStateResponse, error) {
	return &tfprotov5.ImportResourceStateResponse{Diagnostics: noAPI("importing " + req.TypeName)}, nil
}

func (s *Server) MoveResourceState(_ context.Context, req *tfprotov5.MoveResourceStateRequest) (*tfprotov5.MoveResourceStateResponse, error) {
	return &tfprotov5.MoveResourceStateResponse{Diagnostics: noAPI("moving state to " + req.TargetTypeName)}, nil
}

func (s *Server) UpgradeResourceIdentity(_ context.Context, req *tfprotov5.UpgradeResourceIdentityRequest) (*tfprotov5.UpgradeResourceIdentityResponse, error) {
	return &tfprotov5.UpgradeResourceIdentityResponse{Diagnostics: noAPI("upgrading the identity of " + req.TypeName)}, nil
}

func (s *Server) GenerateResourceConfig(_ context.Context, req *tfprotov5.GenerateResourceConfigRequest) (*tfprotov5.GenerateResourceConfigResponse, error) {
	return &tfprotov5.GenerateResourceConfigResponse{Diagnostics: noAPI("generating configuration for " + req.TypeName)}, nil
}

// Data sources.

func (s *Server) ValidateDataSourceConfig(context.Context, *tfprotov5.ValidateDataSourceConfigRequest) (*tfprotov5.ValidateDataSourceConfigResponse, error) {
	return &tfprotov5.ValidateDataSourceConfigResponse{}, nil
}

func (s *Server) ReadDataSource(_ context.Context, req *tfprotov5.ReadDataSourceRequest) (*tfprotov5.ReadDataSourceResponse, error) {
	return &tfprotov5.ReadDataSourceResponse{Diagnostics: noAPI("reading data source " + req.TypeName)}, nil
}

// Functions.

func (s *Server) GetFunctions(context.Context, *tfprotov5.GetFunctionsRequest) (*tfprotov5.GetFunctionsResponse, error) {
	schema, err := s.Schema()
	if err != nil {
		return &tfprotov5.GetFunctionsResponse{Diagnostics: errDiag("loading the provider schema", err)}, nil
	}
	return &tfprotov5.GetFunctionsResponse{Functions: schema.Functions}, nil
}

func (s *Server) CallFunction(_ context.Context, req *tfprotov5.CallFunctionRequest) (*tfprotov5.CallFunctionResponse, error) {
	return &tfprotov5.CallFunctionResponse{Error: &tfprotov5.FunctionError{
		Text: fmt.Sprintf("provider::google::%s is not implemented by the stub provider: %s", req.Name, errNoAPI),
	}}, nil
}

// Ephemeral resources.

func (s *Server) ValidateEphemeralResourceConfig(context.Context, *tfprotov5.ValidateEphemeralResourceConfigRequest) (*tfprotov5.ValidateEphemeralResourceConfigResponse, error) {
	return &tfprotov5.ValidateEphemeralResourceConfigResponse{}, nil
}

func (s *Server) OpenEphemeralResource(_ context.Context, req *tfprotov5.OpenEphemeralResourceRequest) (*tfprotov5.OpenEphemeralResourceResponse, error) {
	return &tfprotov5.OpenEphemeralResourceResponse{Diagnostics: noAPI("opening ephemeral resource " + req.TypeName)}, nil
}

func (s *Server) RenewEphemeralResource(context.Context, *tfprotov5.RenewEphemeralResourceRequest) (*tfprotov5.RenewEphemeralResourceResponse, error) {
	return &tfprotov5.RenewEphemeralResourceResponse{}, nil
}

func (s *Server) CloseEphemeralResource(context.Context, *tfprotov5.CloseEphemeralResourceRequest) (*tfprotov5.CloseEphemeralResourceResponse, error) {
	return &tfprotov5.CloseEphemeralResourceResponse{}, nil
}

func unknownType(kind, name string) []*tfprotov5.Diagnostic {
	return []*tfprotov5.Diagnostic{{
		Severity: tfprotov5.DiagnosticSeverityError,
		Summary:  fmt.Sprintf("unknown %s type %q", kind, name),
		Detail:   "The schema file served by the stub provider has no such type.",
	}}
}

func errDiag(summary string, err error) []*tfprotov5.Diagnostic {
	return []*tfprotov5.Diagnostic{{
		Severity: tfprotov5.DiagnosticSeverityError,
		Summary:  summary,
		Detail:   err.Error(),
	}}
}
