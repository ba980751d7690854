package faulttolerance_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// ftPeerDir holds the peers' own test fixtures (see its SOURCES.txt).
const ftPeerDir = "../../../../shared/peer-fixtures"

// ftPeerCase maps one peer check on one of its fixtures' objects to our
// rule, with the peer's verdict (from its test expectations) and ours.
type ftPeerCase struct {
	peer, check, file string
	kind, name        string
	rule              string
	peerFires         bool
	weFire            bool
	// differs says why our verdict is not the peer's (required when they differ).
	differs string
}

var ftPeerCases = []ftPeerCase{
	// kube-linter no-liveness-probe (EXPECTATIONS.tsv: 2 reports, app1 and app2).
	{"kube-linter", "no-liveness-probe", "kube-linter/no-liveness-probe.yml", "Deployment", "app1", "liveness-probe-missing", true, true, ""},
	{"kube-linter", "no-liveness-probe", "kube-linter/no-liveness-probe.yml", "DeploymentConfig", "app2", "liveness-probe-missing", true, false,
		"DeploymentConfig is OpenShift's kind (apps.openshift.io), not a Kubernetes built-in: we do not decode its pod template"},
	{"kube-linter", "no-liveness-probe", "kube-linter/no-liveness-probe.yml", "Deployment", "dont-fire", "liveness-probe-missing", false, false, ""},
	// polaris livenessProbeMissing (file names: failure* fails, success* passes).
	{"polaris", "livenessProbeMissing", "polaris/livenessProbeMissing/failure.yaml", "Pod", "liveness-exec", "liveness-probe-missing", true, true, ""},
	{"polaris", "livenessProbeMissing", "polaris/livenessProbeMissing/success.yaml", "Pod", "liveness-exec", "liveness-probe-missing", false, false, ""},
	{"polaris", "livenessProbeMissing", "polaris/livenessProbeMissing/mutated.yaml", "Pod", "liveness-exec", "liveness-probe-missing", false, false, ""},
	// polaris deploymentMissingReplicas.
	{"polaris", "deploymentMissingReplicas", "polaris/deploymentMissingReplicas/failure.yaml", "Deployment", "nginx", "replicas-too-few", true, false,
		"the fixture's apiVersion v1 has no Deployment (the API server rejects it), and no Service selects it: we only judge serving apps/v1 workloads (a worker or leader-elected singleton may run one replica)"},
	{"polaris", "deploymentMissingReplicas", "polaris/deploymentMissingReplicas/success.yaml", "Deployment", "nginx", "replicas-too-few", false, false, ""},
	// kube-score "Deployment has host PodAntiAffinity" (GradeWarning).
	{"kube-score", "Deployment has host PodAntiAffinity", "kube-score/deployment-host-antiaffinity-not-set.yaml", "Deployment", "deployment-anti-affinity-not-set", "spread-missing", true, true, ""},
	// kube-score "Deployment has PodDisruptionBudget" (GradeCritical: the PDB selects app: not-foo).
	{"kube-score", "Deployment has PodDisruptionBudget", "kube-score/deployment-poddisruptionbudget-v1-no-match.yaml", "Deployment", "statefulset-test-1", "pdb-missing", true, false,
		"replicas is unset (one pod) and no Service selects it: a PDB cannot keep a single pod up, and pdb-missing asks only for serving workloads with more than one replica"},
	// kube-score all-ok.yaml (not asserted upstream; presumably passes every check): the probes differ.
	{"kube-score", "Pod Probes", "kube-score/all-ok.yaml", "Pod", "pod-test-1", "probes-identical", false, false, ""},
}

// TestPeersHealthFaultTolerance runs our rules on the peers' fixtures and
// checks our verdict, and that every difference from the peer is explained.
func TestPeersHealthFaultTolerance(t *testing.T) {
	if _, err := os.Stat(ftPeerDir); err != nil {
		t.Skip("../shared/peer-fixtures not present: " + err.Error())
	}
	for _, tc := range ftPeerCases {
		t.Run(tc.peer+"/"+tc.check+"/"+filepath.Base(tc.file)+"/"+tc.name, func(t *testing.T) {
			if tc.peerFires != tc.weFire && tc.differs == "" {
				t.Fatal("our verdict differs from the peer's without a reason")
			}
			path := filepath.Join(ftPeerDir, tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res := checks.Run([]checks.Input{{Path: tc.file, Data: data}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
			seen, fired := false, false
			for _, f := range res.Files {
				for _, o := range f.Objects {
					seen = seen || (o.Kind == tc.kind && o.Name == tc.name)
				}
			}
			for _, f := range res.Findings {
				fired = fired || (f.RuleID == tc.rule && f.Object.Kind == tc.kind && f.Object.Name == tc.name)
			}
			if !seen {
				t.Fatalf("%s %s/%s not in the fixture", tc.file, tc.kind, tc.name)
			}
			if fired != tc.weFire {
				t.Errorf("%s on %s %s/%s: fired = %v, want %v (peer %s %q fires: %v; %s)", tc.rule, tc.file, tc.kind, tc.name, fired, tc.weFire, tc.peer, tc.check, tc.peerFires, tc.differs)
			}
		})
	}
}
