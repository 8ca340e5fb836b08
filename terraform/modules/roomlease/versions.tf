terraform {
  # The tests in tests/ use mock_provider and override_resource, which
  # `terraform test` has since 1.7; removed blocks (examples/basic) need 1.7
  # too. scripts/check-terraform runs with 1.11.
  required_version = ">= 1.7"

  required_providers {
    # The only provider. In particular no archive provider (scripts/deploy
    # builds the source zip, so what is uploaded is exactly what was built)
    # and no random provider (the lease-token key comes in as a variable).
    #
    # Exactly the version the offline checks use (its trimmed schema is
    # tools/tfstub/schema/google-7.45.0.json) and the one the tests were run
    # against. Upgrade deliberately: the schema file (regenerate it with
    # tools/tfstub/regenerate-schema), this line, examples/basic and
    # tools/tfstub/checks.go together.
    google = {
      source  = "hashicorp/google"
      version = "7.45.0"
    }
  }
}

# No provider block: this is a module. The caller configures the provider
# (examples/basic shows how, with the quota-project settings some APIs need)
# and passes it in, so one root can hold several instances.
