package apicluster

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/prodready/prodready/checks/manifest"
)

var removed = &checks.Rule{
	ID:       "api-removed",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/reference/using-api/deprecation-guide/",
	Why:      "an apiVersion that the target Kubernetes version no longer serves: the apply fails",
	Help:     "The target version is the config's kubernetesVersion. The fix changes apiVersion only where the object is valid unchanged under the new version; otherwise the message says what else must change. PodSecurityPolicy is left to pod-security-policy-removed.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		return versionFinding(ctx, obj, true)
	},
}

var deprecated = &checks.Rule{
	ID:       "api-deprecated",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/reference/using-api/deprecation-guide/",
	Why:      "an apiVersion deprecated at the target Kubernetes version: a later upgrade removes it",
	Help:     "The fix changes apiVersion only where the object is valid unchanged under the replacement.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		return versionFinding(ctx, obj, false)
	},
}

// versionFinding reports obj's apiVersion when it is removed (removed
// true) or deprecated but still served (removed false) at the target.
func versionFinding(ctx *checks.Context, obj *manifest.Object, removed bool) []checks.Finding {
	if obj.Kind == "PodSecurityPolicy" {
		return nil
	}
	if _, version := groupVersion(obj.APIVersion); !prereleaseRE.MatchString(version) {
		if _, static := staticLifecycles[obj.APIVersion+"/"+obj.Kind]; !static {
			return nil // a GA kind deprecated in favour of another kind (v1 Endpoints): not an apiVersion change
		}
	}
	l, ok := lifecycleOf(obj.APIVersion, obj.Kind)
	if !ok {
		return nil
	}
	target := ctx.Config.TargetMinor()
	l.Replacement = replacementAt(obj.APIVersion, obj.Kind, l, target)
	isRemoved := l.Removed > 0 && target >= l.Removed
	isDeprecated := !isRemoved && l.Deprecated > 0 && target >= l.Deprecated
	if (removed && !isRemoved) || (!removed && !isDeprecated) {
		return nil
	}
	newVersion, fixable, note := migration(obj, l.Replacement)
	var msg string
	if removed {
		msg = fmt.Sprintf("%s %s was removed in Kubernetes 1.%d (the target is 1.%d): the API server rejects it", obj.APIVersion, obj.Kind, l.Removed, target)
	} else {
		msg = fmt.Sprintf("%s %s is deprecated since Kubernetes 1.%d", obj.APIVersion, obj.Kind, l.Deprecated)
		if l.Removed > 0 {
			msg += fmt.Sprintf(" and removed in 1.%d", l.Removed)
		}
	}
	if newVersion != "" {
		msg += "; use " + newVersion
	}
	if note != "" {
		msg += " (" + note + ")"
	}
	f := checks.At(obj, manifest.Path{"apiVersion"}, msg)
	if fixable {
		f = f.WithExactFix("change apiVersion to "+newVersion+" (the object is valid under it unchanged)", checks.SetOp(manifest.Path{"apiVersion"}, newVersion))
	}
	return []checks.Finding{f}
}

var prerelease = &checks.Rule{
	ID:       "api-prerelease",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/reference/using-api/#api-versioning",
	Why:      "an alpha or beta built-in API may change or go away, and alpha APIs are off by default",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Kind == "" || obj.Kind == "PodSecurityPolicy" {
			return nil
		}
		group, version := groupVersion(obj.APIVersion)
		if !kube.BuiltinGroups[group] || !prereleaseRE.MatchString(version) {
			return nil
		}
		if l, ok := lifecycleOf(obj.APIVersion, obj.Kind); ok {
			target := ctx.Config.TargetMinor()
			if (l.Removed > 0 && target >= l.Removed) || (l.Deprecated > 0 && target >= l.Deprecated) {
				return nil // api-removed or api-deprecated says more
			}
		}
		stage := "beta"
		if prereleaseRE.FindStringSubmatch(version)[1] == "alpha" {
			stage = "alpha (off unless the cluster enables it)"
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"apiVersion"}, fmt.Sprintf("%s %s is a %s API: it may change incompatibly or be removed; prefer a GA version where one exists", obj.APIVersion, obj.Kind, stage))}
	},
}

// gaVersionOf returns the GA version of the same group and kind that the
// bundled types know (v1, else v2), or an empty GVK.
func gaVersionOf(apiVersion, kind string) schema.GroupVersionKind {
	group, _ := groupVersion(apiVersion)
	for _, v := range []string{"v1", "v2"} {
		gvk := schema.GroupVersionKind{Group: group, Version: v, Kind: kind}
		if recognizes(gvk) {
			return gvk
		}
	}
	return schema.GroupVersionKind{}
}

// replacementAt returns what replaces apiVersion/kind at Kubernetes
// 1.target: the lifecycle's replacement, followed while that one is itself
// removed at the target (flowcontrol v1beta2 → v1beta3 → v1), else the GA
// version of the same kind.
func replacementAt(apiVersion, kind string, l lifecycle, target int) schema.GroupVersionKind {
	repl := l.Replacement
	for i := 0; i < 5 && !repl.Empty(); i++ {
		next, ok := lifecycleOf(repl.GroupVersion().String(), repl.Kind)
		if !ok || next.Removed == 0 || target < next.Removed {
			return repl
		}
		repl = next.Replacement
	}
	return gaVersionOf(apiVersion, kind)
}
