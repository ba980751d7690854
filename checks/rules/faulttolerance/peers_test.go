package faulttolerance_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestPeersHealthFaultTolerance runs our rules on the peers' fixtures and
// checks our verdict, and that every difference from the peer is explained.
func TestPeersHealthFaultTolerance(t *testing.T) {
	checkstest.RunPeerCases(t, catalog.Default(), []checkstest.PeerCase{
		// kube-linter no-liveness-probe (EXPECTATIONS.tsv: 2 reports, app1 and app2).
		{Peer: "kube-linter", Check: "no-liveness-probe", File: "kube-linter/no-liveness-probe.yml", Kind: "Deployment", Name: "app1",
			Rule: "liveness-probe-missing", PeerFires: true, WeFire: true},
		{Peer: "kube-linter", Check: "no-liveness-probe", File: "kube-linter/no-liveness-probe.yml", Kind: "DeploymentConfig", Name: "app2",
			Rule: "liveness-probe-missing", PeerFires: true, WeFire: false,
			Why: "DeploymentConfig is OpenShift's kind (apps.openshift.io), not a Kubernetes built-in: we do not decode its pod template"},
		{Peer: "kube-linter", Check: "no-liveness-probe", File: "kube-linter/no-liveness-probe.yml", Kind: "Deployment", Name: "dont-fire",
			Rule: "liveness-probe-missing", PeerFires: false, WeFire: false},
		// polaris livenessProbeMissing (file names: failure* fails, success* passes).
		{Peer: "polaris", Check: "livenessProbeMissing", File: "polaris/livenessProbeMissing/failure.yaml", Kind: "Pod", Name: "liveness-exec",
			Rule: "liveness-probe-missing", PeerFires: true, WeFire: true},
		{Peer: "polaris", Check: "livenessProbeMissing", File: "polaris/livenessProbeMissing/success.yaml", Kind: "Pod", Name: "liveness-exec",
			Rule: "liveness-probe-missing", PeerFires: false, WeFire: false},
		{Peer: "polaris", Check: "livenessProbeMissing", File: "polaris/livenessProbeMissing/mutated.yaml", Kind: "Pod", Name: "liveness-exec",
			Rule: "liveness-probe-missing", PeerFires: false, WeFire: false},
		// polaris deploymentMissingReplicas.
		{Peer: "polaris", Check: "deploymentMissingReplicas", File: "polaris/deploymentMissingReplicas/failure.yaml", Kind: "Deployment", Name: "nginx",
			Rule: "replicas-too-few", PeerFires: true, WeFire: false,
			Why: "the fixture's apiVersion v1 has no Deployment (the API server rejects it), and no Service selects it: we only judge serving apps/v1 workloads (a worker or leader-elected singleton may run one replica)"},
		{Peer: "polaris", Check: "deploymentMissingReplicas", File: "polaris/deploymentMissingReplicas/success.yaml", Kind: "Deployment", Name: "nginx",
			Rule: "replicas-too-few", PeerFires: false, WeFire: false},
		// kube-score "Deployment has host PodAntiAffinity" (GradeWarning).
		{Peer: "kube-score", Check: "Deployment has host PodAntiAffinity", File: "kube-score/deployment-host-antiaffinity-not-set.yaml", Kind: "Deployment", Name: "deployment-anti-affinity-not-set",
			Rule: "spread-missing", PeerFires: true, WeFire: true},
		// kube-score "Deployment has PodDisruptionBudget" (GradeCritical: the PDB selects app: not-foo).
		{Peer: "kube-score", Check: "Deployment has PodDisruptionBudget", File: "kube-score/deployment-poddisruptionbudget-v1-no-match.yaml", Kind: "Deployment", Name: "statefulset-test-1",
			Rule: "pdb-missing", PeerFires: true, WeFire: false,
			Why: "replicas is unset (one pod) and no Service selects it: a PDB cannot keep a single pod up, and pdb-missing asks only for serving workloads with more than one replica"},
		// kube-score all-ok.yaml (not asserted upstream; presumably passes every check): the probes differ.
		{Peer: "kube-score", Check: "Pod Probes", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "probes-identical", PeerFires: false, WeFire: false},
		// kube-score's "same readiness and liveness probe" compares the handlers only (path and port, the
		// command), as probes-equivalent does before it asks whether the timings fail together.
		{Peer: "kube-score", Check: "Pod Probes", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "probes-equivalent", PeerFires: false, WeFire: false},
	})
}
