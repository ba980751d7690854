package loggingstate

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

// vpaEvictingModes are the updateModes in which a VPA changes running
// pods' requests (by evicting or resizing them).
var vpaEvictingModes = map[string]bool{"Auto": true, "Recreate": true, "InPlaceOrRecreate": true}

var vpaAutoUpdate = &checks.Rule{
	ID:       "vpa-auto-update",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/autoscaling/vertical-pod-autoscale/",
	Why:      "a VerticalPodAutoscaler that updates pods (Auto, Recreate, InPlaceOrRecreate) evicts or resizes them in production, and fights an HPA that scales the same workload on CPU or memory",
	Help:     "Use updateMode \"Off\" to get recommendations without changes; warning when an HPA also scales the workload on CPU or memory, info otherwise.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Kind != "VerticalPodAutoscaler" || !strings.HasPrefix(obj.APIVersion, "autoscaling.k8s.io/") || obj.Patch {
			return nil
		}
		mode, set := obj.Scalar("spec", "updatePolicy", "updateMode")
		if !set {
			mode = "Auto"
		}
		if !vpaEvictingModes[mode] {
			return nil
		}
		kind, _ := obj.Scalar("spec", "targetRef", "kind")
		name, _ := obj.Scalar("spec", "targetRef", "name")
		hpaToo := false
		if name != "" && vpaOnCPUOrMemory(obj) {
			for _, h := range ctx.ByKind("HorizontalPodAutoscaler") {
				hk, hn := checks.HPATarget(h)
				if hk == kind && hn == name && ctx.SameNamespace(h, obj) && hpaOnCPUOrMemory(h) {
					hpaToo = true
					break
				}
			}
		}
		what := fmt.Sprintf("updateMode is %q", mode)
		if !set {
			what = "updateMode is unset (Auto)"
		}
		path := manifest.Path{"spec", "updatePolicy", "updateMode"}
		op := checks.SetOp(path, `"Off"`)
		if !obj.Has("spec", "updatePolicy") {
			op = checks.SetOp(manifest.Path{"spec", "updatePolicy"}, "updateMode: \"Off\"\n", "targetRef")
		}
		fixDesc := "set updateMode \"Off\": the VPA keeps publishing recommendations without changing pods"
		if hpaToo {
			msg := fmt.Sprintf("%s and a HorizontalPodAutoscaler also scales %s %q on CPU or memory: the two fight (the VPA changes requests, which moves the HPA's utilisation) and pods get evicted in production", what, kind, name)
			return []checks.Finding{checks.At(obj, path, msg).WithFix(fixDesc, op)}
		}
		msg := fmt.Sprintf("%s: the VPA evicts or resizes pods to apply its recommendations, which is not advised in production (use \"Off\" and apply the recommendations yourself)", what)
		return []checks.Finding{checks.At(obj, path, msg).WithSeverity(checks.Info).WithFix(fixDesc, op)}
	},
}
