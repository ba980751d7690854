package kyverno

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/manifest"
)

var helmValuesUnknownKey = &checks.Rule{
	ID:       "helm-values-unknown-key",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://github.com/kyverno/kyverno/blob/main/charts/kyverno/README.md#values",
	Why:      "a Kyverno values file sets a key the chart does not read (renamed between versions, or misspelt), so the setting silently does nothing",
	Help:     "Keys are checked against the chart's own values.yaml of the version in use (embedded for 2.3.4, 2.7.5, 3.0.0, 3.2.9 and 3.9.0; versions in between use both neighbours), only under maps the chart lists keys for: free-form maps (extraArgs, nodeSelector, annotations, labels, imagePullSecrets, lifecycle, resources, probes, affinity, …) and subchart values are never judged. A curated table names the key the chart reads instead (2.x↔3.x, webhooksCleanup.enable→enabled, metricsService.enabled→create, webhook.timeoutSeconds→…container.extraArgs.webhookTimeout). The other generation's HA keys are reported by kyverno-values-mixed-generation.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range valuesOf(ctx, obj) {
			if v.ChartOwn || v.Root == nil {
				continue
			}
			defaults := make([]*yaml.Node, 0, len(v.Defaults))
			for _, c := range v.Defaults {
				defaults = append(defaults, c.Root)
			}
			out = append(out, unknownKeys(obj, v, v.Root, defaults, nil)...)
		}
		return out
	},
}

// unknownKeys walks a user mapping beside the chart defaults' mappings
// at the same path and reports keys none of the defaults has.
func unknownKeys(obj *manifest.Object, v *values, user *yaml.Node, defaults []*yaml.Node, path []string) []checks.Finding {
	for user != nil && user.Kind == yaml.AliasNode && user.Alias != nil {
		user = user.Alias
	}
	if user == nil || user.Kind != yaml.MappingNode {
		return nil
	}
	if len(path) > 0 && freeForm[path[len(path)-1]] {
		return nil
	}
	if len(path) == 1 && subcharts[path[0]] {
		return nil
	}
	// Judge only where every candidate chart lists keys: a null, empty or
	// missing map in one of them means the key is free-form or new there.
	known := map[string][]*yaml.Node{}
	for _, d := range defaults {
		if d == nil || d.Kind != yaml.MappingNode || len(d.Content) == 0 {
			if len(path) > 0 {
				return nil
			}
			continue
		}
		for i := 0; i+1 < len(d.Content); i += 2 {
			k := d.Content[i].Value
			known[k] = append(known[k], d.Content[i+1])
		}
	}
	if len(known) == 0 {
		return nil
	}
	var out []checks.Finding
	for i := 0; i+1 < len(user.Content); i += 2 {
		key := user.Content[i].Value
		child := append(append([]string{}, path...), key)
		if strings.Contains(key, "{{") || key == "<<" {
			continue
		}
		if len(path) == 0 && contains(v.CondKeys, key) {
			continue // the umbrella chart's dependency condition
		}
		if isHAKeyOfOtherGen(v.Gen, child) {
			continue // kyverno-values-mixed-generation
		}
		if r, ok := renameFor(v.Gen, child); ok {
			if _, isKnown := known[key]; !isKnown {
				if !(v.Gen == 2 && len(child) == 1 && key == "admissionController" && onlyHAKeys(user.Content[i+1])) {
					out = append(out, renameFinding(obj, v, child, r))
				}
				continue
			}
		}
		subs, ok := known[key]
		if !ok {
			out = append(out, unknownOrRenamedChildren(obj, v, user.Content[i+1], child, mapKeysOf(defaults))...)
			continue
		}
		// Descend with each candidate's node (absent ones as nil).
		next := make([]*yaml.Node, 0, len(defaults))
		for _, d := range defaults {
			_, c := manifest.MapEntry(d, key)
			next = append(next, c)
		}
		_ = subs
		out = append(out, unknownKeys(obj, v, user.Content[i+1], next, child)...)
	}
	return out
}

func mapKeysOf(defaults []*yaml.Node) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range defaults {
		for _, k := range mapKeys(d) {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

func renameFinding(obj *manifest.Object, v *values, path []string, r rename) checks.Finding {
	msg := fmt.Sprintf("%s is not read by %s, so it silently does nothing", pathString(path), v.kyvWhere())
	if r.to != nil {
		msg += "; it reads " + pathString(r.to)
	}
	if r.note != "" {
		msg += " (" + r.note + ")"
	}
	f := checks.At(v.o(obj), v.p(path...), msg)
	if r.noFix || r.to == nil {
		return f
	}
	if ops := moveOps(v, path, r.to); ops != nil {
		return f.WithFix("rename to "+pathString(r.to), ops...)
	}
	if v.node(r.to...) != nil {
		f.Message += " (already set here: delete the ignored key)"
	}
	return f
}

func unknownFinding(obj *manifest.Object, v *values, path []string, siblings []string) checks.Finding {
	key := path[len(path)-1]
	msg := fmt.Sprintf("%s is not a key of %s's values, so the chart ignores it", pathString(path), v.kyvWhere())
	best := ""
	for _, s := range siblings {
		if closeKey(key, s) {
			best = s
			break
		}
	}
	f := checks.At(v.o(obj), v.p(path...), msg)
	if best == "" {
		return f
	}
	to := append(append([]string{}, path[:len(path)-1]...), best)
	f.Message += "; did you mean " + pathString(to) + "?"
	if ops := moveOps(v, path, to); ops != nil {
		return f.WithFix("rename to "+pathString(to), ops...)
	}
	return f
}

// closeKey reports whether a key is a likely misspelling of known: equal
// ignoring case, or within two edits for keys of five or more letters.
func closeKey(key, known string) bool {
	if key == known {
		return false
	}
	if strings.EqualFold(key, known) {
		return true
	}
	if len(key) < 5 || len(known) < 5 {
		return false
	}
	return editDistance(strings.ToLower(key), strings.ToLower(known)) <= 2
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// onlyHAKeys reports whether a 2.x file's admissionController block
// holds only HA keys, which kyverno-values-mixed-generation reports.
func onlyHAKeys(ac *yaml.Node) bool {
	for _, k := range mapKeys(ac) {
		switch k {
		case "replicas", "podDisruptionBudget", "topologySpreadConstraints", "antiAffinity", "podAntiAffinity":
		case "container":
			_, c := manifest.MapEntry(ac, "container")
			for _, ck := range mapKeys(c) {
				if ck != "resources" {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// unknownOrRenamedChildren reports an unknown key; when some of its
// children have a curated rename (webhook.timeoutSeconds,
// metricsService.enabled), each child is reported instead, so each gets its
// own target.
func unknownOrRenamedChildren(obj *manifest.Object, v *values, val *yaml.Node, path []string, siblings []string) []checks.Finding {
	keys := mapKeys(val)
	renamed := false
	for _, k := range keys {
		if _, ok := renameFor(v.Gen, append(append([]string{}, path...), k)); ok {
			renamed = true
		}
	}
	if !renamed {
		return []checks.Finding{unknownFinding(obj, v, path, siblings)}
	}
	var out []checks.Finding
	for _, k := range keys {
		child := append(append([]string{}, path...), k)
		if r, ok := renameFor(v.Gen, child); ok {
			out = append(out, renameFinding(obj, v, child, r))
		} else {
			out = append(out, unknownFinding(obj, v, child, nil))
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
