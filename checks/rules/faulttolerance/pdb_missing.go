package faulttolerance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var pdbMissing = &checks.Rule{
	ID:       "pdb-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/run-application/configure-pdb/",
	Why:      "a serving workload with several replicas and no PodDisruptionBudget can lose all of them at once in a node drain or cluster upgrade",
	Help:     "Add a PodDisruptionBudget with maxUnavailable: 1 that selects the workload's pods. The finding's message carries a ready-to-use one (a new file cannot be a suggestion); in a chart that has a template writing one, which its values leave out, it names that template and the action it is written under instead, and its fix sets the values that turn it on.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		// An Argo Rollout with a workloadRef runs the pods of its
		// Deployment's template: the PDB selects those labels, and the
		// finding is the Rollout's, not the Deployment's.
		src := kube.PodSource(ctx, obj)
		if src == nil || partial(src) || kube.ReferencingRollout(ctx, obj) != nil || len(ctx.PDBsFor(src)) > 0 {
			return nil
		}
		n, _ := podCount(ctx, obj)
		fix, cause := "", ""
		var after *checks.FixOf
		if servingMulti(ctx, obj) {
			cause = replicasCause(ctx, obj)
		} else {
			// A serving singleton that another rule's fix raises to several
			// replicas needs the PDB too: say so in the same review, not
			// one push later. Only for a fix that is offered: none for a
			// singleton that must stay one (a datastore, data in an
			// emptyDir or a ReadWriteOnce claim). An ignore of the finding
			// whose fix it is silences this one too (AfterFixOf).
			target, what, of := scaledByReplicasFix(ctx, obj)
			if target < 2 {
				return nil
			}
			n, fix, after = target, what, &of
		}
		count := "more than one pod"
		if n > 1 {
			count = fmt.Sprintf("%d pods", n)
		}
		msg := fmt.Sprintf("%s %q runs %s behind a Service, but no PodDisruptionBudget selects them: a node drain or cluster upgrade may evict them all at once", obj.Kind, obj.Name, count)
		if fix != "" {
			msg = fmt.Sprintf("%s %q will run %s behind a Service once %s is applied, and no PodDisruptionBudget selects them: a node drain or cluster upgrade could then evict them all at once", obj.Kind, obj.Name, count, fix)
		}
		if d, ok := ctx.DormantTemplate(obj, "PodDisruptionBudget"); ok {
			// A chart's own, left out by its values: what the author
			// turns on, not one to add beside it.
			msg += "; " + d.Says() + ": set the values it needs, and check that it selects these pods"
			f := checks.At(obj, kindPath, msg)
			f.Cause, f.AfterFixOf = cause, after
			// Rendering again with it alone decides (a budget over the
			// one replica another fix raises must not block drains).
			f.Fix = d.TurnOnFix(edit.Op{Action: edit.Set, Path: []string{"maxUnavailable"}, Value: "1"})
			return []checks.Finding{f}
		}
		if pdb, ok := pdbFor(ctx, obj, src); ok {
			msg += ". Add this PodDisruptionBudget:\n" + pdb
		}
		f := checks.At(obj, kindPath, msg)
		f.Cause, f.AfterFixOf = cause, after
		return []checks.Finding{f}
	},
}

// pdbFor renders a ready-to-use PodDisruptionBudget for w's pods, whose
// template src holds (w itself, or a Rollout's workloadRef Deployment).
func pdbFor(ctx *checks.Context, w, src *manifest.Object) (string, bool) {
	sel, ok := selectorYAML(w)
	if !ok {
		sel, ok = selectorYAML(src)
	}
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.WriteString("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n")
	fmt.Fprintf(&b, "  name: %s\n", edit.StringScalar(w.Name))
	if ns := ctx.Namespace(w); ns != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", edit.StringScalar(ns))
	}
	b.WriteString("spec:\n  maxUnavailable: 1\n")
	if ctx.Config.TargetMinor() >= 27 {
		b.WriteString("  unhealthyPodEvictionPolicy: AlwaysAllow\n")
	}
	b.WriteString("  selector:\n" + indent(sel, 4))
	return b.String(), true
}

// scaledByReplicasFix returns the replica count that another rule's fix
// gives w in the same review, that fix in words, and whose fix it is:
// replicas-too-few's spec.replicas, or hpa-min-replicas-too-low's
// minReplicas on an HPA scaling w. 0 when neither offers a fix (a finding
// without one, a rule off). An ignore of that finding silences the one
// that anticipates its fix with it (checks.Finding.AfterFixOf).
func scaledByReplicasFix(ctx *checks.Context, w *manifest.Object) (int32, string, checks.FixOf) {
	if !w.IsLongRunning() {
		return 0, "", checks.FixOf{}
	}
	best, line := fixedCount(ctx, replicasTooFew, w, "replicas")
	what := fmt.Sprintf("the replicas-too-few fix (replicas: %d)", best)
	of := fixOf(replicasTooFew.ID, w, line)
	for _, h := range ctx.HPAsFor(w) {
		if n, line := fixedCount(ctx, ctx.Rule("hpa-min-replicas-too-low"), h, "minReplicas"); n > best {
			best = n
			what = fmt.Sprintf("the hpa-min-replicas-too-low fix of %s %q (minReplicas: %d)", h.Kind, h.Name, n)
			of = fixOf("hpa-min-replicas-too-low", h, line)
		}
	}
	return best, what, of
}

// fixOf names rule's finding on obj at line.
func fixOf(rule string, obj *manifest.Object, line int) checks.FixOf {
	of := checks.FixOf{Rule: rule, Object: checks.RefOf(obj), Line: line}
	if obj.File != nil {
		of.File = obj.File.Path
	}
	return of
}

// fixedCount returns the number rule r's fix on obj sets at spec.<field>,
// and the line of its finding; 0 when r is off or offers no such fix.
func fixedCount(ctx *checks.Context, r *checks.Rule, obj *manifest.Object, field string) (int32, int) {
	if r.Check == nil || !ctx.Config.Enabled(r) {
		return 0, 0
	}
	for _, f := range r.Check(ctx, obj) {
		if f.Fix == nil {
			continue
		}
		for _, op := range f.Fix.Edits {
			if len(op.Path) == 2 && op.Path[0] == "spec" && op.Path[1] == field {
				if n, err := strconv.Atoi(strings.TrimSpace(op.Value)); err == nil {
					return int32(n), f.Line
				}
			}
		}
	}
	return 0, 0
}
