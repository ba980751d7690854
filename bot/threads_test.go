package bot

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
)

// twoContainers is a Deployment of two privileged containers: each
// container's warnings make one thread, and spread-missing (the pod's) has
// a fix whose lines (topologySpreadConstraints, at the end of the pod
// spec) the sidecar's suggestion changes too.
const twoContainers = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 3
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          securityContext:
            privileged: true
        - name: sidecar
          image: envoy:1.30
          securityContext:
            privileged: true
`

// lineOf is the 1-based line of src that is exactly text.
func lineOf(t *testing.T, src, text string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if l == text {
			return i + 1
		}
	}
	t.Fatalf("no line %q", text)
	return 0
}

// TestThreadsAnchorAndNeverOverlap reviews a new Deployment with two
// containers with the whole catalog and the real fixes: each container's
// thread starts at its "- name:" line and carries its suggestion; no two
// threads' suggestions share a line; the thread whose fix another
// thread's suggestion carries has none and says so in one line naming
// that thread and the line its suggestion starts on, and that suggestion
// holds the fix.
func TestThreadsAnchorAndNeverOverlap(t *testing.T) {
	h := &memHost{allRules: true, refs: map[string]map[string]string{"head": {"d.yaml": twoContainers}},
		changed: []ChangedFile{{Path: "d.yaml", Status: "added", Patch: AddedFilePatch([]byte(twoContainers))}}}
	r, err := NewReviewer(nil, nil).Prepare(context.Background(), h, PullRequest{Number: 1, HeadSHA: "head"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	byContainer := map[string]Comment{}
	var spread *Comment
	for i, c := range r.Comments {
		if c.Container != "" {
			byContainer[c.Container] = c
		}
		for _, f := range c.Findings {
			if f.RuleID == "spread-missing" {
				spread = &r.Comments[i]
			}
		}
		if c.Container != "" {
			for _, f := range c.Findings {
				if f.Container() != c.Container {
					t.Errorf("thread about container %s has a finding about %q: %s", c.Container, f.Container(), f.RuleID)
				}
			}
		}
	}
	for _, name := range []string{"web", "sidecar"} {
		c, ok := byContainer[name]
		if !ok {
			t.Fatalf("no thread about container %s: %+v", name, r.Comments)
		}
		want := lineOf(t, twoContainers, "        - name: "+name)
		if c.StartLine != want {
			t.Errorf("container %s's thread starts at line %d, want its - name: line %d", name, c.StartLine, want)
		}
		if c.Suggestion == nil || c.Suggestion.StartLine != c.StartLine || c.Suggestion.EndLine != c.Line {
			t.Errorf("container %s's thread (%d-%d) does not carry a suggestion of its lines: %+v", name, c.StartLine, c.Line, c.Suggestion)
		} else if !strings.HasPrefix(c.Suggestion.Text, "        - name: "+name+"\n") {
			t.Errorf("container %s's suggestion does not keep its - name: line:\n%s", name, c.Suggestion.Text)
		}
	}
	// No two suggestions share a line.
	for i, a := range r.Comments {
		for _, b := range r.Comments[i+1:] {
			if a.Suggestion != nil && b.Suggestion != nil && a.Suggestion.StartLine <= b.Suggestion.EndLine && b.Suggestion.StartLine <= a.Suggestion.EndLine {
				t.Errorf("suggestions overlap: %s %d-%d and %s %d-%d", a.Key, a.Suggestion.StartLine, a.Suggestion.EndLine, b.Key, b.Suggestion.StartLine, b.Suggestion.EndLine)
			}
		}
	}
	if spread == nil {
		t.Fatalf("no spread-missing thread: %+v", r.Comments)
	}
	owner := byContainer["sidecar"]
	if spread.Suggestion != nil {
		t.Errorf("spread-missing's thread has its own suggestion over lines the sidecar's changes: %+v", spread.Suggestion)
	}
	if owner.Suggestion == nil || !strings.Contains(owner.Suggestion.Text, "topologySpreadConstraints:") {
		t.Errorf("the sidecar's suggestion does not carry spread-missing's fix: %+v", owner.Suggestion)
	}
	var notes []string
	for _, n := range spread.Notes {
		if strings.Contains(n, "spread-missing") {
			notes = append(notes, n)
		}
	}
	if len(notes) != 1 || strings.Contains(notes[0], "\n") || !strings.Contains(notes[0], "the thread about container `sidecar`") ||
		owner.Suggestion == nil || !strings.Contains(notes[0], "line "+strconv.Itoa(owner.Suggestion.StartLine)+" ") {
		t.Errorf("spread-missing's thread does not say in one line which thread carries its fix: %q", spread.Notes)
	}
	if !strings.Contains(spread.Body, notes0(notes)) {
		t.Errorf("the note is not in the thread's body:\n%s", spread.Body)
	}
}

func notes0(ns []string) string {
	if len(ns) == 0 {
		return "\x00"
	}
	return ns[0]
}

// TestSuggestionFarBelowItsAnchorIsNotStretched reviews a new Deployment
// whose container's fixes go 60 lines below its "- name:" line (a long
// env list): the thread starts where its suggestion changes lines, and
// the suggestion does not repeat the env list.
func TestSuggestionFarBelowItsAnchorIsNotStretched(t *testing.T) {
	var env strings.Builder
	for i := range 30 {
		fmt.Fprintf(&env, "            - name: VAR_%d\n              value: \"%d\"\n", i, i)
	}
	src := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: shop\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: shop}\n  template:\n" +
		"    metadata:\n      labels: {app: shop}\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n          env:\n" + env.String()
	h := &memHost{allRules: true, refs: map[string]map[string]string{"head": {"d.yaml": src}},
		changed: []ChangedFile{{Path: "d.yaml", Status: "added", Patch: AddedFilePatch([]byte(src))}}}
	r, err := NewReviewer(nil, nil).Prepare(context.Background(), h, PullRequest{Number: 1, HeadSHA: "head"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := lineOf(t, src, "        - name: web")
	var found bool
	for _, c := range r.Comments {
		if c.Container != "web" || c.Suggestion == nil {
			continue
		}
		found = true
		if c.StartLine <= name+maxRepeatedLines || strings.Contains(c.Suggestion.Text, "VAR_0") {
			t.Errorf("container web's thread starts at line %d, its suggestion repeating the env list from its - name: line %d:\n%s", c.StartLine, name, c.Suggestion.Text)
		}
	}
	if !found {
		t.Fatalf("no thread about container web with a suggestion: %+v", r.Comments)
	}
}

// TestSuggestionsFarApartAreNotOne: a container's thread whose two fixes
// are 57 lines apart (a values file's shared probe and, far below, the
// component's resources) carries the first suggestion and says the rest
// is for prodready fix, not one suggestion repeating the 56 lines between.
func TestSuggestionsFarApartAreNotOne(t *testing.T) {
	var src strings.Builder
	for i := 1; i <= 70; i++ {
		fmt.Fprintf(&src, "key%d: %d\n", i, i)
	}
	mk := func(rule string, line int) checks.Finding {
		return checks.Finding{RuleID: rule, Severity: checks.Warning, File: "values.yaml", Line: line, Message: rule,
			Object: checks.ObjectRef{Kind: "Deployment", Name: "web"}, IdentityPath: "spec.template.spec.containers[name=web].x", ContainerLine: 2}
	}
	fs := []checks.Finding{mk("a", 3), mk("b", 60)}
	rv := &Reviewer{Suggest: func(string, []byte, []checks.Finding) ([]Suggestion, error) {
		return []Suggestion{{StartLine: 3, EndLine: 3, Text: "key3: 33\n", Findings: []int{0}}, {StartLine: 60, EndLine: 60, Text: "key60: 66\n", Findings: []int{1}}}, nil
	}}
	comments, _ := rv.threads(context.Background(), "values.yaml", []byte(src.String()), AddedFilePatch([]byte(src.String())), fs, nil)
	if len(comments) != 1 || comments[0].Suggestion == nil {
		t.Fatalf("comments = %+v, want one thread with a suggestion", comments)
	}
	c := comments[0]
	if c.Suggestion.EndLine-c.Suggestion.StartLine > maxRepeatedLines || !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "`prodready fix` applies them") }) {
		t.Errorf("suggestion of lines %d-%d, notes %q: want the first fix alone and a note", c.Suggestion.StartLine, c.Suggestion.EndLine, c.Notes)
	}
}
