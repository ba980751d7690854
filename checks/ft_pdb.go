package checks

import (
	"fmt"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// ftAllowNoEvictionAnnotation on a PDB says that letting no pod be evicted
// is deliberate (Kubernetes documents maxUnavailable: 0 as a choice for
// single-instance stateful apps): pdb-blocks-eviction stays quiet.
const ftAllowNoEvictionAnnotation = "prodready.dev/allow-no-eviction"

// ftPDB returns a PDB object's typed value, or nil.
func ftPDB(o *manifest.Object) *policyv1.PodDisruptionBudget {
	p, _ := o.Typed.(*policyv1.PodDisruptionBudget)
	return p
}

// ftPDBWorkloads returns the long-running workloads whose pods the PDB
// selects: those of its own deployment unit (or a folder below it), else
// those elsewhere in the run whose namespace is known and equals the PDB's.
// Duplicates (one workload written twice) count once.
func ftPDBWorkloads(ctx *Context, o *manifest.Object, pdb *policyv1.PodDisruptionBudget) []*manifest.Object {
	if pdb.Spec.Selector == nil {
		return nil
	}
	all := ctx.WorkloadsSelectedBy(o, pdb.Spec.Selector)
	pick := func(keep func(w *manifest.Object) bool) []*manifest.Object {
		seen := map[string]bool{}
		var out []*manifest.Object
		for _, w := range all {
			if !w.IsLongRunning() || ftPartial(w) || !keep(w) {
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
	if out := pick(func(w *manifest.Object) bool { return ftUnitCovers(ctx.Unit(o), ctx.Unit(w)) }); len(out) > 0 {
		return out
	}
	return pick(func(w *manifest.Object) bool { ns := ctx.Namespace(o); return ns != "" && ctx.Namespace(w) == ns })
}

// ftCoveredPods sums the pods the PDB's workloads run at the least (HPA
// minReplicas where an HPA scales them). known is false when no workload is
// found or one's count is not in the manifest (a DaemonSet).
func ftCoveredPods(ctx *Context, ws []*manifest.Object) (total int, known bool) {
	if len(ws) == 0 {
		return 0, false
	}
	for _, w := range ws {
		n, ok := ftPodCount(ctx, w)
		if !ok {
			return 0, false
		}
		total += int(n)
	}
	return total, true
}

// ftIsZero reports whether an int-or-percent is 0 or "0%".
func ftIsZero(v *intstr.IntOrString) bool {
	if v == nil {
		return false
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, true)
	return err == nil && n == 0
}

// ftIsFullPercent reports whether v is a percentage of 100 or more.
func ftIsFullPercent(v *intstr.IntOrString) bool {
	if v == nil || v.Type != intstr.String {
		return false
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, true)
	return err == nil && n >= 100
}

// ftBlocking says why a PDB lets no pod be evicted.
type ftBlocking struct {
	path    manifest.Path
	message string
	fix     *Fix
}

// ftPDBBlocks reports whether the PDB lets no pod be evicted, unless the
// PDB or the config says that is deliberate.
func ftPDBBlocks(ctx *Context, o *manifest.Object) (ftBlocking, bool) {
	pdb := ftPDB(o)
	if pdb == nil || o.Annotations[ftAllowNoEvictionAnnotation] == "true" {
		return ftBlocking{}, false
	}
	spec := pdb.Spec
	ws := ftPDBWorkloads(ctx, o, pdb)
	pods, known := ftCoveredPods(ctx, ws)
	if spec.MaxUnavailable != nil && spec.MinAvailable == nil && ftIsZero(spec.MaxUnavailable) {
		if ftBoolParam(ctx, "pdb-blocks-eviction", "allowMaxUnavailableZero") {
			return ftBlocking{}, false
		}
		path := manifest.Path{"spec", "maxUnavailable"}
		return ftBlocking{path: path,
			message: fmt.Sprintf("maxUnavailable: %s lets no pod be evicted, so node drains and cluster upgrades hang. If this is deliberate (a single-instance stateful app), say so with the annotation %s: \"true\"", spec.MaxUnavailable.String(), ftAllowNoEvictionAnnotation),
			fix:     &Fix{Description: "allow one pod at a time to be evicted", Edits: []edit.Op{SetOp(path, "1")}}}, true
	}
	if spec.MinAvailable == nil || spec.MaxUnavailable != nil {
		return ftBlocking{}, false
	}
	path := manifest.Path{"spec", "minAvailable"}
	full := ftIsFullPercent(spec.MinAvailable)
	if !full {
		if !known || pods == 0 {
			return ftBlocking{}, false
		}
		need, err := intstr.GetScaledValueFromIntOrPercent(spec.MinAvailable, pods, true)
		if err != nil || need < pods {
			return ftBlocking{}, false
		}
	}
	covers := "all the pods it selects"
	if known {
		covers = fmt.Sprintf("the %d pod(s) it covers", pods)
		if len(ws) == 1 {
			if m, ok := ftHPAMin(ctx, ws[0]); ok {
				covers = fmt.Sprintf("the %d pod(s) it covers (the minReplicas of the HPA scaling %s %s)", m, ws[0].Kind, ws[0].Name)
			}
		}
	}
	if spec.MinAvailable.Type == intstr.String && !full {
		covers += " (a percentage rounds up)"
	}
	b := ftBlocking{path: path,
		message: fmt.Sprintf("minAvailable: %s is at least %s, so no pod can be evicted and node drains hang", spec.MinAvailable.String(), covers)}
	if spec.MinAvailable.Type == intstr.Int && known && pods >= 2 {
		b.fix = &Fix{Description: fmt.Sprintf("lower minAvailable to %d so one pod at a time can be evicted", pods-1), Edits: []edit.Op{SetOp(path, fmt.Sprint(pods-1))}}
	} else {
		b.fix = &Fix{Description: "replace minAvailable with maxUnavailable: 1 (one pod at a time can be evicted)",
			Edits: []edit.Op{DeleteOp(path), SetOp(manifest.Path{"spec", "maxUnavailable"}, "1", "minAvailable")}}
	}
	return b, true
}

// ftBoolParam reads a boolean rule parameter straight from the config
// (default false), without the registry lookup Config.Param does, so a
// rule's own Check may call it.
func ftBoolParam(ctx *Context, id, name string) bool {
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

// ftServingMulti reports whether a workload is serving and runs more than one pod.
func ftServingMulti(ctx *Context, w *manifest.Object) bool {
	return w.IsLongRunning() && ftMultiReplica(ctx, w) && ftIsServing(ctx, w)
}
