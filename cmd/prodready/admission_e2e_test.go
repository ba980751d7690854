package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdmissionPoliciesAsProcess runs `prodready check` on
// fixtures/admission as a user does: the repository's own policies (plain,
// shipped by a chart, bound through an overlay's patch) and the chart's
// CRD judge every object of the run, at the line, in every format, and
// what cannot be evaluated is said.
func TestAdmissionPoliciesAsProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs prodready check as a process; skipped with -short")
	}
	dir := t.TempDir()
	copyTree(t, "../../fixtures/admission", filepath.Join(dir, "repo"))
	repo := filepath.Join(dir, "repo")

	out, errOut, code := runCLI(t, repo, "check", "--format", "json", ".")
	if code != 1 {
		t.Fatalf("check exited %d, want 1 (policies deny): %s", code, errOut)
	}
	var rep struct {
		Findings []cliFinding
		Summary  struct {
			NotChecked []struct{ Path, Reason string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --format json: %v\n%s", err, out)
	}
	got := byKey(rep.Findings)
	for key, want := range map[string]struct{ severity, message string }{
		"apps/web.yaml:6 policy/require-team-label": {"error", "every workload names its owning team in the label team (ValidatingAdmissionPolicy require-team-label at policies/policies.yaml:2, binding require-team-label: Deny)"},
		"apps/web.yaml:9 policy/replica-ceiling":    {"warning", "replicas 8 exceed the ceiling of 5"},
		"apps/web.yaml:16 policy/no-latest-tag":     {"info", "images are pinned to a version, not latest (ValidatingPolicy no-latest-tag"},
		// The overlay's patch makes the base's Warn binding Deny.
		"apps/web.yaml:16 policy/require-probes":          {"error", "every container has a readinessProbe (ValidatingAdmissionPolicy require-probes rendered from overlays/prod, binding require-probes: Deny)"},
		"overlays/base/app.yaml:16 policy/require-probes": {"error", "(rendered from the overlay overlays/prod)"},
		// The chart's policy, its registries from the chart's values.
		"apps/web.yaml:45 policy/approved-registries": {"error", "images come from the approved registries only (ValidatingAdmissionPolicy approved-registries rendered from charts/guard"},
		// The chart's CRD, its CEL rule at the field its fieldPath names.
		"apps/web.yaml:26 crd-schema": {"error", "spec.engine: Invalid value: oracle is not offered (CustomResourceDefinition databases.example.com"},
	} {
		f, ok := got[key]
		switch {
		case !ok:
			t.Errorf("no finding %s", key)
		case f.Severity != want.severity || !strings.Contains(f.Message, want.message):
			t.Errorf("%s: %s %q, want %s with %q", key, f.Severity, f.Message, want.severity, want.message)
		}
	}
	if f, ok := got["apps/web.yaml:45 policy/require-probes"]; ok {
		t.Errorf("the proxy has a readinessProbe, yet: %s", f.Message)
	}
	noCRD := false
	for _, n := range rep.Summary.NotChecked {
		noCRD = noCRD || n.Path == "policies/policies.yaml" && strings.Contains(n.Reason, "not validated: no CRD in the repository: 1 ValidatingPolicy (policies.kyverno.io/v1)")
	}
	if !noCRD {
		t.Errorf("the JSON summary does not name the custom resource with no CRD: %+v", rep.Summary.NotChecked)
	}

	// SARIF: policy/<name> is a result of the rule "policy".
	out, _, _ = runCLI(t, repo, "check", "--format", "sarif", ".")
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleID    string
				RuleIndex int
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("check --format sarif: %v", err)
	}
	run := log.Runs[0]
	seen := false
	for _, r := range run.Results {
		if strings.HasPrefix(r.RuleID, "policy/") {
			seen = true
			if id := run.Tool.Driver.Rules[r.RuleIndex].ID; id != "policy" {
				t.Errorf("SARIF result %s points at rule %s, want policy", r.RuleID, id)
			}
		}
	}
	if !seen {
		t.Error("no policy/ result in the SARIF log")
	}

	// One policy ignored by its ID at the line, one switched off in the
	// config, one graded by the family's severity.
	web := filepath.Join(repo, "apps", "web.yaml")
	data, err := os.ReadFile(web)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "  replicas: 8\n", "  replicas: 8 # prodready:ignore policy/replica-ceiling agreed with the platform team\n", 1))
	if err := os.WriteFile(web, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "rules:\n  policy/no-latest-tag: false\n  policy: {severity: warning}\n"
	if err := os.WriteFile(filepath.Join(repo, ".prodready.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, _ := checkJSON(t, repo, ".")
	got = byKey(fs)
	if _, ok := got["apps/web.yaml:9 policy/replica-ceiling"]; ok {
		t.Error("# prodready:ignore policy/replica-ceiling did not silence it")
	}
	if _, ok := got["apps/web.yaml:16 policy/no-latest-tag"]; ok {
		t.Error("rules: {policy/no-latest-tag: false} did not switch it off")
	}
	if f := got["apps/web.yaml:6 policy/require-team-label"]; f.Severity != "warning" {
		t.Errorf("rules: {policy: {severity: warning}} left require-team-label at %q", f.Severity)
	}
	for _, f := range fs {
		if f.Rule == "ignore-invalid" {
			t.Errorf("an ignore of policy/<name> is called invalid: %s", f.Message)
		}
	}
}

// TestCRDsFromTheConfigAsProcess checks one folder whose custom resource's
// CRD lies elsewhere: without crds in .prodready.yaml it is listed as not
// validated; with crds naming the CRD's folder it is validated, and the
// CRD's file is read but neither checked nor counted.
func TestCRDsFromTheConfigAsProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs prodready check as a process; skipped with -short")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	copyTree(t, "../../fixtures/admission", repo)
	if err := os.WriteFile(filepath.Join(repo, ".prodready.yaml"), []byte("rules:\n  policy: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := func() (map[string]cliFinding, int, string) {
		out, errOut, _ := runCLI(t, repo, "check", "--format", "json", "apps")
		var rep struct {
			Findings []cliFinding
			Summary  struct {
				Files      int
				NotChecked []struct{ Path, Reason string }
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("check --format json apps: %v\n%s\n%s", err, out, errOut)
		}
		var reasons []string
		for _, n := range rep.Summary.NotChecked {
			reasons = append(reasons, n.Path+": "+n.Reason)
		}
		return byKey(rep.Findings), rep.Summary.Files, strings.Join(reasons, "\n")
	}
	got, files, notChecked := summary()
	if _, ok := got["apps/web.yaml:26 crd-schema"]; ok {
		t.Error("a CRD outside the checked folder was used without crds in the config")
	}
	if !strings.Contains(notChecked, "apps/web.yaml: line 21: custom resources not validated: no CRD in the repository: 1 Database (example.com/v1)") {
		t.Errorf("the Database with no CRD is not listed as not validated:\n%s", notChecked)
	}
	if err := os.WriteFile(filepath.Join(repo, ".prodready.yaml"), []byte("rules:\n  policy: false\ncrds: [charts/guard/crds]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, filesWith, notChecked := summary()
	if f, ok := got["apps/web.yaml:26 crd-schema"]; !ok || !strings.Contains(f.Message, "oracle is not offered") {
		t.Errorf("with crds: [charts/guard/crds] the Database is not validated: %+v", got)
	}
	if strings.Contains(notChecked, "no CRD") || filesWith != files {
		t.Errorf("with crds: %d files (want %d), not checked:\n%s", filesWith, files, notChecked)
	}
	for k := range got {
		if strings.HasPrefix(k, "charts/") {
			t.Errorf("a finding in a file crds names: %s", k)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".prodready.yaml"), []byte("crds: [vendor/missing]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, repo, "check", "apps"); code == 0 || code == 1 || !strings.Contains(errOut, `crds: "vendor/missing"`) {
		t.Errorf("crds naming a missing folder: exit %d, %s", code, errOut)
	}
}
