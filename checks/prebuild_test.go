package checks_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// TestPrebuiltIndexPanicIsTheRulesFinding checks that an index a rule
// names in Rule.Indexes, built before the objects' rules on every core,
// does not end the run when its build panics: each object the rule reads
// it for gets the rule's internal-error finding with the build's panic,
// as when the rule built the index itself, and the other rules' findings
// are as they are.
func TestPrebuiltIndexPanicIsTheRulesFinding(t *testing.T) {
	broken := checks.NewIndex(func(*checks.Context) map[string]bool { panic("index build failed") })
	names := checks.NewIndex(func(ctx *checks.Context) map[string]bool {
		out := map[string]bool{}
		for _, o := range ctx.Objects() {
			out[o.Name] = true
		}
		return out
	})
	cat := checks.NewCatalog([]*checks.Rule{
		{ID: "reads-broken", Section: "test", Severity: checks.Warning, Indexes: []checks.Prebuilt{broken, names},
			Check: func(ctx *checks.Context, o *manifest.Object) []checks.Finding {
				if broken.Of(ctx)[o.Name] {
					return []checks.Finding{checks.At(o, nil, "never")}
				}
				return nil
			}},
		{ID: "reads-names", Section: "test", Severity: checks.Warning, Indexes: []checks.Prebuilt{names},
			Check: func(ctx *checks.Context, o *manifest.Object) []checks.Finding {
				return []checks.Finding{checks.At(o, nil, "named "+o.Name+": "+strings.Repeat("x", len(names.Of(ctx))))}
			}},
	})
	in := checks.Input{Path: "app.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")}
	res := checks.Run([]checks.Input{in}, checks.DefaultConfig(cat), checks.Options{})
	var internal, named []string
	for _, f := range res.Findings {
		switch f.RuleID {
		case "reads-broken":
			if !strings.Contains(f.Message, "internal error in rule reads-broken") || !strings.Contains(f.Message, "index build failed") {
				t.Errorf("reads-broken on %s: %q, want its internal error with the build's panic", f.Object.Name, f.Message)
			}
			internal = append(internal, f.Object.Name)
		case "reads-names":
			named = append(named, f.Message)
		}
	}
	if len(internal) != 2 {
		t.Errorf("reads-broken's internal errors on %v, want one on each of the two objects", internal)
	}
	if want := []string{"named a: xx", "named b: xx"}; strings.Join(named, "|") != strings.Join(want, "|") {
		t.Errorf("reads-names' findings %q, want %q", named, want)
	}
}
