package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Value checks: what the real provider rejects in code, not in its schema.
//
// The schema says that google_project_iam_member.member is a required
// string; only the provider's code knows that "pw9xzu9t" is not an IAM
// principal. Terraform asks the provider to validate every resource's
// configuration, in `terraform validate` and again during `terraform test`
// once mocked values are known, so a stub that only serves the schema passes
// configurations that the real provider fails.
//
// The rules below cover the attributes roomlease's configuration sets that
// hashicorp/google 7.45.0 validates in code (ValidateFunc in its resource
// definitions), read from the provider's source, plus a few unset neighbours
// on the same resources. They are restatements, not copies: same accepted
// values, our own messages. reviewedTypes lists every resource type whose
// definition was read this way; a test fails when the configuration uses a
// type that is not on it, so a new resource type gets its rules reviewed.
//
// One rule is deliberately stricter than the provider: IAM members. The
// provider only requires "something:something" (or allUsers and a few other
// bare words), so it accepts "serviceAccount:" followed by anything. The IAM
// API then refuses a malformed member at apply time, which no offline check
// would otherwise show. iamMember below also checks the principal types
// listed in the IAM Policy binding reference.

// valueRule checks the string values found at path, a list of attribute
// names from the resource's root through nested blocks. A path ending in a
// list or set of strings checks each element.
type valueRule struct {
	path  string
	check func(string) error
}

// rulesFor returns the rules for one resource type.
func rulesFor(typeName string) []valueRule {
	rules := resourceRules[typeName]
	// Every *_iam_member resource of the provider shares one schema for its
	// member, and with it one check; likewise *_iam_binding for members.
	switch {
	case strings.HasSuffix(typeName, "_iam_member"):
		rules = append(slices.Clip(rules), valueRule{"member", iamMember})
	case strings.HasSuffix(typeName, "_iam_binding"):
		rules = append(slices.Clip(rules), valueRule{"members", iamMember})
	}
	return rules
}

var resourceRules = map[string][]valueRule{
	"google_project_service": {
		{"service", serviceName},
	},
	"google_service_account": {
		{"account_id", rfc1035Name(6, 30)},
		{"description", maxLength(256)},
	},
	"google_cloudfunctions2_function": {
		{"service_config.ingress_settings", oneOf("ALLOW_ALL", "ALLOW_INTERNAL_ONLY", "ALLOW_INTERNAL_AND_GCLB", "")},
		{"service_config.vpc_connector_egress_settings", oneOf("VPC_CONNECTOR_EGRESS_SETTINGS_UNSPECIFIED", "PRIVATE_RANGES_ONLY", "ALL_TRAFFIC", "")},
	},
	"google_firestore_database": {
		{"type", oneOf("FIRESTORE_NATIVE", "DATASTORE_MODE")},
		{"concurrency_mode", oneOf("OPTIMISTIC", "PESSIMISTIC", "OPTIMISTIC_WITH_ENTITY_GROUPS", "")},
		{"app_engine_integration_mode", oneOf("ENABLED", "DISABLED", "")},
		{"delete_protection_state", oneOf("DELETE_PROTECTION_STATE_UNSPECIFIED", "DELETE_PROTECTION_ENABLED", "DELETE_PROTECTION_DISABLED", "")},
		{"point_in_time_recovery_enablement", oneOf("POINT_IN_TIME_RECOVERY_ENABLED", "POINT_IN_TIME_RECOVERY_DISABLED", "")},
		{"database_edition", oneOf("STANDARD", "ENTERPRISE", "")},
	},
	"google_firestore_field": {
		{"index_config.indexes.order", oneOf("ASCENDING", "DESCENDING", "")},
		{"index_config.indexes.array_config", oneOf("CONTAINS", "")},
		{"index_config.indexes.query_scope", oneOf("COLLECTION", "COLLECTION_GROUP", "")},
	},
	"google_firestore_index": {
		{"query_scope", oneOf("COLLECTION", "COLLECTION_GROUP", "COLLECTION_RECURSIVE", "")},
		{"api_scope", oneOf("ANY_API", "DATASTORE_MODE_API", "MONGODB_COMPATIBLE_API", "")},
		{"density", oneOf("SPARSE_ALL", "SPARSE_ANY", "DENSE", "")},
		{"fields.order", oneOf("ASCENDING", "DESCENDING", "")},
		{"fields.array_config", oneOf("CONTAINS", "")},
	},
	"google_logging_metric": {
		{"metric_descriptor.metric_kind", oneOf("DELTA", "GAUGE", "CUMULATIVE")},
		{"metric_descriptor.value_type", oneOf("BOOL", "INT64", "DOUBLE", "STRING", "DISTRIBUTION", "MONEY")},
		{"metric_descriptor.labels.value_type", oneOf("BOOL", "INT64", "STRING", "")},
	},
	"google_monitoring_alert_policy": {
		{"combiner", oneOf("AND", "OR", "AND_WITH_MATCHING_RESOURCE")},
		{"severity", oneOf("CRITICAL", "ERROR", "WARNING", "")},
		{"conditions.condition_threshold.comparison", oneOf("COMPARISON_GT", "COMPARISON_GE", "COMPARISON_LT", "COMPARISON_LE", "COMPARISON_EQ", "COMPARISON_NE")},
		{"conditions.condition_threshold.evaluation_missing_data", oneOf("EVALUATION_MISSING_DATA_INACTIVE", "EVALUATION_MISSING_DATA_ACTIVE", "EVALUATION_MISSING_DATA_NO_OP", "")},
		{"conditions.condition_threshold.aggregations.per_series_aligner", aligner},
		{"conditions.condition_threshold.aggregations.cross_series_reducer", reducer},
		{"conditions.condition_absent.aggregations.per_series_aligner", aligner},
		{"conditions.condition_absent.aggregations.cross_series_reducer", reducer},
	},
	"google_artifact_registry_repository": {
		{"mode", oneOf("STANDARD_REPOSITORY", "VIRTUAL_REPOSITORY", "REMOTE_REPOSITORY", "")},
		{"cleanup_policies.action", oneOf("DELETE", "KEEP", "")},
		{"cleanup_policies.condition.tag_state", oneOf("TAGGED", "UNTAGGED", "ANY", "")},
	},
}

// reviewedTypes are the resource types whose value checks in the provider
// were read for the attributes the configuration sets. Types without an
// entry in resourceRules were read and have none for those attributes.
var reviewedTypes = []string{
	"google_artifact_registry_repository",
	"google_artifact_registry_repository_iam_member",
	"google_cloud_run_service_iam_member",
	"google_cloud_scheduler_job", // validates only http_target body and headers, which are unset
	"google_cloudfunctions2_function",
	"google_firebaserules_release",
	"google_firebaserules_ruleset",
	"google_firestore_database",
	"google_firestore_field",
	"google_firestore_index",
	"google_logging_metric",
	"google_monitoring_alert_policy",
	"google_project_iam_member",
	"google_project_service",
	// The presence events (events.tf). Of the attributes set, the
	// provider validates none in code (schema_settings.encoding, unset, is
	// its topic's only enum); the IAM members take the shared check. Their
	// schema entries come, as every other's, from the real 7.45.0 provider
	// built from source (regenerate-schema).
	"google_pubsub_subscription",
	"google_pubsub_subscription_iam_member",
	"google_pubsub_topic",
	"google_pubsub_topic_iam_member",
	"google_secret_manager_secret",            // secret_id and replication have no value checks
	"google_secret_manager_secret_iam_member", // the shared IAM member check
	"google_secret_manager_secret_version",    // secret_data has none
	"google_service_account",
	"google_storage_bucket", // validates label keys and a few unset blocks
	"google_storage_bucket_object",
}

var (
	aligner = oneOf("ALIGN_NONE", "ALIGN_DELTA", "ALIGN_RATE", "ALIGN_INTERPOLATE", "ALIGN_NEXT_OLDER",
		"ALIGN_MIN", "ALIGN_MAX", "ALIGN_MEAN", "ALIGN_COUNT", "ALIGN_SUM", "ALIGN_STDDEV",
		"ALIGN_COUNT_TRUE", "ALIGN_COUNT_FALSE", "ALIGN_FRACTION_TRUE", "ALIGN_PERCENTILE_99",
		"ALIGN_PERCENTILE_95", "ALIGN_PERCENTILE_50", "ALIGN_PERCENTILE_05", "ALIGN_PERCENT_CHANGE", "")
	reducer = oneOf("REDUCE_NONE", "REDUCE_MEAN", "REDUCE_MIN", "REDUCE_MAX", "REDUCE_SUM", "REDUCE_STDDEV",
		"REDUCE_COUNT", "REDUCE_COUNT_TRUE", "REDUCE_COUNT_FALSE", "REDUCE_FRACTION_TRUE",
		"REDUCE_PERCENTILE_99", "REDUCE_PERCENTILE_95", "REDUCE_PERCENTILE_50", "REDUCE_PERCENTILE_05", "")
)

// oneOf accepts exactly the given values; case matters, as for the provider.
func oneOf(values ...string) func(string) error {
	return func(v string) error {
		if slices.Contains(values, v) {
			return nil
		}
		var shown []string
		for _, s := range values {
			if s != "" {
				shown = append(shown, fmt.Sprintf("%q", s))
			}
		}
		return fmt.Errorf("%q is not one of %s", v, strings.Join(shown, ", "))
	}
}

func maxLength(n int) func(string) error {
	return func(v string) error {
		if len(v) <= n {
			return nil
		}
		return fmt.Errorf("is %d characters long; at most %d are allowed", len(v), n)
	}
}

var rfc1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// rfc1035Name is a lowercase name that starts with a letter and does not end
// with a hyphen, between min and max characters long: the shape of service
// account IDs.
func rfc1035Name(min, max int) func(string) error {
	return func(v string) error {
		if len(v) < min || len(v) > max {
			return fmt.Errorf("%q must be %d to %d characters long", v, min, max)
		}
		if !rfc1035.MatchString(v) {
			return fmt.Errorf("%q must be lowercase letters, digits and hyphens, start with a letter and not end with a hyphen", v)
		}
		return nil
	}
}

// serviceName is an API's service name such as "firestore.googleapis.com".
// The provider refuses names without a dot, and one retired name that the
// API still knows.
func serviceName(v string) error {
	if v == "bigquery-json.googleapis.com" {
		return fmt.Errorf("%q is a retired service name; use bigquery.googleapis.com", v)
	}
	if !strings.Contains(v, ".") {
		return fmt.Errorf("%q is not a service name like serviceusage.googleapis.com", v)
	}
	return nil
}

var (
	emailAddress = regexp.MustCompile(`^[^@\s:/]+@[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+$`)
	// Service accounts live in gserviceaccount.com (including the
	// developer. and iam. subdomains and Google's service agents).
	serviceAccountEmail = regexp.MustCompile(`^[a-z0-9][-a-z0-9._]*@([-a-z0-9]+\.)*gserviceaccount\.com$`)
	domainName          = regexp.MustCompile(`^[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+$`)
	// Workload and workforce identity federation principals.
	federatedPrincipal = regexp.MustCompile(`^principal(Set)?://iam\.googleapis\.com/(projects|locations)/\S+$`)
	projectID          = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$`)
)

// iamMember checks an IAM principal in the forms IAM policy bindings take.
//
// The provider accepts anything containing a colon with text on both sides,
// or that contains one of allUsers, allAuthenticatedUsers, projectOwners,
// projectReaders, projectWriters; it refuses members that start with
// "deleted". Those two rules come first, so that whatever the provider
// refuses is refused here with the same reason. Then the type prefixes: a
// member the provider lets through but IAM would refuse is refused too.
func iamMember(v string) error {
	const want = "an IAM principal such as serviceAccount:NAME@PROJECT.iam.gserviceaccount.com, user:EMAIL, group:EMAIL, domain:DOMAIN, principal://…, principalSet://…, allUsers or allAuthenticatedUsers"

	if strings.HasPrefix(v, "deleted") {
		return fmt.Errorf("%q names a deleted principal, which Terraform cannot manage (the real provider refuses it too)", v)
	}
	if !providerAcceptsMember(v) {
		return fmt.Errorf("%q is not %s (the real provider refuses it too)", v, want)
	}

	switch v {
	case "allUsers", "allAuthenticatedUsers":
		return nil
	}
	kind, id, _ := strings.Cut(v, ":")
	var ok bool
	switch kind {
	case "serviceAccount":
		ok = serviceAccountEmail.MatchString(id)
	case "user", "group":
		ok = emailAddress.MatchString(id)
	case "domain":
		ok = domainName.MatchString(id)
	case "principal", "principalSet":
		ok = federatedPrincipal.MatchString(v)
	case "projectOwner", "projectEditor", "projectViewer":
		// Cloud Storage's convenience values: a project ID follows.
		ok = projectID.MatchString(id)
	default:
		return fmt.Errorf("%q has no principal type IAM knows; want %s", v, want)
	}
	if !ok {
		return fmt.Errorf("%q is not a well-formed %s principal; want %s", v, kind, want)
	}
	return nil
}

var providerMemberShape = regexp.MustCompile(`.+:.+|projectOwners|projectReaders|projectWriters|allUsers|allAuthenticatedUsers`)

func providerAcceptsMember(v string) bool { return providerMemberShape.MatchString(v) }

// checkValues applies rules to a decoded configuration and returns one
// diagnostic per offending value, pointing at its attribute.
func checkValues(typeName string, config tftypes.Value, rules []valueRule) []*tfprotov5.Diagnostic {
	var diags []*tfprotov5.Diagnostic
	for _, r := range rules {
		for _, f := range find(config, strings.Split(r.path, "."), tftypes.NewAttributePath()) {
			if err := r.check(f.value); err != nil {
				diags = append(diags, &tfprotov5.Diagnostic{
					Severity:  tfprotov5.DiagnosticSeverityError,
					Summary:   fmt.Sprintf("Invalid value for %s", r.path),
					Detail:    fmt.Sprintf("%s.%s: %v.\n\nThe stub provider (tools/tfstub) checks this as hashicorp/google does; see tools/tfstub/checks.go.", typeName, r.path, err),
					Attribute: f.path,
				})
			}
		}
	}
	return diags
}

type found struct {
	value string
	path  *tftypes.AttributePath
}

// find returns the known string values at steps below v. Collections on the
// way (nested blocks, and a final list or set of strings) are searched
// element by element; null and unknown values are skipped, as the provider
// skips them until they are known.
func find(v tftypes.Value, steps []string, at *tftypes.AttributePath) []found {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.List{}) || v.Type().Is(tftypes.Set{}) || v.Type().Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return nil
		}
		var out []found
		for i, e := range elems {
			next := at.WithElementKeyInt(i)
			if v.Type().Is(tftypes.Set{}) {
				next = at.WithElementKeyValue(e)
			}
			out = append(out, find(e, steps, next)...)
		}
		return out
	case len(steps) == 0:
		var s string
		if v.Type().Is(tftypes.String) && v.As(&s) == nil {
			return []found{{s, at}}
		}
		return nil
	case v.Type().Is(tftypes.Object{}):
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			return nil
		}
		child, ok := attrs[steps[0]]
		if !ok {
			return nil
		}
		return find(child, steps[1:], at.WithAttributeName(steps[0]))
	}
	return nil
}
