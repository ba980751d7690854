package kyverno

import (
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// hook is one webhook of a Validating- or MutatingWebhookConfiguration.
type hook struct {
	Name string
	// Path is the webhook's item path (webhooks[i]).
	Path manifest.Path
	// FailClosed is true for failurePolicy Fail, which admissionregistration
	// v1 defaults to (v1beta1 defaulted to Ignore).
	FailClosed      bool
	TimeoutSeconds  *int32
	Rules           []admissionv1.RuleWithOperations
	NamespaceSel    *metav1.LabelSelector
	ObjectSel       *metav1.LabelSelector
	Service         *admissionv1.ServiceReference
	MatchConditions []admissionv1.MatchCondition
}

// hooks returns the webhooks of a webhook configuration (nil for other kinds).
func hooks(obj *manifest.Object) []hook {
	v1beta1 := strings.HasSuffix(obj.APIVersion, "/v1beta1")
	failClosed := func(fp *admissionv1.FailurePolicyType) bool {
		if fp == nil {
			return !v1beta1
		}
		return *fp == admissionv1.Fail
	}
	var out []hook
	switch c := obj.Typed().(type) {
	case *admissionv1.ValidatingWebhookConfiguration:
		for i, w := range c.Webhooks {
			out = append(out, hook{Name: w.Name, Path: manifest.Path{"webhooks", manifest.Index(i)}, FailClosed: failClosed(w.FailurePolicy),
				TimeoutSeconds: w.TimeoutSeconds, Rules: w.Rules, NamespaceSel: w.NamespaceSelector, ObjectSel: w.ObjectSelector, Service: w.ClientConfig.Service, MatchConditions: w.MatchConditions})
		}
	case *admissionv1.MutatingWebhookConfiguration:
		for i, w := range c.Webhooks {
			out = append(out, hook{Name: w.Name, Path: manifest.Path{"webhooks", manifest.Index(i)}, FailClosed: failClosed(w.FailurePolicy),
				TimeoutSeconds: w.TimeoutSeconds, Rules: w.Rules, NamespaceSel: w.NamespaceSelector, ObjectSel: w.ObjectSelector, Service: w.ClientConfig.Service, MatchConditions: w.MatchConditions})
		}
	}
	return out
}

// builtinGroup reports whether an API group is Kubernetes's own (core,
// apps, batch, *.k8s.io, …) or the wildcard.
func builtinGroup(g string) bool {
	return g == "" || g == "*" || !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io")
}

// onlyOwnGroups reports whether every rule of the webhook targets only
// custom API groups (the webhook guards its own resources, not the
// cluster's workloads).
func onlyOwnGroups(h hook) bool {
	if len(h.Rules) == 0 {
		return false
	}
	for _, r := range h.Rules {
		if len(r.APIGroups) == 0 {
			return false
		}
		for _, g := range r.APIGroups {
			if builtinGroup(g) {
				return false
			}
		}
	}
	return true
}

// workloadResources are the resources whose admission a webhook outage
// blocks for every deployment.
var workloadResources = map[string]bool{
	"*": true, "*/*": true, "pods": true, "deployments": true, "statefulsets": true, "daemonsets": true,
	"replicasets": true, "jobs": true, "cronjobs": true, "replicationcontrollers": true,
}

// interceptsWorkloads reports whether the webhook intercepts pods or
// workload kinds.
func interceptsWorkloads(h hook) bool {
	for _, r := range h.Rules {
		groupOK := false
		for _, g := range r.APIGroups {
			if g == "" || g == "*" || g == "apps" || g == "batch" || g == "extensions" {
				groupOK = true
			}
		}
		if !groupOK {
			continue
		}
		for _, res := range r.Resources {
			base, _, _ := strings.Cut(res, "/")
			if workloadResources[res] || workloadResources[base] {
				return true
			}
		}
	}
	return false
}

// clusterScopedCore are the cluster-scoped resources of the core group
// (apps has none): a webhook on them alone intercepts no namespace's
// pods or workloads.
var clusterScopedCore = map[string]bool{"namespaces": true, "nodes": true, "persistentvolumes": true, "componentstatuses": true}

// interceptsNamespacedCore reports whether one rule of the webhook matches
// a namespaced resource of the core or apps group (or every group): its
// scope is not Cluster and one of its resources is neither cluster-scoped
// (namespaces, nodes, persistentvolumes) nor a subresource of one.
func interceptsNamespacedCore(h hook) bool {
	for _, r := range h.Rules {
		if r.Scope != nil && *r.Scope == admissionv1.ClusterScope {
			continue
		}
		core := false
		for _, g := range r.APIGroups {
			core = core || g == "" || g == "apps" || g == "*"
		}
		if !core {
			continue
		}
		for _, res := range r.Resources {
			base, _, _ := strings.Cut(res, "/")
			if !clusterScopedCore[base] {
				return true
			}
		}
	}
	return false
}
