package apicluster

import "testing"

// TestAPILifecycleMatchesDeprecationGuide pins the removal (and, where the
// guide gives it, deprecation) versions of the Kubernetes deprecation
// guide (kubernetes.io/docs/reference/using-api/deprecation-guide/) and the
// replacement each api-removed message names.
func TestAPILifecycleMatchesDeprecationGuide(t *testing.T) {
	cases := []struct {
		apiVersion, kind string
		removed          int
		replacement      string // group/version
	}{
		{"extensions/v1beta1", "Deployment", 16, "apps/v1"},
		{"extensions/v1beta1", "DaemonSet", 16, "apps/v1"},
		{"extensions/v1beta1", "ReplicaSet", 16, "apps/v1"},
		{"extensions/v1beta1", "NetworkPolicy", 16, "networking.k8s.io/v1"},
		{"apps/v1beta1", "Deployment", 16, "apps/v1"},
		{"apps/v1beta1", "StatefulSet", 16, "apps/v1"},
		{"apps/v1beta2", "Deployment", 16, "apps/v1"},
		{"apps/v1beta2", "DaemonSet", 16, "apps/v1"},
		{"extensions/v1beta1", "Ingress", 22, "networking.k8s.io/v1"},
		{"networking.k8s.io/v1beta1", "Ingress", 22, "networking.k8s.io/v1"},
		{"networking.k8s.io/v1beta1", "IngressClass", 22, "networking.k8s.io/v1"},
		{"admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration", 22, "admissionregistration.k8s.io/v1"},
		{"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", 22, "apiextensions.k8s.io/v1"},
		{"apiregistration.k8s.io/v1beta1", "APIService", 22, "apiregistration.k8s.io/v1"},
		{"rbac.authorization.k8s.io/v1beta1", "ClusterRole", 22, "rbac.authorization.k8s.io/v1"},
		{"scheduling.k8s.io/v1beta1", "PriorityClass", 22, "scheduling.k8s.io/v1"},
		{"storage.k8s.io/v1beta1", "StorageClass", 22, "storage.k8s.io/v1"},
		{"storage.k8s.io/v1beta1", "CSIDriver", 22, "storage.k8s.io/v1"},
		{"coordination.k8s.io/v1beta1", "Lease", 22, "coordination.k8s.io/v1"},
		{"certificates.k8s.io/v1beta1", "CertificateSigningRequest", 22, "certificates.k8s.io/v1"},
		{"batch/v1beta1", "CronJob", 25, "batch/v1"},
		{"discovery.k8s.io/v1beta1", "EndpointSlice", 25, "discovery.k8s.io/v1"},
		{"events.k8s.io/v1beta1", "Event", 25, "events.k8s.io/v1"},
		{"autoscaling/v2beta1", "HorizontalPodAutoscaler", 25, "autoscaling/v2"},
		{"policy/v1beta1", "PodDisruptionBudget", 25, "policy/v1"},
		{"node.k8s.io/v1beta1", "RuntimeClass", 25, "node.k8s.io/v1"},
		{"autoscaling/v2beta2", "HorizontalPodAutoscaler", 26, "autoscaling/v2"},
		{"flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", 26, "flowcontrol.apiserver.k8s.io/v1"},
		{"storage.k8s.io/v1beta1", "CSIStorageCapacity", 27, "storage.k8s.io/v1"},
		{"flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema", 29, "flowcontrol.apiserver.k8s.io/v1"},
		{"flowcontrol.apiserver.k8s.io/v1beta3", "PriorityLevelConfiguration", 32, "flowcontrol.apiserver.k8s.io/v1"},
	}
	for _, c := range cases {
		l, ok := lifecycleOf(c.apiVersion, c.kind)
		if !ok {
			t.Errorf("%s %s: no lifecycle known", c.apiVersion, c.kind)
			continue
		}
		if l.Removed != c.removed {
			t.Errorf("%s %s: removed in 1.%d, the guide says 1.%d", c.apiVersion, c.kind, l.Removed, c.removed)
		}
		if l.Deprecated == 0 || l.Deprecated > l.Removed {
			t.Errorf("%s %s: deprecated in 1.%d, before removal in 1.%d expected", c.apiVersion, c.kind, l.Deprecated, l.Removed)
		}
		repl := replacementAt(c.apiVersion, c.kind, l, 37)
		if got := repl.GroupVersion().String(); got != c.replacement {
			t.Errorf("%s %s: replacement %s, want %s", c.apiVersion, c.kind, got, c.replacement)
		}
	}
	// At 1.27 flowcontrol v1beta1's replacement v1beta3 is still served.
	if l, _ := lifecycleOf("flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema"); replacementAt("flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", l, 27).Version != "v1beta3" {
		t.Errorf("flowcontrol v1beta1 at 1.27: want v1beta3 as the replacement")
	}
	for _, gv := range []string{"v1", "apps/v1", "networking.k8s.io/v1", "policy/v1", "batch/v1", "autoscaling/v2"} {
		if l, ok := lifecycleOf(gv, "Deployment"); ok && l.Removed > 0 {
			t.Errorf("%s reported as removed", gv)
		}
	}
}
