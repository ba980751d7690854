package fix

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

const twoDocs = `# header
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1 # one for now
  template:
    spec:
      containers:
        - name: web
          image: web:1
          ports:
            - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: web
`

func finding(doc int, ops ...edit.Op) checks.Finding {
	return checks.Finding{RuleID: "r", Object: checks.ObjectRef{Doc: doc}, Fix: &checks.Fix{Description: "d", Edits: ops}}
}

func TestSuggestionsReproduceApply(t *testing.T) {
	container := []string{"spec", "template", "spec", "containers", "0"}
	findings := []checks.Finding{
		finding(0, checks.SetOp([]string{"spec", "replicas"}, "3")),
		finding(0, checks.SetOp(append(container, "readinessProbe"), "tcpSocket:\n  port: 8080\n", "ports")),
		finding(0, checks.SetOp(append(container, "livenessProbe"), "tcpSocket:\n  port: 8080\n", "ports", "readinessProbe")),
		{RuleID: "no-fix", Object: checks.ObjectRef{Doc: 1}},
		finding(1, checks.SetOp([]string{"metadata", "labels"}, "app: web\n", "name")),
	}
	want, applied, failed := Apply([]byte(twoDocs), findings)
	if len(failed) != 0 || len(applied) != 4 {
		t.Fatalf("applied %v failed %v", applied, failed)
	}
	sugg, failed := Suggest([]byte(twoDocs), findings)
	if len(failed) != 0 {
		t.Fatal(failed)
	}
	var cs []edit.Change
	for _, s := range sugg {
		cs = append(cs, edit.Change{StartLine: s.StartLine, EndLine: s.EndLine, Text: s.Text})
	}
	if got := edit.ApplyChanges([]byte(twoDocs), cs); string(got) != string(want) {
		t.Fatalf("committing the suggestions as GitHub would gives\n%s\nbut fix gives\n%s", got, want)
	}
	// replicas (line 7) is alone; the two probes insert under the same
	// anchor and merge; the Service label is its own.
	if len(sugg) != 3 {
		t.Fatalf("want 3 suggestions, got %d: %+v", len(sugg), sugg)
	}
	if sugg[0].StartLine != 7 || sugg[0].EndLine != 7 || !strings.Contains(sugg[0].Text, "replicas: 3") {
		t.Errorf("replicas suggestion: %+v", sugg[0])
	}
	if len(sugg[1].Findings) != 2 {
		t.Errorf("the two probe fixes insert at the same place and must merge: %+v", sugg[1])
	}
	if !strings.Contains(string(want), "# header") {
		t.Error("the header comment must stay")
	}
}

func TestFailedFixIsReported(t *testing.T) {
	findings := []checks.Finding{
		finding(0, checks.SetOp([]string{"spec", "template", "spec", "containers", "5", "image"}, "x")),
		finding(0, checks.SetOp([]string{"spec", "replicas"}, "2")),
	}
	out, applied, failed := Apply([]byte(twoDocs), findings)
	if len(failed) != 1 || failed[0].Finding != 0 || len(applied) != 1 || !strings.Contains(string(out), "replicas: 2") {
		t.Fatalf("applied %v failed %+v", applied, failed)
	}
}

func TestNothingToFix(t *testing.T) {
	out, applied, failed := Apply([]byte(twoDocs), []checks.Finding{{RuleID: "x"}})
	if string(out) != twoDocs || applied != nil || failed != nil {
		t.Fatal("findings without fixes must change nothing")
	}
	if s, f := Suggest([]byte(twoDocs), nil); s != nil || f != nil {
		t.Fatal("no findings, no suggestions")
	}
}

// TestFarApartFixIsShownNotSuggested checks that a fix whose changes lie
// far apart in one file (a chart's securityContext and, 150 lines below,
// its extra mounts) comes as its separate places, marked Apart, and stays
// out of the suggestion of the fix beside its first change, which commits
// what that fix alone gives.
func TestFarApartFixIsShownNotSuggested(t *testing.T) {
	var b strings.Builder
	b.WriteString("securityContext:\n  runAsUser: 65534\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "key%d: %d\n", i, i)
	}
	b.WriteString("extraVolumeMounts: []\n")
	src := []byte(b.String())
	near := finding(0, checks.SetOp([]string{"securityContext", "runAsNonRoot"}, "true"))
	far := finding(0,
		checks.SetOp([]string{"securityContext", "readOnlyRootFilesystem"}, "true"),
		checks.AppendOp([]string{"extraVolumeMounts"}, "name: tmp\nmountPath: /tmp\n"))
	sugg, failed := Suggest(src, []checks.Finding{near, far})
	if len(failed) != 0 {
		t.Fatal(failed)
	}
	var apart, committed []Suggestion
	for _, s := range sugg {
		if s.Apart {
			apart = append(apart, s)
		} else {
			committed = append(committed, s)
		}
	}
	if len(apart) != 2 || apart[0].Findings[0] != 1 || apart[1].Findings[0] != 1 || !strings.Contains(apart[1].Text, "mountPath: /tmp") {
		t.Errorf("the far fix's places: %+v, want two, for it, the second the mount", apart)
	}
	if len(committed) != 1 || len(committed[0].Findings) != 1 || committed[0].Findings[0] != 0 ||
		!strings.Contains(committed[0].Text, "runAsNonRoot: true") || strings.Contains(committed[0].Text, "readOnlyRootFilesystem") {
		t.Fatalf("the near fix's suggestion: %+v, want runAsNonRoot alone", committed)
	}
	want, _, _ := Apply(src, []checks.Finding{near})
	got := edit.ApplyChanges(src, []edit.Change{{StartLine: committed[0].StartLine, EndLine: committed[0].EndLine, Text: committed[0].Text}})
	if string(got) != string(want) {
		t.Errorf("committing the near fix's suggestion gives\n%s\nwant\n%s", got, want)
	}
}
