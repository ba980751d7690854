package policy_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestExamplePoliciesBothWays runs the catalog's custom policies shipped
// in docs/policies on fixtures/policy-examples twice: as the repository's
// ValidatingAdmissionPolicies, and as checks of .prodready.yaml. Both
// refuse the same objects, with the same severity and message.
func TestExamplePoliciesBothWays(t *testing.T) {
	root := filepath.Dir(checkstest.RulesDir(t)) // fixtures
	docs := filepath.Join(filepath.Dir(root), "docs", "policies")
	objects := filepath.Join(root, "policy-examples", "objects.yaml")
	read := func(p string) checks.Input {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return checks.Input{Path: filepath.Base(p), Data: data}
	}
	refusals := func(res *checks.Result) []string {
		var out []string
		for _, f := range res.Findings {
			if strings.HasPrefix(f.RuleID, "policy/") {
				msg := f.Message[:strings.LastIndex(f.Message, " (")] // less which policy says it
				out = append(out, f.RuleID+" "+f.Severity.String()+" "+f.Object.Kind+"/"+f.Object.Name+": "+msg)
			}
		}
		sort.Strings(out)
		return out
	}

	asVAPs := checks.Run([]checks.Input{
		read(filepath.Join(docs, "approved-registries.yaml")),
		read(filepath.Join(docs, "approved-ingress-domains.yaml")),
		read(filepath.Join(docs, "unique-ingress-hosts.yaml")),
		read(objects),
	}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	text, err := os.ReadFile(filepath.Join(docs, "prodready.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := checks.ParseConfig(text, catalog.Default())
	if err != nil {
		t.Fatalf("docs/policies/prodready.yaml: %v", err)
	}
	asChecks := checks.Run([]checks.Input{read(objects)}, cfg, checks.Options{})

	want := []string{
		"policy/approved-ingress-domains error Ingress/shop: Ingress hosts are under the approved domains (example.com, example.net): shop.example.org",
		"policy/approved-registries error Deployment/web: images come from the approved registries only (ghcr.io/example/, registry.example.com/): docker.io/library/busybox:1.36",
		"policy/unique-ingress-hosts warning Ingress/shop: each host appears in one rule of the Ingress (merge the paths of a host into one rule)",
	}
	if diff := cmp.Diff(want, refusals(asVAPs)); diff != "" {
		t.Errorf("as ValidatingAdmissionPolicies (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, refusals(asChecks)); diff != "" {
		t.Errorf("as checks of .prodready.yaml (-want +got):\n%s", diff)
	}
	for _, res := range []*checks.Result{asVAPs, asChecks} {
		for _, u := range res.Unchecked {
			if strings.HasPrefix(u.At.RuleID, "policy/") {
				t.Errorf("an example policy was not evaluated: %s", u.Reason)
			}
		}
	}
}
