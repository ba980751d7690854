package faulttolerance

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// allowNoEvictionAnnotation on a PDB says that letting no pod be evicted
// is deliberate (Kubernetes documents maxUnavailable: 0 as a choice for
// single-instance stateful apps): pdb-blocks-eviction stays quiet.
const allowNoEvictionAnnotation = "prodready.dev/allow-no-eviction"

// pdb returns a PDB object's typed value, or nil.
func pdb(o *manifest.Object) *policyv1.PodDisruptionBudget {
	p, _ := o.Typed().(*policyv1.PodDisruptionBudget)
	return p
}

// pdbWorkloads returns the long-running workloads whose pods the PDB
// selects: those of its own deployment unit (or a folder below it), else
// those elsewhere in the run whose namespace is known and equals the PDB's.
// Duplicates (one workload written twice) count once.
func pdbWorkloads(ctx *checks.Context, o *manifest.Object, pdb *policyv1.PodDisruptionBudget) []*manifest.Object {
	if pdb.Spec.Selector == nil {
		return nil
	}
	all := ctx.WorkloadsSelectedBy(o, pdb.Spec.Selector)
	pick := func(keep func(w *manifest.Object) bool) []*manifest.Object {
		seen := map[string]bool{}
		var out []*manifest.Object
		for _, w := range all {
			if !w.IsLongRunning() || partial(w) || !keep(w) {
				continue
			}
			key := w.Kind + "/" + ctx.Namespace(w) + "/" + w.Name
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, w)
		}
		return out
	}
	if out := pick(func(w *manifest.Object) bool { return kube.UnitCovers(ctx.Unit(o), ctx.Unit(w)) }); len(out) > 0 {
		return out
	}
	return pick(func(w *manifest.Object) bool { ns := ctx.Namespace(o); return ns != "" && ctx.Namespace(w) == ns })
}

// coveredPods sums the pods the PDB's workloads run at the least (HPA
// minReplicas where an HPA scales them). known is false when no workload is
// found or one's count is not in the manifest (a DaemonSet).
func coveredPods(ctx *checks.Context, ws []*manifest.Object) (total int, known bool) {
	if len(ws) == 0 {
		return 0, false
	}
	for _, w := range ws {
		n, ok := podCount(ctx, w)
		if !ok {
			return 0, false
		}
		total += int(n)
	}
	return total, true
}

// isZero reports whether an int-or-percent is 0 or "0%".
func isZero(v *intstr.IntOrString) bool {
	if v == nil {
		return false
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, true)
	return err == nil && n == 0
}

// isFullPercent reports whether v is a percentage of 100 or more.
func isFullPercent(v *intstr.IntOrString) bool {
	if v == nil || v.Type != intstr.String {
		return false
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, true)
	return err == nil && n >= 100
}

// blocking says why a PDB lets no pod be evicted.
type blocking struct {
	path    manifest.Path
	message string
	fix     *checks.Fix
}

// pdbBlocks reports whether the PDB lets no pod be evicted, unless the
// PDB or the config says that is deliberate.
func pdbBlocks(ctx *checks.Context, o *manifest.Object) (blocking, bool) {
	pdb := pdb(o)
	if pdb == nil || o.Annotations[allowNoEvictionAnnotation] == "true" {
		return blocking{}, false
	}
	spec := pdb.Spec
	ws := pdbWorkloads(ctx, o, pdb)
	pods, known := coveredPods(ctx, ws)
	if spec.MaxUnavailable != nil && spec.MinAvailable == nil && isZero(spec.MaxUnavailable) {
		if boolParam(ctx, "pdb-blocks-eviction", "allowMaxUnavailableZero") {
			return blocking{}, false
		}
		path := manifest.Path{"spec", "maxUnavailable"}
		return blocking{path: path,
			message: fmt.Sprintf("maxUnavailable: %s lets no pod be evicted, so node drains and cluster upgrades hang. If this is deliberate (a single-instance stateful app), say so with the annotation %s: \"true\"", intOrString(spec.MaxUnavailable), allowNoEvictionAnnotation),
			fix:     &checks.Fix{Description: "allow one pod at a time to be evicted", Kind: checks.StartingPoint, Edits: []edit.Op{checks.SetOp(path, "1")}}}, true
	}
	if spec.MinAvailable == nil || spec.MaxUnavailable != nil {
		return blocking{}, false
	}
	path := manifest.Path{"spec", "minAvailable"}
	full := isFullPercent(spec.MinAvailable)
	if !full {
		if !known || pods == 0 {
			return blocking{}, false
		}
		need, err := intstr.GetScaledValueFromIntOrPercent(spec.MinAvailable, pods, true)
		if err != nil || need < pods {
			return blocking{}, false
		}
	}
	covers := "all the pods it selects"
	if known {
		covers = fmt.Sprintf("the %d pod(s) it covers", pods)
		if len(ws) == 1 {
			if m, ok := hpaMin(ctx, ws[0]); ok {
				covers = fmt.Sprintf("the %d pod(s) it covers (the minReplicas of the HPA scaling %s %q)", m, ws[0].Kind, ws[0].Name)
			}
		}
	}
	if spec.MinAvailable.Type == intstr.String && !full {
		covers += " (a percentage rounds up)"
	}
	b := blocking{path: path,
		message: fmt.Sprintf("minAvailable: %s is at least %s, so no pod can be evicted and node drains hang", intOrString(spec.MinAvailable), covers)}
	if spec.MinAvailable.Type == intstr.Int && known && pods >= 2 {
		b.fix = &checks.Fix{Description: fmt.Sprintf("lower minAvailable to %d so one pod at a time can be evicted", pods-1), Kind: checks.StartingPoint, Edits: []edit.Op{checks.SetOp(path, fmt.Sprint(pods-1))}}
	} else {
		b.fix = &checks.Fix{Description: "replace minAvailable with maxUnavailable: 1 (one pod at a time can be evicted)", Kind: checks.StartingPoint,
			Edits: []edit.Op{checks.DeleteOp(path), checks.SetOp(manifest.Path{"spec", "maxUnavailable"}, "1", "minAvailable")}}
	}
	return b, true
}

// boolParam reads a boolean rule parameter straight from the config
// (default false), without the registry lookup Config.Param does, so a
// rule's own Check may call it.
func boolParam(ctx *checks.Context, id, name string) bool {
	if ctx == nil || ctx.Config == nil {
		return false
	}
	switch v := ctx.Config.Rules[id].Params[name].(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

// servingMulti reports whether a workload is serving and runs more than one
// pod (an Argo Rollout with a workloadRef: its Deployment's template is
// what Services select).
func servingMulti(ctx *checks.Context, w *manifest.Object) bool {
	src := kube.PodSource(ctx, w)
	return src != nil && src.IsLongRunning() && multiReplica(ctx, w) && isServing(ctx, src)
}
