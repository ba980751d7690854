package network_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

const naPeerDir = "../../../../shared/peer-fixtures"

// naRunPeer checks the peer fixture files (plus extra documents) together
// and returns the findings of rule, by object name.
func naRunPeer(t *testing.T, rule string, extra string, files ...string) map[string]int {
	t.Helper()
	if _, err := os.Stat(naPeerDir); err != nil {
		t.Skip("../shared/peer-fixtures not present: " + err.Error())
	}
	var inputs []checks.Input
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(naPeerDir, f))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, checks.Input{Path: f, Data: data})
	}
	if extra != "" {
		inputs = append(inputs, checks.Input{Path: filepath.Join(filepath.Dir(files[0]), "zz-extra.yaml"), Data: []byte(extra)})
	}
	got := map[string]int{}
	for _, f := range checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{}).Findings {
		if f.RuleID == rule {
			got[f.Object.Kind+"/"+f.Object.Name]++
		}
	}
	return got
}

// TestPeersNetworkAccess maps the peers' checks with an equivalent among
// this family's rules to ours and asserts the same verdict on the peers'
// own fixtures, or states why ours differs.
func TestPeersNetworkAccess(t *testing.T) {
	cases := []struct {
		peer, check string
		files       []string
		extra       string // documents added to the run (e.g. the Namespace our rule needs)
		rule        string
		want        map[string]int // findings per Kind/name; objects not listed must not fire
		differs     string         // why our verdict differs from the peer's, when it does
	}{
		{
			peer: "kube-score", check: "Pod NetworkPolicy (GradeAllOK)", rule: "networkpolicy-missing",
			files: []string{"kube-score/networkpolicy-targets-all-pods.yaml"},
			extra: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: testspace\n",
			want:  map[string]int{},
		},
		{
			peer: "kube-score", check: "Pod NetworkPolicy (GradeCritical)", rule: "networkpolicy-missing",
			files: []string{"kube-score/networkpolicy-not-matching.yaml"},
			want:  map[string]int{},
			differs: "ours reports namespaces defined in the repo (the fixture defines none; its Pod has no namespace, " +
				"so it is not known to share testspace with the policy), and the fixture's podSelector {app: testapp} " +
				"is not a LabelSelector (schema-invalid reports it). kube-score grades each pod instead",
		},
		{
			peer: "kube-score", check: "NetworkPolicy targets Pod (GradeAllOK)", rule: "networkpolicy-selects-nothing",
			files: []string{"kube-score/networkpolicy-targets-all-pods.yaml"},
			want:  map[string]int{},
		},
		{
			// all-ok.yaml is asserted by no kube-score test; presumably every check passes on it.
			peer: "kube-score", check: "NetworkPolicy targets Pod (all-ok.yaml)", rule: "networkpolicy-selects-nothing",
			files: []string{"kube-score/all-ok.yaml"},
			want:  map[string]int{},
		},
		{
			peer: "kube-score", check: "Container Image Tag (GradeAllOK)", rule: "image-tag-mutable",
			files: []string{"kube-score/pod-image-tag-fixed.yaml"},
			want:  map[string]int{},
		},
		{
			peer: "kube-score", check: "Container Image Pull Policy (GradeAllOK)", rule: "image-tag-mutable",
			files: []string{"kube-score/pod-image-pullpolicy-undefined-latest-tag.yaml"},
			want:  map[string]int{"Pod/pod-test-1": 1},
			differs: "not the same check: kube-score's pull-policy check passes because :latest defaults imagePullPolicy to Always; " +
				"its Container Image Tag check (and ours) flags foo/bar:latest",
		},
		{
			peer: "kube-linter", check: "latest-tag (2 reports)", rule: "image-tag-mutable",
			files: []string{"kube-linter/latest-tag.yml"},
			want:  map[string]int{"Deployment/app": 1},
			differs: "kube-linter also reports the OpenShift DeploymentConfig; ours reads built-in workload kinds only " +
				"(the two dont-fire objects with app:v1 agree)",
		},
		{
			peer: "polaris", check: "tagNotSpecified failure.yaml", rule: "image-tag-mutable",
			files: []string{"polaris/tagNotSpecified/failure.yaml"},
			want:  map[string]int{"Pod/nginx": 1},
		},
		{
			peer: "polaris", check: "tagNotSpecified failure.latest.yaml", rule: "image-tag-mutable",
			files: []string{"polaris/tagNotSpecified/failure.latest.yaml"},
			want:  map[string]int{"Pod/nginx": 1},
		},
		{
			peer: "polaris", check: "tagNotSpecified success.yaml", rule: "image-tag-mutable",
			files: []string{"polaris/tagNotSpecified/success.yaml"},
			want:  map[string]int{},
		},
	}
	for _, c := range cases {
		t.Run(c.peer+"/"+c.check, func(t *testing.T) {
			got := naRunPeer(t, c.rule, c.extra, c.files...)
			if len(got) != len(c.want) {
				t.Errorf("%s on %v: got %v, want %v (%s)", c.rule, c.files, got, c.want, c.differs)
			}
			for k, n := range c.want {
				if got[k] != n {
					t.Errorf("%s on %v: %s fired %d times, want %d (%s)", c.rule, c.files, k, got[k], n, c.differs)
				}
			}
		})
	}
}
