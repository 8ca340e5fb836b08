package config

import (
	"fmt"
	"strings"
)

// Service reads: the backend services that may read any room's roster
// with a Google-signed ID token (docs/events.md, "Reading a roster as a
// service").
const (
	// EnvServiceAccounts lists the service accounts' emails, comma
	// separated; empty turns service reads off.
	EnvServiceAccounts = "ROOMLEASE_SERVICE_ACCOUNTS"
	// EnvServiceAudience is the audience their tokens must carry:
	// Terraform sets it to the API's URL.
	EnvServiceAudience = "ROOMLEASE_SERVICE_AUDIENCE"
)

// ServiceReads is who may read any room's roster, and the audience of
// their tokens. No Accounts: nobody.
type ServiceReads struct {
	Accounts []string
	Audience string
}

// Enabled reports whether any service may read.
func (s ServiceReads) Enabled() bool { return len(s.Accounts) > 0 }

// readServiceReads reads EnvServiceAccounts and EnvServiceAudience into c.
func readServiceReads(getenv func(string) string, c *Config) []error {
	var errs []error
	for _, a := range strings.Split(getenv(EnvServiceAccounts), ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		local, domain, ok := strings.Cut(a, "@")
		if !ok || local == "" || domain == "" || strings.ContainsAny(a, " \t\"<>") || strings.Contains(domain, "@") {
			errs = append(errs, fmt.Errorf("%s: %q is not a service account's email (such as backend@my-project.iam.gserviceaccount.com)", EnvServiceAccounts, a))
			continue
		}
		c.ServiceReads.Accounts = append(c.ServiceReads.Accounts, a)
	}
	c.ServiceReads.Audience = strings.TrimSpace(getenv(EnvServiceAudience))
	if c.ServiceReads.Enabled() && c.ServiceReads.Audience == "" {
		errs = append(errs, fmt.Errorf("%s is set but %s is empty: set it to the API's URL, the audience the services mint their ID tokens for",
			EnvServiceAccounts, EnvServiceAudience))
	}
	if strings.ContainsAny(c.ServiceReads.Audience, " \t") {
		errs = append(errs, fmt.Errorf("%s=%q: an audience has no spaces", EnvServiceAudience, c.ServiceReads.Audience))
	}
	return errs
}
