package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestIAMMember(t *testing.T) {
	for _, tc := range []struct {
		member string
		ok     bool
	}{
		{"serviceAccount:roomlease-presence@my-proj.iam.gserviceaccount.com", true},
		{"serviceAccount:123456789-compute@developer.gserviceaccount.com", true},
		{"serviceAccount:service-123@gcf-admin-robot.iam.gserviceaccount.com", true},
		{"user:ops@example.com", true},
		{"group:oncall@example.com", true},
		{"domain:example.com", true},
		{"principal://iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/p/subject/s", true},
		{"principalSet://iam.googleapis.com/locations/global/workforcePools/p/group/g", true},
		{"projectOwner:my-proj", true},
		{"allUsers", true},
		{"allAuthenticatedUsers", true},

		// What a bare mock_provider puts into google_service_account.member:
		// the real provider refuses it.
		{"pw9xzu9t", false},
		// An email without its type, the usual hand-written mistake.
		{"roomlease-presence@my-proj.iam.gserviceaccount.com", false},
		{"deleted:serviceAccount:old@my-proj.iam.gserviceaccount.com?uid=1", false},
		// Accepted by the provider, refused by IAM: caught here too.
		{"serviceAccount:roomlease-presence", false},
		{"serviceAccount:ops@example.com", false},
		{"user:ops", false},
		{"domain:example", false},
		{"principal://example.com/whoever", false},
		{"serviceaccount:roomlease@my-proj.iam.gserviceaccount.com", false},
		{"", false},
	} {
		t.Run(tc.member, func(t *testing.T) {
			err := iamMember(tc.member)
			if tc.ok && err != nil {
				t.Errorf("iamMember(%q) = %v, want it accepted", tc.member, err)
			}
			if !tc.ok && err == nil {
				t.Errorf("iamMember(%q) accepted it, want an error", tc.member)
			}
		})
	}
}

func TestIAMMember_SaysWhenTheProviderRefusesToo(t *testing.T) {
	// Someone reading the failure must know whether the real provider would
	// have failed as well, or only the stricter stub.
	if err := iamMember("pw9xzu9t"); err == nil || !strings.Contains(err.Error(), "real provider refuses it too") {
		t.Errorf("iamMember(pw9xzu9t) = %v, want it to say the real provider refuses it too", err)
	}
	if err := iamMember("serviceAccount:nope"); err == nil || strings.Contains(err.Error(), "real provider") {
		t.Errorf("iamMember(serviceAccount:nope) = %v, want an error that does not blame the real provider", err)
	}
}

func TestRFC1035Name(t *testing.T) {
	check := rfc1035Name(6, 30)
	for name, ok := range map[string]bool{
		"roomlease-presence":                  true,
		"abcdef":                              true,
		"short":                               false, // 5 characters
		"roomlease-presence-function-account": false, // 35 characters
		"Roomlease-presence":                  false,
		"1roomlease":                          false,
		"roomlease-":                          false,
		"roomlease_presence":                  false,
	} {
		if err := check(name); (err == nil) != ok {
			t.Errorf("rfc1035Name(6, 30)(%q) = %v, want ok=%t", name, err, ok)
		}
	}
}

func TestServiceName(t *testing.T) {
	for name, ok := range map[string]bool{
		"firestore.googleapis.com":     true,
		"firestore":                    false,
		"bigquery-json.googleapis.com": false,
	} {
		if err := serviceName(name); (err == nil) != ok {
			t.Errorf("serviceName(%q) = %v, want ok=%t", name, err, ok)
		}
	}
}

func TestRulesFor_EveryIAMMemberResource(t *testing.T) {
	for _, typ := range []string{"google_project_iam_member", "google_cloud_run_service_iam_member", "google_storage_bucket_iam_member"} {
		if !hasRule(rulesFor(typ), "member") {
			t.Errorf("rulesFor(%s) has no member rule", typ)
		}
	}
	// Appending the member rule must not write into the shared table.
	rulesFor("google_project_service")
	if hasRule(resourceRules["google_project_service"], "member") {
		t.Error("rulesFor modified resourceRules")
	}
}

func hasRule(rules []valueRule, path string) bool {
	for _, r := range rules {
		if r.path == path {
			return true
		}
	}
	return false
}

// checkValues must find values inside nested blocks (lists and sets of
// objects), skip unknown and null ones, and point at the offending element.
func TestCheckValues_NestedBlocks(t *testing.T) {
	agg := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"per_series_aligner": tftypes.String}}
	thr := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"aggregations": tftypes.List{ElementType: agg}}}
	cond := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"condition_threshold": tftypes.List{ElementType: thr}}}
	policy := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"combiner":   tftypes.String,
		"conditions": tftypes.Set{ElementType: cond},
	}}
	aggregation := func(v tftypes.Value) tftypes.Value {
		return tftypes.NewValue(cond, map[string]tftypes.Value{
			"condition_threshold": tftypes.NewValue(tftypes.List{ElementType: thr}, []tftypes.Value{
				tftypes.NewValue(thr, map[string]tftypes.Value{
					"aggregations": tftypes.NewValue(tftypes.List{ElementType: agg}, []tftypes.Value{
						tftypes.NewValue(agg, map[string]tftypes.Value{"per_series_aligner": v}),
					}),
				}),
			}),
		})
	}
	config := tftypes.NewValue(policy, map[string]tftypes.Value{
		"combiner": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		"conditions": tftypes.NewValue(tftypes.Set{ElementType: cond}, []tftypes.Value{
			aggregation(tftypes.NewValue(tftypes.String, "ALIGN_MEAN")),
			aggregation(tftypes.NewValue(tftypes.String, "ALIGN_AVERAGE")),
			aggregation(tftypes.NewValue(tftypes.String, nil)),
		}),
	})

	diags := checkValues("google_monitoring_alert_policy", config, rulesFor("google_monitoring_alert_policy"))
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1 (for ALIGN_AVERAGE): %+v", len(diags), diags)
	}
	if !strings.Contains(diags[0].Detail, `"ALIGN_AVERAGE" is not one of`) {
		t.Errorf("detail = %q, want it to name the bad value", diags[0].Detail)
	}
	if got := diags[0].Attribute.String(); !strings.Contains(got, "per_series_aligner") {
		t.Errorf("diagnostic points at %s, want the per_series_aligner attribute", got)
	}
}

// The stub's value checks are only as complete as the review behind them:
// every resource type the configuration uses must have been read.
func TestReviewedTypes_CoverTheConfiguration(t *testing.T) {
	var files []string
	for _, dir := range []string{"modules/roomlease", "examples/basic"} {
		found, err := filepath.Glob(filepath.Join("..", "..", "terraform", dir, "*.tf"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Fatal("no Terraform files found")
	}
	resourceType := regexp.MustCompile(`(?m)^resource "([a-z0-9_]+)"`)
	for _, f := range files {
		buf, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range resourceType.FindAllStringSubmatch(string(buf), -1) {
			if !slices.Contains(reviewedTypes, m[1]) {
				t.Errorf("%s uses %s, whose value checks in the provider nobody has reviewed: read its resource definition (ValidateFunc) in hashicorp/google, add rules to resourceRules, and add it to reviewedTypes", filepath.Base(f), m[1])
			}
		}
	}
	for typ := range resourceRules {
		if !slices.Contains(reviewedTypes, typ) {
			t.Errorf("resourceRules has %s, which reviewedTypes does not list", typ)
		}
	}
}
