package network

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var networkpolicySelectsNothing = &checks.Rule{
	ID:       "networkpolicy-selects-nothing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/services-networking/network-policies/#networkpolicy-resource",
	Why:      "a NetworkPolicy whose podSelector matches no pod protects nothing: a typo in a label leaves open the pods it was written for",
	Help: "Pod templates are looked for in the policy's namespace across the repository (overlays keep their workloads in a base), with Kubernetes selector semantics; workloads that do not decode count by the labels written in their template, and labels a kustomization adds to templates (commonLabels, labels with includeTemplates) count. " +
		"Skipped: an empty podSelector (every pod of the namespace); selectors on a label key that no pod template of the repository sets, since a controller, operator or chart adds it at run time (pod-template-hash, statefulset.kubernetes.io/pod-name and the like are left out of the selector instead, the rest of it must still match); " +
		"policies in deployment units that run operators, Helm releases or GitOps applications (their pods are created at run time); and units with no workloads at all (a policy for pods deployed elsewhere).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		np, ok := obj.Typed().(*networkingv1.NetworkPolicy)
		if !ok || obj.Patch {
			return nil
		}
		sel := np.Spec.PodSelector
		if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
			return nil // every pod of the namespace
		}
		if selectorPlaceholder(sel) {
			return nil
		}
		known := podLabelKeys.Of(ctx)
		want := &metav1.LabelSelector{MatchLabels: map[string]string{}}
		for k, v := range sel.MatchLabels {
			if runtimePodLabels[k] {
				continue // set on the pods at run time
			}
			if !known.keys[k] {
				return nil // no manifest sets this key: the pods come from elsewhere
			}
			want.MatchLabels[k] = v
		}
		for _, e := range sel.MatchExpressions {
			if runtimePodLabels[e.Key] {
				continue
			}
			if (e.Operator == metav1.LabelSelectorOpIn || e.Operator == metav1.LabelSelectorOpExists) && !known.keys[e.Key] {
				return nil
			}
			want.MatchExpressions = append(want.MatchExpressions, e)
		}
		if len(want.MatchLabels) == 0 && len(want.MatchExpressions) == 0 {
			return nil
		}
		idx := builtPodLabels.Of(ctx)
		matches := func(w *manifest.Object) bool {
			return ctx.SameNamespace(obj, w) && checks.SelectorMatches(want, idx.labels[w])
		}
		if len(want.MatchLabels) > 0 {
			for _, w := range idx.candidates(want.MatchLabels) {
				if matches(w) {
					return nil
				}
			}
		} else {
			for w := range idx.labels {
				if matches(w) {
					return nil
				}
			}
		}
		unit := ctx.Unit(obj)
		if unitCreatesPodsAtRunTime(ctx, unit) {
			return nil // an operator's pods, made at run time
		}
		if !idx.units[unit] {
			return nil // a policy for pods deployed elsewhere (a Helm chart, another repo)
		}
		where := "its namespace"
		if ns := ctx.Namespace(obj); ns != "" {
			where = fmt.Sprintf("namespace %q", ns)
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"spec", "podSelector"},
			fmt.Sprintf("NetworkPolicy %q selects %s, which no pod template of %s matches: it protects nothing (check the labels against the workload's template)", obj.Name, formatLabelSelector(sel), where))}
	},
}

// selectorPlaceholder reports whether a selector is filled in by a
// script or template.
func selectorPlaceholder(sel metav1.LabelSelector) bool {
	bad := func(s string) bool { return manifest.IsPlaceholder(s) || strings.ContainsAny(s, "${}") }
	for k, v := range sel.MatchLabels {
		if bad(k) || bad(v) {
			return true
		}
	}
	for _, e := range sel.MatchExpressions {
		if bad(e.Key) {
			return true
		}
		for _, v := range e.Values {
			if bad(v) {
				return true
			}
		}
	}
	return false
}

// formatLabelSelector renders a label selector as "app=web, tier in (a, b)".
func formatLabelSelector(sel metav1.LabelSelector) string {
	parts := []string{}
	if len(sel.MatchLabels) > 0 {
		parts = append(parts, formatSelector(sel.MatchLabels))
	}
	for _, e := range sel.MatchExpressions {
		switch e.Operator {
		case metav1.LabelSelectorOpExists:
			parts = append(parts, strconv.Quote(e.Key))
		case metav1.LabelSelectorOpDoesNotExist:
			parts = append(parts, "!"+strconv.Quote(e.Key))
		default:
			parts = append(parts, fmt.Sprintf("%q %s (%s)", e.Key, strings.ToLower(string(e.Operator)), quoteAll(e.Values)))
		}
	}
	return strings.Join(parts, ", ")
}

// labelKeys is what the run's manifests set on pods: every key of a pod
// template (whole workloads, patches and documents that do not decode)
// or that a kustomization adds to templates, and the pairs each
// kustomization (by folder) adds.
type labelKeys struct {
	keys  map[string]bool
	added map[string]map[labelPair]bool
}

// addedTo returns the pairs that the kustomizations building folder unit
// (its own, and those including it) add to its pod templates.
func (l *labelKeys) addedTo(ctx *checks.Context, unit string) map[labelPair]bool {
	builds := kustomizeBuilds.Of(ctx)
	out := map[labelPair]bool{}
	for dir, pairs := range l.added {
		if dir == unit || builds.includes(dir, unit) {
			for p := range pairs {
				out[p] = true
			}
		}
	}
	return out
}

// podLabelKeys is the run's labelKeys.
var podLabelKeys = checks.NewIndex(func(ctx *checks.Context) *labelKeys {
	out := &labelKeys{keys: map[string]bool{}, added: map[string]map[labelPair]bool{}}
	for _, o := range ctx.Objects() {
		if lbls, ok := podLabels(o); ok {
			for k := range lbls {
				out.keys[k] = true
			}
		}
		if !checks.IsKustomization(o) {
			continue
		}
		dir := path.Dir(o.File.Path)
		add := func(n *yaml.Node) {
			if n == nil || n.Kind != yaml.MappingNode {
				return
			}
			if out.added[dir] == nil {
				out.added[dir] = map[labelPair]bool{}
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1].Value
				out.keys[k] = true
				out.added[dir][labelPair{k, v}] = true
			}
		}
		add(o.Node("commonLabels"))
		if ls := o.Node("labels"); ls != nil && ls.Kind == yaml.SequenceNode {
			for _, item := range ls.Content {
				_, pairs := manifest.MapEntry(item, "pairs")
				_, tpl := manifest.MapEntry(item, "includeTemplates")
				_, sel := manifest.MapEntry(item, "includeSelectors")
				if (tpl != nil && tpl.Value == "true") || (sel != nil && sel.Value == "true") {
					add(pairs)
				}
			}
		}
	}
	return out
})

// builtPodLabels is podLabelIndex with the labels kustomizations add to
// the templates they build: the labels the pods get.
var builtPodLabels = checks.NewIndex(func(ctx *checks.Context) *podLabelSet {
	raw := podLabelIndex.Of(ctx)
	keys := podLabelKeys.Of(ctx)
	if len(keys.added) == 0 {
		return raw
	}
	s := &podLabelSet{labels: map[*manifest.Object]map[string]string{}, byPair: map[labelPair][]*manifest.Object{}, units: raw.units}
	byUnit := map[string]map[labelPair]bool{}
	for _, w := range ctx.Objects() {
		lbls, ok := raw.labels[w]
		if !ok {
			continue
		}
		unit := ctx.Unit(w)
		added, ok := byUnit[unit]
		if !ok {
			added = keys.addedTo(ctx, unit)
			byUnit[unit] = added
		}
		if len(added) > 0 {
			merged := make(map[string]string, len(lbls)+len(added))
			for k, v := range lbls {
				merged[k] = v
			}
			for p := range added { // kustomize overwrites the template's value
				merged[p.k] = p.v
			}
			lbls = merged
		}
		s.labels[w] = lbls
		for k, v := range lbls {
			s.byPair[labelPair{k, v}] = append(s.byPair[labelPair{k, v}], w)
		}
	}
	return s
})
