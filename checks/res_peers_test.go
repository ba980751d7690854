package checks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
)

// resPeerDir holds the peers' own test fixtures (kube-linter, kube-score,
// polaris), with their expectations.
const resPeerDir = "../../shared/peer-fixtures"

// resPeerCase maps one peer check's verdict on one object of its fixture
// to ours.
type resPeerCase struct {
	peer, check string // e.g. kube-linter, run-as-non-root
	file        string // relative to resPeerDir
	kind, name  string // the object
	rule        string // our rule
	peerFires   bool   // the peer's verdict, from its test expectations
	weFire      bool   // ours; differs from peerFires only with a why
	why         string // why ours differs, or what the mapping rests on
	// normalize makes the peer's object one the API server would take
	// (apiVersion apps/v1 for "v1" Deployments, an image for containers
	// without one, no fields Kubernetes does not know): the peers judge
	// such objects leniently, we judge only objects that could be applied.
	normalize bool
}

// resPeerNormalize rewrites each document of a peer fixture into an object
// the API server accepts, keeping what the check is about.
func resPeerNormalize(t *testing.T, data []byte) []byte {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc == nil {
			continue
		}
		if doc["kind"] == "Deployment" && doc["apiVersion"] == "v1" {
			doc["apiVersion"] = "apps/v1"
		}
		var containers []any
		if spec, _ := doc["spec"].(map[string]any); spec != nil {
			if tpl, _ := spec["template"].(map[string]any); tpl != nil {
				if ps, _ := tpl["spec"].(map[string]any); ps != nil {
					containers, _ = ps["containers"].([]any)
				}
			}
			if c, ok := spec["containers"].([]any); ok {
				containers = c
			}
		}
		for _, c := range containers {
			m, _ := c.(map[string]any)
			if m == nil {
				continue
			}
			if _, ok := m["image"]; !ok {
				m["image"] = "registry.example/app:1.0.0"
			}
			delete(m, "runAsUser") // misplaced: Kubernetes drops it, as the peers' decoders do
			delete(m, "requests")
		}
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func resRunPeerTable(t *testing.T, table []resPeerCase) {
	t.Helper()
	if _, err := os.Stat(resPeerDir); err != nil {
		t.Skip("../shared/peer-fixtures not present: ", err)
	}
	for _, tc := range table {
		t.Run(tc.peer+"/"+tc.check+"/"+tc.file+"/"+tc.name, func(t *testing.T) {
			if checks.DefaultCatalog().Lookup(tc.rule) == nil {
				t.Fatalf("unknown rule %s", tc.rule)
			}
			if tc.peerFires != tc.weFire && tc.why == "" {
				t.Fatalf("verdicts differ without a why")
			}
			data, err := os.ReadFile(filepath.Join(resPeerDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if tc.normalize {
				data = resPeerNormalize(t, data)
			}
			cfg, err := checks.ParseConfig([]byte("rules:\n  "+tc.rule+": {enabled: true}\n"), checks.DefaultCatalog())
			if err != nil {
				t.Fatal(err)
			}
			res := checks.Run([]checks.Input{{Path: tc.file, Data: data}}, cfg, checks.Options{})
			fired := false
			for _, f := range res.Findings {
				fired = fired || (f.RuleID == tc.rule && f.Object.Kind == tc.kind && f.Object.Name == tc.name)
			}
			if fired != tc.weFire {
				t.Errorf("%s on %s %s: fired=%v, want %v (peer %s %s fires=%v)", tc.rule, tc.kind, tc.name, fired, tc.weFire, tc.peer, tc.check, tc.peerFires)
			}
		})
	}
}

// TestPeersResources compares the resources rules with the peers' checks
// on the peers' own fixtures.
func TestPeersResources(t *testing.T) {
	resRunPeerTable(t, []resPeerCase{
		{peer: "kube-linter", check: "unset-cpu-requirements", file: "kube-linter/unset-cpu-requirements.yml", kind: "Deployment", name: "app1",
			rule: "cpu-requests-missing", peerFires: true, weFire: true, normalize: true,
			why: "the fixture's container-level requests: is not a Kubernetes field; both tools see no CPU request"},
		{peer: "kube-linter", check: "unset-cpu-requirements", file: "kube-linter/unset-cpu-requirements.yml", kind: "Deployment", name: "app1",
			rule: "cpu-requests-missing", peerFires: true, weFire: false,
			why: "as written the container has no image, which the API server requires: it is a partial object (a patch), and we judge only whole workloads"},
		{peer: "kube-linter", check: "unset-cpu-requirements", file: "kube-linter/unset-cpu-requirements.yml", kind: "DeploymentConfig", name: "app2",
			rule: "cpu-requests-missing", peerFires: true, weFire: false,
			why: "OpenShift DeploymentConfig is not a Kubernetes kind; prodready checks Kubernetes workloads only"},
		{peer: "polaris", check: "cpuLimitsMissing", file: "polaris/cpuLimitsMissing/failure.yaml", kind: "Pod", name: "nginx",
			rule: "cpu-requests-missing", peerFires: true, weFire: true,
			why: "no CPU request nor limit: polaris asks for a limit, we for a request (004: CPU limits throttle)"},
		{peer: "polaris", check: "cpuLimitsMissing", file: "polaris/cpuLimitsMissing/success.yaml", kind: "Pod", name: "nginx",
			rule: "cpu-requests-missing", peerFires: false, weFire: false,
			why: "a CPU limit defaults the request"},
		{peer: "polaris", check: "cpuLimitsMissing", file: "polaris/cpuLimitsMissing/success.yaml", kind: "Pod", name: "nginx",
			rule: "cpu-limit-set", peerFires: false, weFire: true,
			why: "opposite advice by design: 004 says CPU limits throttle, so the opt-in cpu-limit-set reports the limit polaris requires"},
		{peer: "polaris", check: "cpuLimitsMissing", file: "polaris/cpuLimitsMissing/failure.yaml", kind: "Pod", name: "nginx",
			rule: "cpu-limit-set", peerFires: true, weFire: false,
			why: "opposite advice by design: no CPU limit is what cpu-limit-set wants"},
		{peer: "kube-score", check: "Container Resources", file: "kube-score/all-ok.yaml", kind: "Pod", name: "pod-test-1",
			rule: "memory-requests-missing", peerFires: false, weFire: false},
		{peer: "kube-score", check: "Container Resources", file: "kube-score/all-ok.yaml", kind: "Pod", name: "pod-test-1",
			rule: "cpu-requests-missing", peerFires: false, weFire: false},
		{peer: "kube-score", check: "Container Resources", file: "kube-score/all-ok.yaml", kind: "Pod", name: "pod-test-1",
			rule: "memory-limit-missing", peerFires: false, weFire: false},
		{peer: "kube-score", check: "Container Resources", file: "kube-score/all-ok.yaml", kind: "Pod", name: "pod-test-1",
			rule: "limit-below-request", peerFires: false, weFire: false},
	})
}
