package checks

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

var pdbMissing = &Rule{
	ID:       "pdb-missing",
	Section:  sectionFaultTolerance,
	Severity: Warning,
	Why:      "a serving workload with several replicas and no PodDisruptionBudget can lose all of them at once in a node drain or cluster upgrade",
	Help:     "Add a PodDisruptionBudget with maxUnavailable: 1 that selects the workload's pods. The finding's message carries a ready-to-use one (a new file cannot be a suggestion).",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		if ftPartial(obj) || !ftServingMulti(ctx, obj) || len(ctx.PDBsFor(obj)) > 0 {
			return nil
		}
		n, _ := ftPodCount(ctx, obj)
		count := "more than one pod"
		if n > 1 {
			count = fmt.Sprintf("%d pods", n)
		}
		msg := fmt.Sprintf("%s %s runs %s behind a Service, but no PodDisruptionBudget selects them: a node drain or cluster upgrade may evict them all at once", obj.Kind, obj.Name, count)
		if pdb, ok := ftPDBFor(ctx, obj); ok {
			msg += ". Add this PodDisruptionBudget:\n" + pdb
		}
		return []Finding{At(obj, ftKindPath, msg)}
	},
}

// ftPDBFor renders a ready-to-use PodDisruptionBudget for w's pods.
func ftPDBFor(ctx *Context, w *manifest.Object) (string, bool) {
	sel, ok := ftSelectorYAML(w)
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.WriteString("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n")
	fmt.Fprintf(&b, "  name: %s\n", hcScalar(w.Name))
	if ns := ctx.Namespace(w); ns != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", hcScalar(ns))
	}
	b.WriteString("spec:\n  maxUnavailable: 1\n")
	if ctx.Config.TargetMinor() >= 27 {
		b.WriteString("  unhealthyPodEvictionPolicy: AlwaysAllow\n")
	}
	b.WriteString("  selector:\n" + ftIndent(sel, 4))
	return b.String(), true
}
