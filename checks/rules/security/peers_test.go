package security_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestPeersSecurity compares the security-context rules with the peers'
// checks on the peers' own fixtures.
func TestPeersSecurity(t *testing.T) {
	const nonK8s = "OpenShift DeploymentConfig is not a Kubernetes kind; prodready checks Kubernetes workloads only"
	checkstest.RunPeerCases(t, catalog.Default(), []checkstest.PeerCase{
		// kube-linter run-as-non-root (HEAD expects 4 reports: app, app2, app3 runAsGroup 0, app4).
		{Peer: "kube-linter", Check: "run-as-non-root", File: "kube-linter/run-as-non-root.yml", Kind: "Deployment", Name: "dont-fire",
			Rule: "run-as-root", PeerFires: false, WeFire: false, Normalize: true},
		{Peer: "kube-linter", Check: "run-as-non-root", File: "kube-linter/run-as-non-root.yml", Kind: "Deployment", Name: "app1",
			Rule: "run-as-root", PeerFires: true, WeFire: true, Normalize: true,
			Why: "the fixture's container-level runAsUser: 0 is not a Kubernetes field; without it no runAsNonRoot is set"},
		{Peer: "kube-linter", Check: "run-as-non-root", File: "kube-linter/run-as-non-root.yml", Kind: "Deployment", Name: "group-zero",
			Rule: "run-as-root", PeerFires: true, WeFire: true, Normalize: true,
			Why: "runAsGroup: 0 (kube-linter HEAD; v0.8.3 did not check the group)"},
		{Peer: "kube-linter", Check: "run-as-non-root", File: "kube-linter/run-as-non-root.yml", Kind: "Deployment", Name: "group-zero",
			Rule: "run-as-root", PeerFires: true, WeFire: false,
			Why: "as written the container has no image, which the API server requires: a partial object (a patch), which we do not judge as a whole workload"},
		{Peer: "kube-linter", Check: "run-as-non-root", File: "kube-linter/run-as-non-root.yml", Kind: "DeploymentConfig", Name: "app2",
			Rule: "run-as-root", PeerFires: true, WeFire: false, Why: nonK8s},
		// kube-linter no-read-only-root-fs.
		{Peer: "kube-linter", Check: "no-read-only-root-fs", File: "kube-linter/no-read-only-root-fs.yml", Kind: "Deployment", Name: "dont-fire",
			Rule: "readonly-rootfs-missing", PeerFires: false, WeFire: false, Normalize: true},
		{Peer: "kube-linter", Check: "no-read-only-root-fs", File: "kube-linter/no-read-only-root-fs.yml", Kind: "Deployment", Name: "app1",
			Rule: "readonly-rootfs-missing", PeerFires: true, WeFire: true, Normalize: true},
		{Peer: "kube-linter", Check: "no-read-only-root-fs", File: "kube-linter/no-read-only-root-fs.yml", Kind: "DeploymentConfig", Name: "app2",
			Rule: "readonly-rootfs-missing", PeerFires: true, WeFire: false, Why: nonK8s},
		// polaris runAsRootAllowed (failure.yaml fails, success.yaml and the mutated fix pass).
		{Peer: "polaris", Check: "runAsRootAllowed", File: "polaris/runAsRootAllowed/failure.yaml", Kind: "Deployment", Name: "nginx",
			Rule: "run-as-root", PeerFires: true, WeFire: true, Normalize: true,
			Why: "apiVersion v1 has no Deployment (the API server rejects it; api rules report that), so the object is judged as apps/v1"},
		{Peer: "polaris", Check: "runAsRootAllowed", File: "polaris/runAsRootAllowed/failure.yaml", Kind: "Deployment", Name: "nginx",
			Rule: "run-as-root", PeerFires: true, WeFire: false,
			Why: "as written, v1 Deployment is no Kubernetes type: it is not a workload we can decode"},
		{Peer: "polaris", Check: "runAsRootAllowed", File: "polaris/runAsRootAllowed/success.yaml", Kind: "Deployment", Name: "nginx",
			Rule: "run-as-root", PeerFires: false, WeFire: false, Normalize: true},
		{Peer: "polaris", Check: "runAsRootAllowed", File: "polaris/runAsRootAllowed/mutated.yaml", Kind: "Deployment", Name: "nginx",
			Rule: "run-as-root", PeerFires: false, WeFire: false, Normalize: true,
			Why: "polaris's own fix (runAsNonRoot: true) passes ours too; ours adds numeric runAsUser/runAsGroup so images whose USER is a name still start"},
		// kube-score.
		{Peer: "kube-score", Check: "Container Seccomp Profile (optional)", File: "kube-score/pod-seccomp-no-annotation.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "seccomp-profile-missing", PeerFires: true, WeFire: true,
			Why: "kube-score warns only when the optional check is enabled; ours is on by default as info"},
		{Peer: "kube-score", Check: "Container Security Context User Group ID", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "run-as-root", PeerFires: false, WeFire: false},
		{Peer: "kube-score", Check: "Container Security Context ReadOnlyRootFilesystem", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "readonly-rootfs-missing", PeerFires: false, WeFire: false},
		{Peer: "kube-score", Check: "Container Security Context Privileged", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "privileged-container", PeerFires: false, WeFire: false},
		{Peer: "kube-score", Check: "(ignore annotation)", File: "kube-score/kube-score-ignore-annotations.yaml", Kind: "Pod", Name: "kube-score-ignore-annotations",
			Rule: "readonly-rootfs-missing", PeerFires: false, WeFire: true,
			Why: "kube-score honours its own kube-score/ignore annotation; prodready has its own ignore comments and does not read other tools' annotations"},
	})
}
