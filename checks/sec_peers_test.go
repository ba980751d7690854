package checks_test

import "testing"

// TestPeersSecurity compares the security-context rules with the peers'
// checks on the peers' own fixtures.
func TestPeersSecurity(t *testing.T) {
	const nonK8s = "OpenShift DeploymentConfig is not a Kubernetes kind; prodready checks Kubernetes workloads only"
	resRunPeerTable(t, []resPeerCase{
		// kube-linter run-as-non-root (HEAD expects 4 reports: app, app2, app3 runAsGroup 0, app4).
		{peer: "kube-linter", check: "run-as-non-root", file: "kube-linter/run-as-non-root.yml", kind: "Deployment", name: "dont-fire",
			rule: "run-as-root", peerFires: false, weFire: false, normalize: true},
		{peer: "kube-linter", check: "run-as-non-root", file: "kube-linter/run-as-non-root.yml", kind: "Deployment", name: "app1",
			rule: "run-as-root", peerFires: true, weFire: true, normalize: true,
			why: "the fixture's container-level runAsUser: 0 is not a Kubernetes field; without it no runAsNonRoot is set"},
		{peer: "kube-linter", check: "run-as-non-root", file: "kube-linter/run-as-non-root.yml", kind: "Deployment", name: "group-zero",
			rule: "run-as-root", peerFires: true, weFire: true, normalize: true,
			why: "runAsGroup: 0 (kube-linter HEAD; v0.8.3 did not check the group)"},
		{peer: "kube-linter", check: "run-as-non-root", file: "kube-linter/run-as-non-root.yml", kind: "Deployment", name: "group-zero",
			rule: "run-as-root", peerFires: true, weFire: false,
			why: "as written the container has no image, which the API server requires: a partial object (a patch), which we do not judge as a whole workload"},
		{peer: "kube-linter", check: "run-as-non-root", file: "kube-linter/run-as-non-root.yml", kind: "DeploymentConfig", name: "app2",
			rule: "run-as-root", peerFires: true, weFire: false, why: nonK8s},
		// kube-linter no-read-only-root-fs.
		{peer: "kube-linter", check: "no-read-only-root-fs", file: "kube-linter/no-read-only-root-fs.yml", kind: "Deployment", name: "dont-fire",
			rule: "readonly-rootfs-missing", peerFires: false, weFire: false, normalize: true},
		{peer: "kube-linter", check: "no-read-only-root-fs", file: "kube-linter/no-read-only-root-fs.yml", kind: "Deployment", name: "app1",
			rule: "readonly-rootfs-missing", peerFires: true, weFire: true, normalize: true},
		{peer: "kube-linter", check: "no-read-only-root-fs", file: "kube-linter/no-read-only-root-fs.yml", kind: "DeploymentConfig", name: "app2",
			rule: "readonly-rootfs-missing", peerFires: true, weFire: false, why: nonK8s},
		// polaris runAsRootAllowed (failure.yaml fails, success.yaml and the mutated fix pass).
		{peer: "polaris", check: "runAsRootAllowed", file: "polaris/runAsRootAllowed/failure.yaml", kind: "Deployment", name: "nginx",
			rule: "run-as-root", peerFires: true, weFire: true, normalize: true,
			why: "apiVersion v1 has no Deployment (the API server rejects it; api rules report that), so the object is judged as apps/v1"},
		{peer: "polaris", check: "runAsRootAllowed", file: "polaris/runAsRootAllowed/failure.yaml", kind: "Deployment", name: "nginx",
			rule: "run-as-root", peerFires: true, weFire: false,
			why: "as written, v1 Deployment is no Kubernetes type: it is not a workload we can decode"},
		{peer: "polaris", check: "runAsRootAllowed", file: "polaris/runAsRootAllowed/success.yaml", kind: "Deployment", name: "nginx",
			rule: "run-as-root", peerFires: false, weFire: false, normalize: true},
		{peer: "polaris", check: "runAsRootAllowed", file: "polaris/runAsRootAllowed/mutated.yaml", kind: "Deployment", name: "nginx",
			rule: "run-as-root", peerFires: false, weFire: false, normalize: true,
			why: "polaris's own fix (runAsNonRoot: true) passes ours too; ours adds numeric runAsUser/runAsGroup so images whose USER is a name still start"},
		// kube-score.
		{peer: "kube-score", check: "Container Seccomp Profile (optional)", file: "kube-score/pod-seccomp-no-annotation.yaml", kind: "Pod", name: "pod-test-1",
			rule: "seccomp-profile-missing", peerFires: true, weFire: true,
			why: "kube-score warns only when the optional check is enabled; ours is on by default as info"},
		{peer: "kube-score", check: "Container Security Context User Group ID", file: "kube-score/all-ok.yaml", kind: "Pod", name: "pod-test-1",
			rule: "run-as-root", peerFires: false, weFire: false},
		{peer: "kube-score", check: "Container Security Context ReadOnlyRootFilesystem", file: "kube-score/all-ok.yaml", kind: "Pod", name: "pod-test-1",
			rule: "readonly-rootfs-missing", peerFires: false, weFire: false},
		{peer: "kube-score", check: "Container Security Context Privileged", file: "kube-score/all-ok.yaml", kind: "Pod", name: "pod-test-1",
			rule: "privileged-container", peerFires: false, weFire: false},
		{peer: "kube-score", check: "(ignore annotation)", file: "kube-score/kube-score-ignore-annotations.yaml", kind: "Pod", name: "kube-score-ignore-annotations",
			rule: "readonly-rootfs-missing", peerFires: false, weFire: true,
			why: "kube-score honours its own kube-score/ignore annotation; prodready has its own ignore comments and does not read other tools' annotations"},
	})
}
