package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

// Rule is one check of the catalog (docs/rules.md).
type Rule struct {
	// ID is the stable identifier users configure and ignore, e.g. "pdb-missing".
	ID string
	// Section is the catalog section, e.g. "1. Health checks".
	Section string
	// Severity is the default severity of the rule's findings.
	Severity Severity
	// OptIn rules run only when the config enables them.
	OptIn bool
	// AlwaysOn rules cannot be switched off, only their severity set: their
	// findings say that a file, chart or overlay was not checked, and
	// without them it would pass in silence. The config and the
	// --disable-rule flag refuse to switch one off.
	AlwaysOn bool
	// Ref is the authoritative upstream documentation for the rule (the
	// Kubernetes, Kyverno or checklist page that states the practice), an
	// https URL shown in `prodready rules`, docs/rules.md and SARIF helpUri.
	Ref string
	// Why is the one-line reason the rule exists, shown in `prodready rules`.
	Why string
	// Help is longer guidance (how to fix, when to ignore), shown in SARIF
	// and the rule reference. Optional.
	Help string
	// Params are the rule's parameters with their defaults; the config may
	// override them under rules.<id>.<param>.
	Params map[string]any
	// ParamRanges bound the rule's whole-number parameters, both ends
	// included: the config refuses a value outside, and the config's JSON
	// Schema says the same. A whole-number parameter not named here takes
	// any value from 0. Whole-number parameters named min and max bound a
	// range: the config refuses a min above the max.
	ParamRanges map[string]IntRange
	// ParamItems check the items of the rule's list parameters, by name
	// (LabelKey, NamespaceName…): the config refuses an item whose check
	// fails, with its error.
	ParamItems map[string]func(item string) error
	// Check returns the rule's findings for one object. It sees every object
	// of the run through ctx. It must not panic on any input.
	Check func(ctx *Context, obj *manifest.Object) []Finding
	// Family rules stand for rules the repository writes itself (its
	// admission policies): their findings carry IDs "<ID>/<name>"
	// (policy/require-team), which the config, ignores and reports take
	// as this rule's; a finding whose ID lacks the prefix gets the rule's.
	Family bool
	// Unchecked, when set, says once per run what the rule could not
	// check, with why (a policy that cannot be evaluated offline, custom
	// resources with no CRD): every output lists it with the files not
	// checked. It must not panic on any input.
	Unchecked func(ctx *Context) []Unchecked
	// Exempted, when set, returns once per run the findings the rule made
	// and an exception in the repository exempts (a Kyverno
	// PolicyException): the cluster admits those objects, so they are not
	// findings, and every output that lists more than findings says them.
	// It must not panic on any input.
	Exempted func(ctx *Context) []Exempted
	// Indexes are indexes Check reads on most objects it checks, which no
	// memo recalls: a run builds them before its objects' rules run, on
	// every core beside each other and the memo's bucket digests, rather
	// than the first object's rule building each while the other cores
	// wait for it. Optional.
	Indexes []Prebuilt
}

// Exempted is a finding an exception written in the repository exempts,
// with the exception.
type Exempted struct {
	// Finding is what the rule would have reported.
	Finding Finding
	// Exception is where the exception is written (its File, Line and
	// Object; a scan moves a rendered one's to its template line).
	Exception Finding
	// By names the exception: "Kyverno PolicyException team/allow-legacy".
	By string
}

// Unchecked is one thing a rule could not check in a run, and why.
type Unchecked struct {
	// At is where it is: File, Line, Object and Path as a finding's (a
	// scan moves a rendered object's to its template line as it moves
	// findings).
	At Finding
	// Reason says what was not checked and why, for people.
	Reason string
}

// IntRange is an inclusive range of whole numbers.
type IntRange struct{ Min, Max int }

// Catalog is a set of rules with unique IDs: the rules a run may use.
// A Config is made for one catalog, and a run uses its config's.
type Catalog struct {
	rules []*Rule // sorted by section, then ID
	byID  map[string]*Rule
}

// NewCatalog returns the catalog of the rules of sections. Two rules with
// one ID are a programming error (caught by every test): it panics.
func NewCatalog(sections ...[]*Rule) *Catalog {
	c := &Catalog{byID: map[string]*Rule{}}
	for _, rules := range sections {
		for _, r := range rules {
			if _, dup := c.byID[r.ID]; dup {
				panic("checks: rule registered twice: " + r.ID)
			}
			c.byID[r.ID] = r
			c.rules = append(c.rules, r)
		}
	}
	sort.Slice(c.rules, func(i, j int) bool {
		a, b := c.rules[i], c.rules[j]
		if a.Section != b.Section {
			return sectionOrder(a.Section) < sectionOrder(b.Section)
		}
		return a.ID < b.ID
	})
	return c
}

// Rules returns every rule of the catalog, sorted by section then ID. The
// slice is the catalog's own: callers must not change it.
func (c *Catalog) Rules() []*Rule { return c.rules }

// Lookup returns the rule with id, or nil (always nil in a nil catalog).
// An ID "<family>/<name>" is the Family rule's (policy/require-team is
// policy's).
func (c *Catalog) Lookup(id string) *Rule {
	if c == nil {
		return nil
	}
	if r := c.byID[id]; r != nil {
		return r
	}
	if family, name, ok := strings.Cut(id, "/"); ok && name != "" {
		if r := c.byID[family]; r != nil && r.Family {
			return r
		}
	}
	return nil
}

// CheckRuleID returns nil when the catalog has a rule id, else an error
// that says so and names the closest ID when one is near: `unknown rule
// "pdb-mising" (did you mean "pdb-missing"? see `prodready rules`)`.
func (c *Catalog) CheckRuleID(id string) error {
	if c.Lookup(id) != nil {
		return nil
	}
	var ids []string
	if c != nil {
		for _, r := range c.rules {
			ids = append(ids, r.ID)
		}
	}
	if s := Closest(id, ids); s != "" {
		return fmt.Errorf("unknown rule %q (did you mean %q? see `prodready rules`)", id, s)
	}
	return fmt.Errorf("unknown rule %q (see `prodready rules`)", id)
}

// sectionOrder sorts "10. …" after "9. …".
func sectionOrder(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// RenderFailed is the rule of the findings a Helm chart or kustomize
// overlay gets when it cannot be rendered, or only in part: the error,
// quoted, at its Chart.yaml, kustomization or template line.
const RenderFailed = "render-failed"

// PatchUnmatched is the rule of the findings a kustomize overlay's build
// gets for each patch of its kustomizations (its own and its bases')
// whose target selects no object: at the target's name (else its selector
// or kind).
const PatchUnmatched = "kustomize-patch-unmatched"

// ReplacementUnmatched is the rule of the findings a kustomize overlay's
// build gets for each replacement target of its kustomizations (its own
// and its bases') whose select selects no object: at the select's name
// (else its selector or kind), in the kustomization or the replacement's
// file.
const ReplacementUnmatched = "kustomize-replacement-unmatched"

// InputRules are the findings the parser and the renderer produce, and
// the ignores that ignore nothing. Their Check does nothing, but
// IgnoreInvalid's, which checks ignore annotations: Run turns parse
// problems and ignore comments into their findings, and checks/rendered
// makes the render-failed ones.
func InputRules() []*Rule {
	return []*Rule{
		{ID: manifest.ProblemYAML, Section: "0. Input", Severity: Error, AlwaysOn: true,
			Ref:   "https://yaml.org/spec/1.2.2/",
			Why:   "the file or document is not YAML that can be read (syntax error, not UTF-8, NUL byte, over the size limit, alias bomb, absurd nesting, duplicate key), or a changed file the code host could not give: it is not checked",
			Check: func(*Context, *manifest.Object) []Finding { return nil }},
		{ID: manifest.ProblemSchema, Section: "10. API versions and cluster configuration", Severity: Error,
			Ref:   "https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation",
			Why:   "a built-in kind that does not decode strictly into its Kubernetes type (unknown field, wrong type, duplicate key): the API server rejects it",
			Check: func(*Context, *manifest.Object) []Finding { return nil }},
		{ID: IgnoreInvalid, Section: "0. Input", Severity: Warning,
			Ref:   "https://github.com/prodready/prodready/blob/main/docs/rules.md",
			Why:   "a `# prodready:ignore` comment or `prodready.dev/ignore` annotation that names no rule, or a rule ID that does not exist: it ignores nothing",
			Help:  "Name the rule IDs to ignore, comma-separated, or all: `# prodready:ignore run-as-root the image needs root` on the finding's line or the line above, or the annotation `prodready.dev/ignore: run-as-root`. `prodready rules` lists the IDs.",
			Check: checkIgnoreAnnotations},
		{ID: RenderFailed, Section: "0. Input", Severity: Error, AlwaysOn: true,
			Ref: "https://helm.sh/docs/chart_template_guide/debugging/",
			Why: "a Helm chart or kustomize overlay that cannot be rendered (a template error, a missing dependency, a refused plugin or remote base, a bound reached: its objects are not checked), or values a chart's values.schema.json refuses (helm install refuses them)",
			Help: "A template error is reported at the template line Helm names (inside an include, the helper's line); `# prodready:ignore render-failed <reason>` on the first line of Chart.yaml silences every render-failed finding of the chart. " +
				"A warning when it is rendered in part (a dependency that is not vendored, rendered without it): the objects that rendered are checked, the rest are named. " +
				"Values a chart's values.schema.json refuses (helm template and helm install refuse them) are an error at the values line that sets them; the render goes on and its objects are checked.",
			Check: func(*Context, *manifest.Object) []Finding { return nil }},
		{ID: PatchUnmatched, Section: "0. Input", Severity: Warning,
			Ref: "https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/patches/",
			Why: "a patch of a kustomize overlay whose target selects no object of its build (a mistyped name, a kind or label the objects do not have): kustomize applies it to nothing and says nothing, so what it sets (replicas, resources, a probe) is not set",
			Help: "The target's name and namespace are regular expressions matched against the whole name, as the object had it when the patch ran or in its source file: an overlay's patches run before its own namePrefix, nameSuffix and namespace (its patchesJson6902 after them), so they name the object as its base does. Its labelSelector and annotationSelector select by the object's own metadata labels and annotations, not its pod template's. " +
				"A base's patches are checked too, once for all the overlays that build on it, against every name the prefixes and suffixes of the overlay and its bases could have given an object: a target that only looks right there (the base's own prefixed name) is let go. A component's patches are not checked: they may be meant for objects some overlays do not have; nor are those of an overlay a patch of which deletes objects. Either is listed, with why, among what was not checked. " +
				"A strategic-merge patch without a target that names no object fails the build (render-failed).",
			Check: func(*Context, *manifest.Object) []Finding { return nil }},
		{ID: ReplacementUnmatched, Section: "0. Input", Severity: Warning,
			Ref: "https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/replacements/",
			Why: "a replacement target of a kustomize overlay whose select selects no object of its build (a mistyped name, a kind or label the objects do not have): kustomize copies the value into nothing and says nothing, so the field it was to set (an image, a host, a namespace) keeps what its source file has, often a placeholder",
			Help: "A target's name and namespace are regular expressions matched against the whole name; kustomize tries every name the object has had in the build (in its source file, after each namePrefix and nameSuffix), so any of them selects it. Its labelSelector and annotationSelector select by the object's own metadata labels and annotations, not its pod template's. " +
				"Replacements written in the overlay, in its bases and in the files their `path` names are checked, a base's once for all the overlays that build on it; a component's are not (they may be meant for objects some overlays do not have), nor those of an overlay a patch of which deletes objects: either is listed, with why, among what was not checked. A target whose select selects only objects its reject list takes out changes nothing either, and is not reported. " +
				"A source that selects nothing, or a field path a selected target lacks (without `options.create`), fails the build (render-failed).",
			Check: func(*Context, *manifest.Object) []Finding { return nil }},
	}
}
