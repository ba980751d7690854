package report

import (
	"bufio"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
)

// TestAlikeLinesStayApart holds the text format to telling apart lines
// that its cut would print the same: two objects of one template line by
// their names, and one object's findings of two renders (kyverno's
// admission-controller with its values sets, from the corpus) by their
// message's end too.
func TestAlikeLinesStayApart(t *testing.T) {
	const msg = `container "kyverno-pre" uses "reg.kyverno.io/kyverno/kyvernopre:latest": :latest changes under the same name; pin a version tag (or a digest) (rendered from the chart charts-more/kyverno; `
	f := func(name, tail string) checks.Finding {
		return checks.Finding{RuleID: "image-tag-mutable", Severity: checks.Warning, File: "templates/deployment.yaml", Line: 100, Column: 1,
			Message: msg + tail, Object: checks.ObjectRef{Kind: "Deployment", Name: name}}
	}
	fs := []checks.Finding{
		f("kyverno-admission-controller", "with values.yaml, ci/default-values.yaml and 12 more, not with ci/extraContainers-values.yaml, ci/reportsServer-values.yaml)"),
		f("kyverno-admission-controller", "with ci/extraContainers-values.yaml, ci/reportsServer-values.yaml, not with values.yaml, ci/default-values.yaml and 12 more)"),
		f("kyverno-cleanup-controller", "with every values set)"),
		f("kyverno-reports-controller", "with every values set)"),
	}
	var b strings.Builder
	w := bufio.NewWriter(&b)
	var st textState
	st.add(w, fs, painter{})
	w.Flush()
	want := `templates/deployment.yaml
  100:1    warning  Deployment kyverno-admission-controller: container "kyverno-pre" uses … ci/reportsServer-values.yaml)  image-tag-mutable
  100:1    warning  Deployment kyverno-admission-controller: container "kyverno-pre" uses … not with values.yaml, ci/default-values.yaml and 12 more)  image-tag-mutable
  100:1    warning  Deployment kyverno-cleanup-controller: container "kyverno-pre" uses "reg.kyverno.io/kyverno/kyvernopre:latest": :latest changes under the …  image-tag-mutable
  100:1    warning  Deployment kyverno-reports-controller: container "kyverno-pre" uses "reg.kyverno.io/kyverno/kyvernopre:latest": :latest changes under the …  image-tag-mutable
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("two lines read the same: %s", l)
		}
		seen[l] = true
	}
}
