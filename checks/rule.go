package checks

import (
	"sort"

	"github.com/prodready/prodready/checks/manifest"
)

// Rule is one check of the catalog (RULES.md).
type Rule struct {
	// ID is the stable identifier users configure and ignore, e.g. "pdb-missing".
	ID string
	// Section is the catalog section, e.g. "1. Health checks".
	Section string
	// Severity is the default severity of the rule's findings.
	Severity Severity
	// OptIn rules run only when the config enables them.
	OptIn bool
	// Why is the one-line reason the rule exists, shown in `prodready rules`.
	Why string
	// Help is longer guidance (how to fix, when to ignore), shown in SARIF
	// and the rule reference. Optional.
	Help string
	// Params are the rule's parameters with their defaults; the config may
	// override them under rules.<id>.<param>.
	Params map[string]any
	// Check returns the rule's findings for one object. It sees every object
	// of the run through ctx. It must not panic on any input.
	Check func(ctx *Context, obj *manifest.Object) []Finding
}

// families lists every group of rules; each lives in its own file(s) of
// this package. A family is a plain function so the whole catalog is one
// readable list.
var families = []func() []*Rule{
	inputRules,
	healthRules,
	shutdownRules,
	faultToleranceRules,
	resourceRules,
	labelRules,
	loggingStateRules,
	configSecretRules,
	securityContextRules,
	networkAccessRules,
	apiClusterRules,
	admissionKyvernoRules,
}

var registry = buildRegistry()

func buildRegistry() map[string]*Rule {
	m := map[string]*Rule{}
	for _, fam := range families {
		for _, r := range fam() {
			if _, dup := m[r.ID]; dup {
				panic("checks: rule registered twice: " + r.ID) // a programming error, caught by every test
			}
			m[r.ID] = r
		}
	}
	return m
}

// Rules returns every rule, sorted by section then ID.
func Rules() []*Rule {
	out := make([]*Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Section != out[j].Section {
			return sectionOrder(out[i].Section) < sectionOrder(out[j].Section)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Lookup returns the rule with id, or nil.
func Lookup(id string) *Rule { return registry[id] }

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

// inputRules are the findings the parser itself produces. Their Check does
// nothing: Run turns parse problems into their findings.
func inputRules() []*Rule {
	return []*Rule{
		{ID: manifest.ProblemYAML, Section: "0. Input", Severity: Error,
			Why:   "the file or document is not YAML that can be read (syntax error, NUL byte, over the size limit, alias bomb, absurd nesting, duplicate key)",
			Check: func(*Context, *manifest.Object) []Finding { return nil }},
		{ID: manifest.ProblemSchema, Section: "10. API versions and cluster configuration", Severity: Error,
			Why:   "a built-in kind that does not decode strictly into its Kubernetes type (unknown field, wrong type, duplicate key): the API server rejects it",
			Check: func(*Context, *manifest.Object) []Finding { return nil }},
	}
}
