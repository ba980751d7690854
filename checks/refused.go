package checks

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// A Knative Service's pod spec is a subset of a pod's: Knative Serving's
// webhook refuses a Service that sets a field outside it ("must not set the
// field(s)"), and some fields only when the cluster's config-features
// ConfigMap enables them, which is not in the repository. A fix that would
// write such a field breaks the Service, so it is not offered: the finding
// stays, with the reason.

// knativePodRefused are the pod spec fields Knative refuses, or allows only
// behind a feature flag that is off by default (the value names the flag).
var knativePodRefused = map[string]string{
	"affinity": "kubernetes.podspec-affinity", "nodeSelector": "kubernetes.podspec-nodeselector",
	"tolerations": "kubernetes.podspec-tolerations", "topologySpreadConstraints": "kubernetes.podspec-topologyspreadconstraints",
	"securityContext": "kubernetes.podspec-securitycontext", "priorityClassName": "kubernetes.podspec-priorityclassname",
	"runtimeClassName": "kubernetes.podspec-runtimeclassname", "schedulerName": "kubernetes.podspec-schedulername",
	"hostAliases": "kubernetes.podspec-hostaliases", "initContainers": "kubernetes.podspec-init-containers",
	"dnsPolicy": "kubernetes.podspec-dnspolicy", "dnsConfig": "kubernetes.podspec-dnsconfig",
	"shareProcessNamespace": "kubernetes.podspec-shareprocessnamespace",
	"hostNetwork":           "kubernetes.podspec-hostnetwork", "hostPID": "kubernetes.podspec-hostpid", "hostIPC": "kubernetes.podspec-hostipc",
	"terminationGracePeriodSeconds": "", "activeDeadlineSeconds": "", "restartPolicy": "", "nodeName": "",
	"hostname": "", "subdomain": "", "priority": "", "readinessGates": "",
}

// knativeContainerRefused are the container fields Knative refuses.
var knativeContainerRefused = map[string]bool{"lifecycle": true, "stdin": true, "stdinOnce": true, "tty": true, "volumeDevices": true}

// knativeSecurityRefused are the container securityContext fields Knative refuses.
var knativeSecurityRefused = map[string]bool{"privileged": true, "procMount": true, "seLinuxOptions": true, "windowsOptions": true}

// knativePodSpec is where a Knative Service's pod spec sits.
var knativePodSpec = manifest.Path{"spec", "template", "spec"}

// refusedByController returns the field of the fix's edits that obj's
// controller refuses in its pod spec (a Knative Service's), with the
// feature flag that would allow it ("" when none does), and whether there
// is one. Deletions are never refused.
func refusedByController(obj *manifest.Object, fix *Fix) (field, flag string, refused bool) {
	if obj.LikeKind() != manifest.LikeKnativeService {
		return "", "", false
	}
	for _, op := range fix.Edits {
		if op.Action == edit.Delete || len(op.Path) < len(knativePodSpec) {
			continue
		}
		at := op.Path // from the object's root: checkOne asks before a List item's paths are made the document's
		if !pathHasPrefix(at, knativePodSpec) {
			continue
		}
		rel := at[len(knativePodSpec):]
		var val *yaml.Node
		if op.Value != "" {
			var doc yaml.Node
			if yaml.Unmarshal([]byte(op.Value), &doc) == nil && len(doc.Content) > 0 {
				val = doc.Content[0]
			}
		}
		if f, fl, ok := knativeRefusedAt(rel, val); ok {
			return strings.Join(append(append([]string{}, knativePodSpec...), f...), "."), fl, true
		}
	}
	return "", "", false
}

// knativeRefusedAt reports whether setting rel (a path under the pod spec)
// to val writes a field Knative refuses, and which.
func knativeRefusedAt(rel manifest.Path, val *yaml.Node) (manifest.Path, string, bool) {
	if len(rel) == 0 {
		return knativeRefusedIn(rel, val)
	}
	if flag, ok := knativePodRefused[rel[0]]; ok {
		return rel[:1], flag, true
	}
	if rel[0] != "containers" {
		return nil, "", false
	}
	// containers.N.field…
	switch {
	case len(rel) < 3:
		return knativeRefusedIn(rel, val)
	case knativeContainerRefused[rel[2]]:
		return rel[:3], "", true
	case rel[2] == "securityContext" && len(rel) >= 4 && knativeSecurityRefused[rel[3]]:
		return rel[:4], "", true
	case rel[2] == "ports" && len(rel) >= 5 && (rel[4] == "hostPort" || rel[4] == "hostIP"):
		return rel[:5], "", true
	case rel[2] == "volumeMounts" && len(rel) >= 5 && rel[4] == "mountPropagation":
		return rel[:5], "", true
	}
	return knativeRefusedIn(rel, val)
}

// knativeRefusedIn walks a value set at rel: each key it writes is a path
// of its own (a sequence's items as index 0). Depth is bounded by the
// pod spec's shape (the deepest refused field is five keys down).
func knativeRefusedIn(rel manifest.Path, val *yaml.Node) (manifest.Path, string, bool) {
	if val == nil || len(rel) > 5 {
		return nil, "", false
	}
	switch val.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(val.Content); i += 2 {
			if f, fl, ok := knativeRefusedAt(rel.Child(val.Content[i].Value), val.Content[i+1]); ok {
				return f, fl, true
			}
		}
	case yaml.SequenceNode:
		for _, item := range val.Content {
			if f, fl, ok := knativeRefusedAt(rel.Child("0"), item); ok {
				return f, fl, true
			}
		}
	}
	return nil, "", false
}

func pathHasPrefix(p, prefix manifest.Path) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}

// refusedNote says why a fix is not offered.
func refusedNote(field, flag string) string {
	if flag != "" {
		return "; no fix is offered: Knative Serving refuses " + field + " in a Service unless the cluster's config-features enables " + flag
	}
	return "; no fix is offered: Knative Serving refuses " + field + " in a Service"
}
