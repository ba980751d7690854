package resources_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestPeersResources compares the resources rules with the peers' checks
// on the peers' own fixtures.
func TestPeersResources(t *testing.T) {
	checkstest.RunPeerCases(t, catalog.Default(), []checkstest.PeerCase{
		{Peer: "kube-linter", Check: "unset-cpu-requirements", File: "kube-linter/unset-cpu-requirements.yml", Kind: "Deployment", Name: "app1",
			Rule: "cpu-requests-missing", PeerFires: true, WeFire: true, Normalize: true,
			Why: "the fixture's container-level requests: is not a Kubernetes field; both tools see no CPU request"},
		{Peer: "kube-linter", Check: "unset-cpu-requirements", File: "kube-linter/unset-cpu-requirements.yml", Kind: "Deployment", Name: "app1",
			Rule: "cpu-requests-missing", PeerFires: true, WeFire: false,
			Why: "as written the container has no image, which the API server requires: it is a partial object (a patch), and we judge only whole workloads"},
		{Peer: "kube-linter", Check: "unset-cpu-requirements", File: "kube-linter/unset-cpu-requirements.yml", Kind: "DeploymentConfig", Name: "app2",
			Rule: "cpu-requests-missing", PeerFires: true, WeFire: false,
			Why: "OpenShift DeploymentConfig is not a Kubernetes kind; prodready checks Kubernetes workloads only"},
		{Peer: "polaris", Check: "cpuLimitsMissing", File: "polaris/cpuLimitsMissing/failure.yaml", Kind: "Pod", Name: "nginx",
			Rule: "cpu-requests-missing", PeerFires: true, WeFire: true,
			Why: "no CPU request nor limit: polaris asks for a limit, we for a request (CPU limits throttle)"},
		{Peer: "polaris", Check: "cpuLimitsMissing", File: "polaris/cpuLimitsMissing/success.yaml", Kind: "Pod", Name: "nginx",
			Rule: "cpu-requests-missing", PeerFires: false, WeFire: false,
			Why: "a CPU limit defaults the request"},
		{Peer: "polaris", Check: "cpuLimitsMissing", File: "polaris/cpuLimitsMissing/success.yaml", Kind: "Pod", Name: "nginx",
			Rule: "cpu-limit-set", PeerFires: false, WeFire: true,
			Why: "opposite advice by design: CPU limits throttle, so the opt-in cpu-limit-set reports the limit polaris requires"},
		{Peer: "polaris", Check: "cpuLimitsMissing", File: "polaris/cpuLimitsMissing/failure.yaml", Kind: "Pod", Name: "nginx",
			Rule: "cpu-limit-set", PeerFires: true, WeFire: false,
			Why: "opposite advice by design: no CPU limit is what cpu-limit-set wants"},
		{Peer: "kube-score", Check: "Container Resources", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "memory-requests-missing", PeerFires: false, WeFire: false},
		{Peer: "kube-score", Check: "Container Resources", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "cpu-requests-missing", PeerFires: false, WeFire: false},
		{Peer: "kube-score", Check: "Container Resources", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "memory-limit-missing", PeerFires: false, WeFire: false},
		{Peer: "kube-score", Check: "Container Resources", File: "kube-score/all-ok.yaml", Kind: "Pod", Name: "pod-test-1",
			Rule: "limit-below-request", PeerFires: false, WeFire: false},
	})
}
