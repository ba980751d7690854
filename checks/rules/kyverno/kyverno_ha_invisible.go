package kyverno

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoHAInvisible = &checks.Rule{
	ID:       "kyverno-ha-invisible",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kyverno.io/docs/installation/#install-kyverno-using-yamls",
	Why:      "Kyverno is installed from its plain release manifests (e.g. a Flux Kustomization over the kyverno OCI manifests) and the repository does not set its replicas, so it runs 1 replica that no review can see",
	Help:     "The release manifests run one admission-controller replica. Patch the Deployment's replicas to 3 (a Flux Kustomization's spec.patches, a kustomization's replicas:/patches, or an Argo CD Application's spec.source.kustomize.replicas), or install with the Helm chart and set admissionController.replicas: 3.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		switch {
		case obj.Kind == "Kustomization" && strings.HasPrefix(obj.APIVersion, "kustomize.toolkit.fluxcd.io/"):
			if !fluxSourceIsKyverno(ctx, obj) || setsReplicas(obj.Node("spec", "patches")) || setsReplicas(obj.Node("spec", "patchesStrategicMerge")) || setsReplicas(obj.Node("spec", "patchesJson6902")) {
				return nil
			}
			return []checks.Finding{checks.At(obj, manifest.Path{"spec", "sourceRef"}, fmt.Sprintf("Flux Kustomization %s applies Kyverno's release manifests without setting the admission controller's replicas: it runs 1 replica, and nothing in the repository shows it; patch replicas to 3 in spec.patches", obj.Name))}
		case obj.Kind == "Application" && strings.HasPrefix(obj.APIVersion, "argoproj.io/"):
			src := manifest.Path{"spec", "source"}
			url, _ := obj.Scalar(src.Child("repoURL")...)
			chart, _ := obj.Scalar(src.Child("chart")...)
			if chart != "" || !strings.Contains(strings.ToLower(url), "github.com/kyverno/kyverno") {
				return nil
			}
			if setsReplicas(obj.Node(src.Child("kustomize")...)) {
				return nil
			}
			return []checks.Finding{checks.At(obj, src.Child("repoURL"), fmt.Sprintf("Argo CD Application %s applies Kyverno's release manifests without setting the admission controller's replicas: it runs 1 replica, and nothing in the repository shows it; set spec.source.kustomize.replicas to 3 for kyverno-admission-controller, or install the Helm chart with admissionController.replicas: 3", obj.Name))}
		case checks.IsKustomization(obj):
			res := obj.Node("resources")
			if res == nil || res.Kind != yaml.SequenceNode {
				return nil
			}
			for i, r := range res.Content {
				if !isReleaseManifestURL(r.Value) {
					continue
				}
				if setsReplicas(obj.Node("replicas")) || setsReplicas(obj.Node("patches")) || setsReplicas(obj.Node("patchesStrategicMerge")) || setsReplicas(obj.Node("patchesJson6902")) {
					return nil
				}
				return []checks.Finding{checks.At(obj, manifest.Path{"resources", manifest.Index(i)}, "this kustomization installs Kyverno's release manifests without setting the admission controller's replicas: it runs 1 replica, and nothing in the repository shows it; add replicas: [{name: kyverno-admission-controller, count: 3}]")}
			}
		}
		return nil
	},
}

// isReleaseManifestURL reports whether a kustomize resource is Kyverno's
// published install manifest.
func isReleaseManifestURL(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "github.com/kyverno/kyverno") && (strings.Contains(s, "install") || strings.Contains(s, "/config"))
}

// fluxSourceIsKyverno reports whether a Flux Kustomization's source is
// Kyverno's manifests (an OCIRepository of ghcr.io/kyverno/manifests, or a
// GitRepository of github.com/kyverno/kyverno).
func fluxSourceIsKyverno(ctx *checks.Context, k *manifest.Object) bool {
	kind, _ := k.Scalar("spec", "sourceRef", "kind")
	name, _ := k.Scalar("spec", "sourceRef", "name")
	srcNS, _ := k.Scalar("spec", "sourceRef", "namespace")
	for _, s := range ctx.ByKind(kind) {
		if s.Name != name || !strings.HasPrefix(s.APIVersion, "source.toolkit.fluxcd.io/") {
			continue
		}
		if srcNS != "" && ctx.Namespace(s) != "" && ctx.Namespace(s) != srcNS {
			continue
		}
		if srcNS == "" && !ctx.SameNamespace(s, k) {
			continue
		}
		url, _ := s.Scalar("spec", "url")
		u := strings.ToLower(url)
		if strings.Contains(u, "ghcr.io/kyverno/manifests/kyverno") || strings.Contains(u, "github.com/kyverno/kyverno") {
			return true
		}
	}
	return false
}

// setsReplicas reports whether patches (or a kustomize replicas list)
// set a replica count anywhere (or may, from a patch file).
func setsReplicas(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.ScalarNode {
		return strings.Contains(n.Value, "replicas") || strings.Contains(n.Value, "/spec/replicas")
	}
	for i, c := range n.Content {
		// A patch kept in another file (path:) may set them: assume it does.
		if n.Kind == yaml.MappingNode && i%2 == 0 && (c.Value == "replicas" || c.Value == "count" || c.Value == "path") {
			return true
		}
		if setsReplicas(c) {
			return true
		}
	}
	return false
}
