package security_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestCorpusNoFalseAlarmsSecurity holds the corpus objects on which the
// security-context rules once gave false alarms.
func TestCorpusNoFalseAlarmsSecurity(t *testing.T) {
	checkstest.RunNoAlarms(t, catalog.Default(), "rules:\n  cpu-limit-set: {enabled: true}\n  priority-class-missing: {enabled: true}\n", []checkstest.NoAlarm{
		{Repo: "radix-flux", File: "components/flux/flux-patches.yaml", Kind: "Deployment", Name: "helm-controller", Rule: "service-account-token-automount",
			Reason: "a kustomize patch of Flux's helm-controller (no containers): the real object names its own ServiceAccount"},
		{Repo: "radix-flux", File: "components/flux/flux-patches.yaml", Kind: "Deployment", Name: "source-controller", Rule: "default-service-account",
			Reason: "a kustomize patch, not a whole Deployment"},
		{Repo: "radix-flux", File: "components/flux/flux-patches/kustomize-controller.yaml", Kind: "Deployment", Name: "kustomize-controller", Rule: "seccomp-profile-missing",
			Reason: "a kustomize patch, not a whole Deployment"},
		{Repo: "metrics-server", File: "master-kustomize-parts/manifests/components/high-availability/patch.yaml", Kind: "Deployment", Name: "metrics-server", Rule: "service-account-token-automount",
			Reason: "a kustomize component's patch"},
		{Repo: "gitops-istio", File: "istio/system/namespace.yaml", Kind: "Namespace", Name: "istio-system", Rule: "namespace-pod-security-missing", NoFix: true,
			Reason: "istio is installed by a HelmRelease: no workload of the namespace is in the repo, so enforcing a level blind could reject its pods"},
		{Repo: "radix-flux", File: "components/third-party/velero/namespace.yaml", Kind: "Namespace", Name: "velero", Rule: "namespace-pod-security-missing", NoFix: true,
			Reason: "velero comes from a HelmRelease"},
		{Repo: "fluxcd-flux2", File: "cmd/flux/testdata/create_tenant/tenant-basic.yaml", Kind: "Namespace", Name: "apps", Rule: "namespace-pod-security-missing", NoFix: true,
			Reason: "a tenant namespace whose workloads the tenant adds later"},
	})
}
