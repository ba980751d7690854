package kyverno

import (
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/prodready/prodready/checks"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/kyvernovalues"
	"github.com/prodready/prodready/checks/manifest"
)

// section is the catalog section of the admission-webhook and Kyverno rules.
const section = "11. Admission webhooks and Kyverno"

// values is one set of Kyverno chart values found in the run: a values
// file, the part of an umbrella chart's values under the kyverno
// dependency, or the inline values of a Flux HelmRelease or Argo CD
// Application that installs the kyverno chart.
type values struct {
	Obj *manifest.Object
	// Base is the path of the values' root inside Obj (nil for a whole
	// values document, ["spec","values"] for a HelmRelease, …).
	Base manifest.Path
	// Root is the values mapping; nil when the release sets no values.
	Root *yaml.Node
	// Lower holds value layers this one is merged over, nearest first
	// (an umbrella chart's values.yaml under its values-prod.yaml), before
	// the chart's defaults.
	Lower []*yaml.Node

	// Version is the chart version when it is known exactly.
	Version      kyvernovalues.Version
	VersionExact bool
	// Gen is the chart generation: 2, 3, or 0 when it cannot be told.
	Gen int
	// GenFrom says how the generation was decided, for messages and tests.
	GenFrom string
	// Defaults are the embedded chart values the release is merged over:
	// the exact or nearest versions, every version of the generation, or
	// every version when the generation is unknown.
	Defaults []kyvernovalues.Chart

	// ChartOwn is true for the kyverno chart's own values.yaml. Its keys
	// define the chart, so the rules about unknown keys, generations and
	// the chart's flags skip it; the HA rules judge it (a repository that
	// vendors the chart installs it with that file, as its author edits
	// it) unless Overridden.
	ChartOwn bool
	// Overridden is true for the chart's own values.yaml when values files
	// beside it (values-prod.yaml) are judged merged over it: those are
	// what is installed, so the HA rules judge them and not the file alone.
	Overridden bool
	// Namespace is the namespace Kyverno is installed into, when known.
	Namespace string
	// NamespacePath is where Obj says so (nil: the kind line).
	NamespacePath manifest.Path
	// Source says how the values were recognised: config, Chart.yaml,
	// HelmRelease or Application.
	Source string
	// InString is true for values written as a YAML string (an Argo CD
	// Application's helm.values): findings point into the string, but no
	// fix is offered (edits address nodes, not text inside a string).
	InString bool
	// CondKeys are keys of Root that the umbrella chart's dependency
	// condition reads (kyverno.enabled): not the kyverno chart's keys.
	CondKeys []string
	// Over holds layers merged over Root (an Argo CD Application's
	// helm.parameters), nearest first.
	Over []*yaml.Node
	// Partial is true when part of the release's values lives where the
	// check cannot read it (a Secret in valuesFrom, Argo CD valueFiles):
	// rules that judge the effective result skip it.
	Partial bool
	// PosObj, when set, stands for Obj in positions: a copy whose tree has
	// the parsed string grafted at Base.
	PosObj *manifest.Object
}

// o returns the object to compute positions on.
func (v *values) o(obj *manifest.Object) *manifest.Object {
	if v.PosObj != nil {
		return v.PosObj
	}
	return obj
}

// stringValues parses values written as a string at path of o. Lines and
// columns are shifted to the file's for a block scalar (| or >); other
// strings point at the string itself. It returns the values mapping and a
// copy of o whose tree holds it at path.
func stringValues(o *manifest.Object, path manifest.Path, str *yaml.Node) (*yaml.Node, *manifest.Object) {
	var doc yaml.Node
	if yaml.Unmarshal([]byte(str.Value), &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	root := doc.Content[0]
	block := str.Style == yaml.LiteralStyle || str.Style == yaml.FoldedStyle
	indent := 0
	if block {
		indent, _ = o.BlockIndent(str) // the block's first content line
	}
	seen := map[*yaml.Node]bool{}
	var shift func(n *yaml.Node)
	shift = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if block {
			n.Line += str.Line
			n.Column += indent
		} else {
			n.Line, n.Column = str.Line, str.Column
		}
		for _, c := range n.Content {
			shift(c)
		}
	}
	shift(root)
	// Copy the spine from the root to path, then graft the values.
	var clone func(n *yaml.Node, rest manifest.Path) *yaml.Node
	clone = func(n *yaml.Node, rest manifest.Path) *yaml.Node {
		if len(rest) == 0 {
			return root
		}
		c := *n
		c.Content = append([]*yaml.Node{}, n.Content...)
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(c.Content); i += 2 {
				if c.Content[i].Value == rest[0] {
					c.Content[i+1] = clone(c.Content[i+1], rest[1:])
				}
			}
		case yaml.SequenceNode:
			for i := range c.Content {
				if manifest.Index(i) == rest[0] {
					c.Content[i] = clone(c.Content[i], rest[1:])
				}
			}
		}
		return &c
	}
	return root, o.WithRoot(clone(o.Root(), path))
}

// stripStringFixes drops the fixes of findings inside values written as
// a string (their edits would address nodes inside the string).
func stripStringFixes(check func(*checks.Context, *manifest.Object) []checks.Finding) func(*checks.Context, *manifest.Object) []checks.Finding {
	return func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		out := check(ctx, obj)
		for _, v := range valuesOf(ctx, obj) {
			if !v.InString {
				continue
			}
			prefix := v.Base.String()
			for i := range out {
				if out[i].Fix != nil && (out[i].Path == prefix || strings.HasPrefix(out[i].Path, prefix+".")) {
					out[i].Fix = nil
					out[i].Message += " (the values are a string here: edit it by hand)"
				}
			}
		}
		return out
	}
}

// index holds the Kyverno values of one run.
type index struct {
	byObj map[*manifest.Object][]*values
	all   []*values
}

// valuesIndex is the run's Kyverno values.
var valuesIndex = checks.NewTrackedIndex(buildIndex)

// valuesOf returns the Kyverno values held by obj.
func valuesOf(ctx *checks.Context, obj *manifest.Object) []*values {
	return valuesIndex.Of(ctx).byObj[obj]
}

// isChart reports whether a chart reference names the kyverno chart
// ("kyverno", "kyverno/kyverno", "oci://ghcr.io/kyverno/charts/kyverno").
func isChart(name string) bool {
	name = strings.TrimSpace(name)
	return name == "kyverno" || strings.HasSuffix(name, "/kyverno")
}

// isValuesDoc reports whether obj can be a values document: a mapping
// with no kind that is not a Chart.yaml or a kustomization.
func isValuesDoc(o *manifest.Object) bool {
	if o.Kind != "" {
		return false // before Root: reading a packed object's tree here inflates it for the rest of the run
	}
	if o.RootKind() != yaml.MappingNode {
		return false // RootKind, not Root: this is asked of every values file of the run, nearly none of them kyverno's, and Root would inflate each packed tree and keep it for the run (6 MB on the corpus's charts)
	}
	base := path.Base(o.File.Path)
	return base != "Chart.yaml" && base != "Chart.yml" && !checks.IsKustomization(o)
}

// pathMatches reports whether a configured values path names file
// (checks.MatchValuesPath, as the run counts the file checked).
func pathMatches(pattern, file string) bool { return checks.MatchValuesPath(pattern, file) }

func buildIndex(ctx *checks.Context) *index {
	idx := &index{byObj: map[*manifest.Object][]*values{}}
	add := func(v *values) {
		resolve(v)
		idx.byObj[v.Obj] = append(idx.byObj[v.Obj], v)
		idx.all = append(idx.all, v)
	}
	seen := map[*manifest.Object]bool{}

	// 1. The config names values files.
	for _, hv := range ctx.Config.HelmValues {
		if !isChart(hv.Chart) || hv.Path == "" {
			continue
		}
		for _, o := range ctx.ByKind("") { // values files and Chart.yaml have no kind
			if seen[o] || !isValuesDoc(o) || !pathMatches(hv.Path, o.File.Path) {
				continue
			}
			seen[o] = true
			v := &values{Obj: o, Root: o.Root(), Source: "config"}
			v.Version, v.VersionExact = kyvernovalues.ParseVersion(hv.Version)
			add(v)
		}
	}

	// 2. Values files beside a Chart.yaml that is, or depends on, kyverno.
	charts := map[string]*manifest.Object{}
	for _, o := range ctx.ByKind("") { // values files and Chart.yaml have no kind
		if b := path.Base(o.File.Path); (b == "Chart.yaml" || b == "Chart.yml") && o.Kind == "" {
			charts[path.Dir(o.File.Path)] = o
		}
	}
	if len(charts) > 0 {
		byDir := map[string][]*manifest.Object{}
		for _, o := range ctx.ByKind("") { // values files and Chart.yaml have no kind
			if !seen[o] && isValuesDoc(o) && strings.Contains(strings.ToLower(path.Base(o.File.Path)), "values") {
				byDir[path.Dir(o.File.Path)] = append(byDir[path.Dir(o.File.Path)], o)
			}
		}
		for dir, chart := range charts {
			docs := byDir[dir]
			if len(docs) == 0 {
				continue
			}
			var base *manifest.Object // the chart's own values.yaml
			for _, d := range docs {
				if b := path.Base(d.File.Path); (b == "values.yaml" || b == "values.yml") && d.Doc == 0 {
					base = d
				}
			}
			name, _ := chart.Scalar("name")
			if isChart(name) {
				ver, _ := chart.Scalar("version")
				for _, d := range docs {
					v := &values{Obj: d, Root: d.Root(), Source: "Chart.yaml", ChartOwn: d == base, Overridden: d == base && len(docs) > 1}
					v.Version, v.VersionExact = kyvernovalues.ParseVersion(ver)
					if base != nil && d != base {
						v.Lower = []*yaml.Node{base.Root()}
					}
					seen[d] = true
					add(v)
				}
				continue
			}
			deps := chart.Node("dependencies")
			if deps == nil || deps.Kind != yaml.SequenceNode {
				continue
			}
			for _, dep := range deps.Content {
				_, n := manifest.MapEntry(dep, "name")
				if n == nil || !isChart(n.Value) {
					continue
				}
				key := n.Value
				if _, a := manifest.MapEntry(dep, "alias"); a != nil && a.Value != "" {
					key = a.Value
				}
				ver := ""
				if _, vn := manifest.MapEntry(dep, "version"); vn != nil {
					ver = vn.Value
				}
				// condition: the dependency is installed only when these
				// values paths are true (e.g. kyverno.enabled); the key is
				// the umbrella's, not the kyverno chart's.
				var cond []string
				if _, c := manifest.MapEntry(dep, "condition"); c != nil {
					for _, p := range strings.Split(c.Value, ",") {
						if p = strings.TrimSpace(p); p != "" {
							cond = append(cond, p)
						}
					}
				}
				var lower *yaml.Node
				if base != nil {
					if _, l := manifest.MapEntry(base.Root(), key); l != nil && l.Kind == yaml.MappingNode {
						lower = l
					}
				}
				for _, d := range docs {
					_, sub := manifest.MapEntry(d.Root(), key)
					if sub == nil || sub.Kind != yaml.MappingNode {
						continue
					}
					if conditionOff(cond, d.Root(), base) {
						continue // the dependency is switched off
					}
					v := &values{Obj: d, Base: manifest.Path{key}, Root: sub, Source: "Chart.yaml"}
					for _, c := range cond {
						if k, ok := strings.CutPrefix(c, key+"."); ok && !strings.Contains(k, ".") {
							v.CondKeys = append(v.CondKeys, k)
						}
					}
					v.Version, v.VersionExact = kyvernovalues.ParseVersion(ver)
					if lower != nil && d != base {
						v.Lower = []*yaml.Node{lower}
					}
					add(v)
				}
			}
		}
	}

	// 3. Flux HelmReleases and Argo CD Applications for the kyverno chart.
	for _, o := range ctx.ByKind("HelmRelease") {
		if !strings.HasPrefix(o.APIVersion, "helm.toolkit.fluxcd.io/") {
			continue
		}
		chart, _ := o.Scalar("spec", "chart", "spec", "chart")
		ver, _ := o.Scalar("spec", "chart", "spec", "version")
		if chart == "" && chartRefIsKyverno(ctx, o) {
			chart, ver = "kyverno", "" // chartRef: the version is not in the release
		}
		if !isChart(chart) {
			continue
		}
		v := &values{Obj: o, Base: manifest.Path{"spec", "values"}, Source: "HelmRelease"}
		if n := o.Node("spec", "values"); n != nil && n.Kind == yaml.MappingNode {
			v.Root = n
		}
		v.Version, v.VersionExact = kyvernovalues.ParseVersion(ver)
		v.Lower, v.Partial = valuesFrom(ctx, o)
		v.Namespace, _ = o.Scalar("spec", "targetNamespace")
		v.NamespacePath = manifest.Path{"spec", "targetNamespace"}
		if v.Namespace == "" {
			v.Namespace = ctx.Namespace(o)
			v.NamespacePath = manifest.Path{"metadata", "namespace"}
		}
		add(v)
	}
	for _, o := range ctx.ByKind("Application") {
		if !strings.HasPrefix(o.APIVersion, "argoproj.io/") {
			continue
		}
		ns, _ := o.Scalar("spec", "destination", "namespace")
		var sources []manifest.Path
		if o.Has("spec", "source") {
			sources = append(sources, manifest.Path{"spec", "source"})
		}
		if s := o.Node("spec", "sources"); s != nil && s.Kind == yaml.SequenceNode {
			for i := range s.Content {
				sources = append(sources, manifest.Path{"spec", "sources", manifest.Index(i)})
			}
		}
		for _, sp := range sources {
			chart, _ := o.Scalar(sp.Child("chart")...)
			if !isChart(chart) {
				continue
			}
			ver, _ := o.Scalar(sp.Child("targetRevision")...)
			v := &values{Obj: o, Base: sp.Child("helm", "valuesObject"), Source: "Application", Namespace: ns, NamespacePath: manifest.Path{"spec", "destination", "namespace"}}
			if n := o.Node(v.Base...); n != nil && n.Kind == yaml.MappingNode {
				v.Root = n
			} else if str := o.Node(sp.Child("helm", "values")...); str != nil && str.Kind == yaml.ScalarNode {
				// values as a YAML string: read it, with positions in the file.
				if root, pos := stringValues(o, sp.Child("helm", "values"), str); root != nil {
					v.Base, v.Root, v.PosObj, v.InString = sp.Child("helm", "values"), root, pos, true
				}
			}
			v.Version, v.VersionExact = kyvernovalues.ParseVersion(ver)
			if files := o.Node(sp.Child("helm", "valueFiles")...); files != nil && len(files.Content) > 0 {
				v.Partial = true // values files the check does not resolve
			}
			if params := o.Node(sp.Child("helm", "parameters")...); params != nil && params.Kind == yaml.SequenceNode {
				if over := parametersLayer(params); over != nil {
					v.Over = []*yaml.Node{over}
				}
			}
			add(v)
		}
	}
	return idx
}

// valuesFrom resolves a Flux HelmRelease's valuesFrom: ConfigMaps in
// the run become layers under the inline values (Flux merges them first,
// in order, so the last is nearest). Anything else (a Secret, a missing
// ConfigMap, a targetPath) makes the values partial.
func valuesFrom(ctx *checks.Context, hr *manifest.Object) (lower []*yaml.Node, partial bool) {
	refs := hr.Node("spec", "valuesFrom")
	if refs == nil || refs.Kind != yaml.SequenceNode {
		return nil, false
	}
	for _, ref := range refs.Content {
		_, kind := manifest.MapEntry(ref, "kind")
		_, name := manifest.MapEntry(ref, "name")
		key := "values.yaml"
		if _, k := manifest.MapEntry(ref, "valuesKey"); k != nil && k.Value != "" {
			key = k.Value
		}
		if _, tp := manifest.MapEntry(ref, "targetPath"); tp != nil || kind == nil || name == nil || kind.Value != "ConfigMap" {
			return nil, true
		}
		var found *yaml.Node
		for _, cm := range ctx.ByKind("ConfigMap") {
			if cm.Name != name.Value || !ctx.SameNamespace(cm, hr) {
				continue
			}
			if d := cm.Node("data", key); d != nil && d.Kind == yaml.ScalarNode {
				var doc yaml.Node
				if yaml.Unmarshal([]byte(d.Value), &doc) == nil && len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
					found = doc.Content[0]
				}
			}
		}
		if found == nil {
			return nil, true
		}
		lower = append([]*yaml.Node{found}, lower...)
	}
	return lower, false
}

// parametersLayer turns Argo CD helm.parameters (name: a.b.c, value: x)
// into a values mapping. Names with list indexes or escaped dots are
// skipped (they cannot hold the keys the rules read).
func parametersLayer(params *yaml.Node) *yaml.Node {
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	added := false
	for _, p := range params.Content {
		_, name := manifest.MapEntry(p, "name")
		_, val := manifest.MapEntry(p, "value")
		if name == nil || val == nil || strings.ContainsAny(name.Value, "[\\") {
			continue
		}
		parts := strings.Split(name.Value, ".")
		n := root
		for i, part := range parts {
			_, c := manifest.MapEntry(n, part)
			if i == len(parts)-1 {
				leaf := &yaml.Node{Kind: yaml.ScalarNode, Value: val.Value, Line: val.Line, Column: val.Column}
				if c != nil {
					*c = *leaf
				} else {
					n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: part}, leaf)
				}
				added = true
				break
			}
			if c == nil || c.Kind != yaml.MappingNode {
				c = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: part}, c)
			}
			n = c
		}
	}
	if !added {
		return nil
	}
	return root
}

// chartRefIsKyverno reports whether a HelmRelease's chartRef names an
// OCIRepository (or HelmChart) of the kyverno chart.
func chartRefIsKyverno(ctx *checks.Context, hr *manifest.Object) bool {
	kind, _ := hr.Scalar("spec", "chartRef", "kind")
	name, _ := hr.Scalar("spec", "chartRef", "name")
	if name == "" {
		return false
	}
	for _, o := range ctx.ByKind(kind) {
		if o.Name != name || !ctx.SameNamespace(o, hr) {
			continue
		}
		if url, _ := o.Scalar("spec", "url"); isChart(url) {
			return true
		}
		if c, _ := o.Scalar("spec", "chart"); isChart(c) {
			return true
		}
	}
	return false
}

// kyv3xOnlyKeys are top-level keys that only 3.x charts define; computed
// from the embedded charts.
var kyv3xOnlyKeys = sync.OnceValue(func() map[string]bool {
	in2 := map[string]bool{}
	for _, c := range kyvernovalues.Generation(2) {
		for _, k := range mapKeys(c.Root) {
			in2[k] = true
		}
	}
	out := map[string]bool{}
	for _, c := range kyvernovalues.Generation(3) {
		for _, k := range mapKeys(c.Root) {
			if !in2[k] {
				out[k] = true
			}
		}
	}
	return out
})

// resolve decides the generation and the defaults of v.
func resolve(v *values) {
	switch {
	case v.VersionExact && (v.Version.Major == 2 || v.Version.Major == 3):
		v.Gen = v.Version.Major
		v.GenFrom = "chart " + v.Version.String()
		v.Defaults = kyvernovalues.For(v.Version)
	case v.VersionExact:
		v.VersionExact = false // a chart generation we know nothing about
	}
	if v.Gen == 0 {
		if k, ok := infer3x(v); ok {
			v.Gen = 3
			v.GenFrom = "inferred from " + k
		}
	}
	if v.Defaults == nil {
		if v.Gen != 0 {
			v.Defaults = kyvernovalues.Generation(v.Gen)
		} else {
			v.Defaults = kyvernovalues.Charts()
		}
	}
	// The chart's namespace override wins over the release namespace.
	key := "namespace"
	if v.Gen == 3 {
		key = "namespaceOverride"
	}
	if s, ok := v.scalar(key); ok && s != "" && !isNull(v.node(key)) && !strings.Contains(s, "{{") {
		v.Namespace = s
		v.NamespacePath = v.p(key)
	}
}

// infer3x reports whether the values use a key only 3.x charts have
// (admissionController above all), and which.
func infer3x(v *values) (string, bool) {
	layers := append(append(append([]*yaml.Node{}, v.Over...), v.Root), v.Lower...)
	for _, l := range layers {
		if _, n := manifest.MapEntry(l, "admissionController"); n != nil {
			return "admissionController", true
		}
	}
	only := kyv3xOnlyKeys()
	for _, l := range layers {
		for _, k := range mapKeys(l) {
			if only[k] {
				return k, true
			}
		}
	}
	return "", false
}

// p returns the object path of a values path.
func (v *values) p(elems ...string) manifest.Path { return v.Base.Child(elems...) }

// node returns the node the values file itself sets at path, or nil.
func (v *values) node(elems ...string) *yaml.Node {
	n, _ := walk(v.Root, elems)
	return n
}

// scalar returns the scalar the values file itself sets at path.
func (v *values) scalar(elems ...string) (string, bool) {
	n := v.node(elems...)
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

// effective returns the value Helm ends up with at path: the file's own,
// else a lower layer's, else the chart default (the newest candidate
// chart's). A null anywhere on the way deletes the value (nil). Own reports
// whether the file itself decided it.
func (v *values) effective(elems ...string) (n *yaml.Node, own bool) {
	layers := append(append(append([]*yaml.Node{}, v.Over...), v.Root), v.Lower...)
	if len(v.Defaults) > 0 {
		layers = append(layers, v.Defaults[len(v.Defaults)-1].Root)
	}
	for i, l := range layers {
		n, decided := walk(l, elems)
		if decided {
			own := i == len(v.Over)
			if isNull(n) {
				return nil, own
			}
			return n, own
		}
	}
	return nil, false
}

// effInt returns the effective integer at path (ok false when it is absent,
// null or not a number).
func (v *values) effInt(elems ...string) (int, bool) {
	n, _ := v.effective(elems...)
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	i, err := strconv.Atoi(strings.TrimSpace(n.Value))
	return i, err == nil
}

// effBool returns the effective boolean at path (false when absent).
func (v *values) effBool(elems ...string) (val, ok bool) {
	n, _ := v.effective(elems...)
	if n == nil || n.Kind != yaml.ScalarNode {
		return false, false
	}
	b, err := strconv.ParseBool(strings.TrimSpace(n.Value))
	return b, err == nil
}

// walk follows elems from n. decided is true when the path was found,
// or when a null or a non-mapping cut it short (Helm then has nothing there,
// whatever lower layers say); false when a key is simply missing.
func walk(n *yaml.Node, elems []string) (node *yaml.Node, decided bool) {
	if n == nil {
		return nil, false
	}
	for _, e := range elems {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if isNull(n) {
			return n, true
		}
		if n.Kind != yaml.MappingNode {
			return nil, true
		}
		_, c := manifest.MapEntry(n, e)
		if c == nil {
			return nil, false
		}
		n = c
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n, true
}

// isNull reports whether n is a YAML null (~, null or nothing).
func isNull(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// mapKeys returns the keys of a mapping node.
func mapKeys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]string, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}

// haValues returns the values of obj that HA rules judge: generation
// known and every layer read, the chart's own values.yaml included (a
// vendored chart is installed with it) unless values files beside it are
// judged over it.
func haValues(ctx *checks.Context, obj *manifest.Object) []*values {
	var out []*values
	for _, v := range valuesOf(ctx, obj) {
		if v.Gen != 0 && !v.Partial && !v.Overridden {
			out = append(out, v)
		}
	}
	return out
}

// kyvAtLeast reports whether v's exact version is at least major.minor.
func (v *values) kyvAtLeast(major, minor int) bool {
	return v.VersionExact && !v.Version.Less(kyvernovalues.Version{Major: major, Minor: minor})
}

// kyvWhere names the values for messages: "chart 3.2.9", "chart 3.x
// (inferred from admissionController)".
func (v *values) kyvWhere() string {
	if v.VersionExact {
		return "kyverno chart " + v.Version.String()
	}
	if v.Gen != 0 {
		return "kyverno chart " + strconv.Itoa(v.Gen) + ".x (" + v.GenFrom + ")"
	}
	return "the kyverno chart (version unknown)"
}

// ver is a short constructor for versions.
func ver(major, minor, patch int) kyvernovalues.Version {
	return kyvernovalues.Version{Major: major, Minor: minor, Patch: patch}
}

// conditionOff reports whether a dependency condition is false in the
// values file (or, when it does not say, in the umbrella's values.yaml).
// Helm uses the first condition path that resolves.
func conditionOff(cond []string, root *yaml.Node, base *manifest.Object) bool {
	for _, c := range cond {
		elems := strings.Split(c, ".")
		n, _ := walk(root, elems)
		if (n == nil || n.Kind != yaml.ScalarNode) && base != nil {
			n, _ = walk(base.Root(), elems)
		}
		if n != nil && n.Kind == yaml.ScalarNode {
			if b, err := strconv.ParseBool(n.Value); err == nil {
				return !b
			}
		}
	}
	return false
}
