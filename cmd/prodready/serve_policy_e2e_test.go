package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// policyFiles are the repository's admission policies at base: workloads
// name their team, and run at most max replicas.
func policyFiles(max string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: require-team-label
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
    - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
      message: every workload names its owning team in the label team
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: require-team-label
spec:
  policyName: require-team-label
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-ceiling
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
    - expression: "!has(object.spec.replicas) || object.spec.replicas <= ` + max + `"
      messageExpression: "'replicas ' + string(object.spec.replicas) + ' exceed the ceiling of ` + max + `'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-ceiling
spec:
  policyName: replica-ceiling
  validationActions: [Deny]
`
}

// deployment is a Deployment named name with replicas, labelled with a
// team when team is set.
func deployment(name, replicas, team string) string {
	labels := "    app: " + name + "\n"
	if team != "" {
		labels += "    team: " + team + "\n"
	}
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  labels:
` + labels + `spec:
  replicas: ` + replicas + `
  selector:
    matchLabels: {app: ` + name + `}
  template:
    metadata:
      labels: {app: ` + name + `}
    spec:
      containers:
        - name: ` + name + `
          image: ghcr.io/example/` + name + `:1.0.0
`
}

// TestServeReviewsWithTheRepositorysPolicies runs `prodready serve` as a
// process against the fake GitHub: a pull request that adds a Deployment
// the repository's own admission policy refuses gets an inline comment at
// the line and a failing check run; one that tightens a policy so an
// object already in the repository is refused gets that refusal too; one
// that loosens it so that object is admitted again counts it fixed, with
// a link to its line at base, and both say the counts reach beyond the
// changed files; one that adds a custom resource is validated against the
// CRD the config's crds names in a folder it excludes, which serve fetches
// from the host as check reads it from disk.
func TestServeReviewsWithTheRepositorysPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const secret = "e2e-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRules("policy", "crd-schema")
	base := map[string]string{
		".prodready.yaml":      config,
		"policies/policy.yaml": policyFiles("10"),
		"deploy/existing.yaml": deployment("existing", "6", "shop"),
	}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	adds, tightens, strictBase, loosens := headSHA(0), headSHA(1), headSHA(2), headSHA(3)
	fake.AddCommit("acme", "web", replicaBase, base)
	fake.AddCommit("acme", "web", adds, with(map[string]string{"deploy/new.yaml": deployment("new", "2", "")}))
	fake.AddCommit("acme", "web", tightens, with(map[string]string{"policies/policy.yaml": policyFiles("4")}))
	fake.SetPR("acme", "web", 1, replicaBase, adds)
	fake.SetPR("acme", "web", 2, replicaBase, tightens)
	fake.AddCommit("acme", "web", strictBase, with(map[string]string{"policies/policy.yaml": policyFiles("4")}))
	fake.AddCommit("acme", "web", loosens, base)
	fake.SetPR("acme", "web", 3, strictBase, loosens)
	crd, err := os.ReadFile("../../fixtures/admission/charts/guard/crds/databases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crdBase, addsDatabase := headSHA(4), headSHA(5)
	withCRDs := with(map[string]string{
		".prodready.yaml":            config + "exclude: [\"vendor/**\"]\ncrds: [vendor/crds]\n",
		"vendor/crds/databases.yaml": string(crd),
	})
	fake.AddCommit("acme", "web", crdBase, withCRDs)
	withDatabase := map[string]string{"deploy/db.yaml": "apiVersion: example.com/v1\nkind: Database\nmetadata:\n  name: orders\n  namespace: shop\nspec:\n  engine: oracle\n  storageGiB: 50\n"}
	for k, v := range withCRDs {
		withDatabase[k] = v
	}
	fake.AddCommit("acme", "web", addsDatabase, withDatabase)
	fake.SetPR("acme", "web", 4, crdBase, addsDatabase)

	r := startReplica(t, "policy", []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats"), "--queue-backoff", "100ms"})
	runOf := func(head string) *fakegithub.CheckRun {
		for _, run := range fake.CheckRuns("acme", "web") {
			if run.HeadSHA == head && run.Status == "completed" {
				return &run
			}
		}
		return nil
	}
	reviewOf := func(pr int) *fakegithub.Review {
		for _, rv := range fake.Reviews("acme", "web") {
			if rv.PR == pr {
				return &rv
			}
		}
		return nil
	}

	// 1. A pull request adds a Deployment without the team label.
	if code := r.deliver(t, secret, "adds", prBody(1, "opened", adds)); code != http.StatusAccepted {
		t.Fatalf("pull_request opened: %d", code)
	}
	waitFor(t, "the adding head's check run", func() bool { return runOf(adds) != nil })
	if c := runOf(adds).Conclusion; c != "failure" {
		t.Errorf("the adding head's check run concluded %q, want failure (the policy denies)", c)
	}
	rv := reviewOf(1)
	if rv == nil || len(rv.Comments) != 1 {
		t.Fatalf("review of the adding pull request: %+v; want one inline comment", rv)
	}
	c := rv.Comments[0]
	if c.Path != "deploy/new.yaml" || c.Line != 5 || !strings.Contains(c.Body, "policy/require-team-label") ||
		!strings.Contains(c.Body, "every workload names its owning team in the label team") || !strings.Contains(c.Body, "policies/policy.yaml:2") {
		t.Errorf("the inline comment: %s line %d:\n%s", c.Path, c.Line, c.Body)
	}

	// 2. A pull request tightens the ceiling below what an existing
	// Deployment runs: that Deployment is refused now.
	if code := r.deliver(t, secret, "tightens", prBody(2, "opened", tightens)); code != http.StatusAccepted {
		t.Fatalf("pull_request opened: %d", code)
	}
	waitFor(t, "the tightening head's check run", func() bool { return runOf(tightens) != nil })
	run := runOf(tightens)
	if run.Conclusion != "failure" {
		t.Errorf("the tightening head's check run concluded %q, want failure (an existing Deployment is refused now)", run.Conclusion)
	}
	all := run.Summary + run.Text
	if rv := reviewOf(2); rv != nil {
		all += rv.Body
		for _, c := range rv.Comments {
			all += c.Path + "\n" + c.Body
		}
	}
	if !strings.Contains(all, "replicas 6 exceed the ceiling of 4") || !strings.Contains(all, "deploy/existing.yaml") {
		t.Errorf("the tightening review does not name the existing Deployment it refuses now:\n%s", all)
	}
	const reach = "in the files this pull request changes and in other files its changes reach"
	if !strings.Contains(run.Summary+run.Text, reach) {
		t.Errorf("the tightening summary's counts do not say they reach beyond the changed files:\n%s", run.Summary+run.Text)
	}

	// 3. A pull request loosens the ceiling the base set below what the
	// existing Deployment runs: the base's refusal is fixed.
	loosening := strings.ReplaceAll(string(prBody(3, "opened", loosens)), replicaBase, strictBase) // based on the strict ceiling
	if code := r.deliver(t, secret, "loosens", []byte(loosening)); code != http.StatusAccepted {
		t.Fatalf("pull_request opened: %d", code)
	}
	waitFor(t, "the loosening head's check run", func() bool { return runOf(loosens) != nil })
	if c := runOf(loosens).Conclusion; c != "success" {
		t.Errorf("the loosening head's check run concluded %q, want success", c)
	}
	summary := runOf(loosens).Summary + runOf(loosens).Text
	if rv := reviewOf(3); rv != nil {
		summary += rv.Body
	}
	fixedRow := "`policy/replica-ceiling` on Deployment `existing` (`deploy/existing.yaml` [line 9](https://github.com/acme/web/blob/" + strictBase + "/deploy/existing.yaml#L9) at base)"
	if !strings.Contains(summary, "**1 fixed**") || !strings.Contains(summary, fixedRow) || !strings.Contains(summary, reach) {
		t.Errorf("the loosening review does not count the existing Deployment admitted again as fixed, linked at its line:\n%s", summary)
	}

	// 4. A custom resource against the CRD of the config's crds, in a
	// folder the config excludes.
	if code := r.deliver(t, secret, "database", []byte(strings.ReplaceAll(string(prBody(4, "opened", addsDatabase)), replicaBase, crdBase))); code != http.StatusAccepted {
		t.Fatalf("pull_request opened: %d", code)
	}
	waitFor(t, "the database head's check run", func() bool { return runOf(addsDatabase) != nil })
	run = runOf(addsDatabase)
	all = run.Summary + run.Text
	if rv := reviewOf(4); rv != nil {
		for _, c := range rv.Comments {
			all += c.Path + "\n" + c.Body
		}
	}
	if run.Conclusion != "failure" || !strings.Contains(all, "crd-schema") || !strings.Contains(all, "oracle is not offered") || strings.Contains(all, "no CRD in the repository") {
		t.Errorf("the Database is not validated against vendor/crds (conclusion %s):\n%s", run.Conclusion, all)
	}
	if strings.Contains(all, "**`vendor/crds/databases.yaml`**") {
		t.Errorf("the review reports on the CRD file crds names, which is read, not checked:\n%s", all)
	}
}
