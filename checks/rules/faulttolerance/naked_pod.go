package faulttolerance

import (
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var nakedPod = &checks.Rule{
	ID:       "naked-pod",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/overview/#naked-pods-vs-replicasets-deployments-and-jobs",
	Why:      "a bare Pod outside any controller is not recreated when its node fails or is drained",
	Help:     "Run it from a Deployment (or a StatefulSet, DaemonSet or Job). Static control-plane pods, which the kubelet runs from its manifests folder, are exempt.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pod, ok := obj.Typed().(*corev1.Pod)
		if !ok || len(pod.OwnerReferences) > 0 || staticPod(ctx, obj, pod) || helmHook(obj) {
			return nil
		}
		return []checks.Finding{checks.At(obj, kindPath, "bare Pod "+strconv.Quote(obj.Name)+" has no controller: it is not recreated when its node fails or is drained (run it from a Deployment, StatefulSet, DaemonSet or Job)")}
	},
}

// staticPod reports whether a Pod is a static control-plane pod: a
// kube-system pod labelled tier: control-plane, or a file in a kubelet
// manifests folder (…/kubernetes/manifests/, or a manifests/ folder holding
// a host-network kube-system pod).
func staticPod(ctx *checks.Context, obj *manifest.Object, pod *corev1.Pod) bool {
	ns := ctx.Namespace(obj)
	if ns == "kube-system" && pod.Labels["tier"] == "control-plane" {
		return true
	}
	p := "/" + obj.File.Path
	if strings.Contains(p, "/kubernetes/manifests/") || strings.Contains(p, "/kubelet/manifests/") || strings.Contains(p, "/static-pods/") {
		return true
	}
	return strings.Contains(p, "/manifests/") && ns == "kube-system" && pod.Spec.HostNetwork
}

// helmHook reports whether an object is a Helm hook (a test or job pod
// that Helm itself creates and deletes).
func helmHook(obj *manifest.Object) bool {
	_, ok := obj.Annotations["helm.sh/hook"]
	return ok
}
