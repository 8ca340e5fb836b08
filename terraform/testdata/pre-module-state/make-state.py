#!/usr/bin/env python3
"""Turn `terraform show -json PLAN` of the pre-module root into a state file.

How terraform.tfstate beside this script was made (once, by hand; no check
runs this script): with the stub provider of scripts/check-terraform,

    git archive 6994757 terraform firestore | tar -x -C OLD
    terraform -chdir=OLD/terraform plan -refresh=false -out=old.plan \\
        -var project_id=roomlease-prod -var source_archive=tests/fixtures/empty-source.zip
    terraform -chdir=OLD/terraform show -json old.plan | ./make-state.py > terraform.tfstate

then twice more: plan again with -state=terraform.tfstate and convert that
plan, so that values which depended on computed ones (IAM members from
service accounts' emails, the functions' build account) are filled in too;
after that the old root plans no change but a cosmetic one on the source
object that is the stub's, not the configuration's.

The plan holds every resource of the old layout at its old address, with
the values its configuration gives it. What only Google would know
(computed values: emails, URLs, ruleset ids) is filled in below with values
of the shape the real API returns, as tests/mocks does for the tests.
"""
import json
import sys

PROJECT = "roomlease-prod"


def computed(rtype, values):
    """Values for the computed attributes a later plan reads."""
    if rtype == "google_service_account":
        email = f"{values['account_id']}@{PROJECT}.iam.gserviceaccount.com"
        return {"email": email, "member": f"serviceAccount:{email}",
                "id": f"projects/{PROJECT}/serviceAccounts/{email}",
                "name": f"projects/{PROJECT}/serviceAccounts/{email}",
                "unique_id": "100000000000000000001"}
    if rtype == "google_cloudfunctions2_function":
        return {"url": f"https://us-central1-{PROJECT}.cloudfunctions.net/{values['name']}",
                "id": f"projects/{PROJECT}/locations/us-central1/functions/{values['name']}"}
    if rtype == "google_firebaserules_ruleset":
        return {"name": "6b1a3c52-0d7e-4f19-9a4b-2f8e5d7c1a90"}
    if rtype == "google_artifact_registry_repository":
        return {"name": values["repository_id"],
                "id": f"projects/{PROJECT}/locations/us-central1/repositories/{values['repository_id']}"}
    if rtype == "google_firestore_database":
        return {"id": f"projects/{PROJECT}/databases/{values['name']}"}
    return {"id": f"fixture-{rtype}"}


def main():
    plan = json.load(sys.stdin)
    resources = {}
    for rc in plan["resource_changes"]:
        if rc.get("module_address") or rc["mode"] != "managed":
            continue
        values = dict(rc["change"]["after"] or {})
        for k, v in computed(rc["type"], values).items():
            if values.get(k) is None:
                values[k] = v
        if rc["type"] == "google_cloudfunctions2_function":
            values["service_config"][0]["uri"] = f"https://{values['name']}-abc123-uc.a.run.app"
        r = resources.setdefault((rc["type"], rc["name"]), {
            "mode": "managed", "type": rc["type"], "name": rc["name"],
            "provider": 'provider["registry.terraform.io/hashicorp/google"]', "instances": []})
        inst = {"schema_version": 0, "attributes": values, "sensitive_attributes": []}
        if "index" in rc:
            inst["index_key"] = rc["index"]
        r["instances"].append(inst)
    state = {"version": 4, "terraform_version": "1.11.4", "serial": 1,
             "lineage": "00000000-0000-0000-0000-000000006994",
             "outputs": {}, "resources": [resources[k] for k in sorted(resources)]}
    json.dump(state, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


main()
