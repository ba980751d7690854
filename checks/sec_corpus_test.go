package checks_test

import "testing"

// TestCorpusNoFalseAlarmsSecurity holds the corpus objects on which the
// security-context rules once gave false alarms.
func TestCorpusNoFalseAlarmsSecurity(t *testing.T) {
	resRunCorpusTable(t, []resNoAlarm{
		{repo: "radix-flux", file: "components/flux/flux-patches.yaml", kind: "Deployment", name: "helm-controller", rule: "service-account-token-automount",
			reason: "a kustomize patch of Flux's helm-controller (no containers): the real object names its own ServiceAccount"},
		{repo: "radix-flux", file: "components/flux/flux-patches.yaml", kind: "Deployment", name: "source-controller", rule: "default-service-account",
			reason: "a kustomize patch, not a whole Deployment"},
		{repo: "radix-flux", file: "components/flux/flux-patches/kustomize-controller.yaml", kind: "Deployment", name: "kustomize-controller", rule: "seccomp-profile-missing",
			reason: "a kustomize patch, not a whole Deployment"},
		{repo: "metrics-server", file: "master-kustomize-parts/manifests/components/high-availability/patch.yaml", kind: "Deployment", name: "metrics-server", rule: "service-account-token-automount",
			reason: "a kustomize component's patch"},
		{repo: "gitops-istio", file: "istio/system/namespace.yaml", kind: "Namespace", name: "istio-system", rule: "namespace-pod-security-missing", noFix: true,
			reason: "istio is installed by a HelmRelease: no workload of the namespace is in the repo, so enforcing a level blind could reject its pods"},
		{repo: "radix-flux", file: "components/third-party/velero/namespace.yaml", kind: "Namespace", name: "velero", rule: "namespace-pod-security-missing", noFix: true,
			reason: "velero comes from a HelmRelease"},
		{repo: "fluxcd-flux2", file: "cmd/flux/testdata/create_tenant/tenant-basic.yaml", kind: "Namespace", name: "apps", rule: "namespace-pod-security-missing", noFix: true,
			reason: "a tenant namespace whose workloads the tenant adds later"},
	})
}
