package tmplmark

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnnotateKeepsTextAfterStrip(t *testing.T) {
	src := `apiVersion: v1
kind: Deployment
metadata:
  name: {{ include "x.name" . }}
  labels:
    {{- include "x.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  image: "{{ .Values.image.repo }}:{{ .Values.image.tag | default "latest" }}"
  args:
  - --a={{ .Values.a -}}
  {{- /* a comment with }} inside */ -}}
  - b
{{- define "x.enabled" -}}
{{- if .Values.on -}}
true
{{- end -}}
{{- end }}
`
	var tbl Table
	got := tbl.Annotate(0, src)
	if Strip(got) == got {
		t.Fatalf("no marks inserted")
	}
	// Stripping the marks from the annotated template yields the template
	// text itself, except for the rewritten binding actions.
	if strings.Contains(got, "true #@") {
		t.Errorf("literal inside a define that is not a key was marked:\n%s", got)
	}
	var paths []string
	var calls []int
	var values []Binding
	for _, b := range tbl.Bindings {
		if b.Call {
			calls = append(calls, b.Line)
			continue
		}
		paths = append(paths, strings.Join(b.Path, "."))
		values = append(values, b)
	}
	want := []string{"replicaCount", "podAnnotations", "image.repo", "image.tag", "a"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
	if values[0].Line != 8 {
		t.Errorf("replicaCount binding line = %d, want 8", values[0].Line)
	}
	// The two includes outside the define write output of a helper: each
	// is a call at its line; the with, end and comment are not.
	if diff := cmp.Diff([]int{4, 6}, calls); diff != "" {
		t.Errorf("call lines (-want +got):\n%s", diff)
	}
}

func TestReadLine(t *testing.T) {
	line, marks := ReadLine(`  replicas: #@pr2.8@  #@pv0b@3 #@pv0e@`)
	if line != "  replicas: 3" {
		t.Errorf("stripped line = %q", line)
	}
	want := []Mark{
		{Column: 11, File: 2, Line: 8, Binding: -1},
		{Column: 12, Binding: 0, Begin: true},
		{Column: 13, Binding: 0},
	}
	if diff := cmp.Diff(want, marks); diff != "" {
		t.Errorf("marks (-want +got):\n%s", diff)
	}
}

// TestReadLineOfOneMarkAtItsEnd: a key line's template mark ends the line
// (most marked lines); the line is the text before it, and the mark's
// column that text's length in runes.
func TestReadLineOfOneMarkAtItsEnd(t *testing.T) {
	line, marks := ReadLine(`  näme: x #@pr1.4@`)
	if line != "  näme: x" {
		t.Errorf("stripped line = %q", line)
	}
	if diff := cmp.Diff([]Mark{{Column: 9, File: 1, Line: 4, Binding: -1}}, marks); diff != "" {
		t.Errorf("marks (-want +got):\n%s", diff)
	}
}

// TestAppendLineKeepsWhatItIsGiven: AppendLine reads a line as ReadLine
// does, its marks after those already in dst; a line without marks
// leaves dst as it is.
func TestAppendLineKeepsWhatItIsGiven(t *testing.T) {
	held := Mark{Column: 1, File: 7, Line: 9, Binding: -1}
	for _, l := range []string{`  replicas: #@pr2.8@  #@pv0b@3 #@pv0e@`, `  näme: x #@pr1.4@`, `plain: line`, ` #@pr1.`} {
		wantLine, wantMarks := ReadLine(l)
		line, marks := AppendLine([]Mark{held}, l)
		if line != wantLine {
			t.Errorf("AppendLine(%q) leaves %q, ReadLine %q", l, line, wantLine)
		}
		if diff := cmp.Diff(append([]Mark{held}, wantMarks...), marks); diff != "" {
			t.Errorf("AppendLine(%q) marks (-want +got):\n%s", l, diff)
		}
	}
}

func TestTokenizeQuotedBraces(t *testing.T) {
	toks := tokenize(`a {{ printf "}}" }} b`)
	if len(toks) != 3 || !toks[1].action || toks[1].inner != `printf "}}"` {
		t.Fatalf("tokens = %+v", toks)
	}
}

// TestHelperOfOneValuesKeyIsABinding: a template or include of a helper
// given one values key (kyverno's `template "kyverno.deployment.replicas"
// .Values.admissionController.replicas`) binds that key, as the key
// written directly does; a helper given the root context or a dict of
// several things stays a call.
func TestHelperOfOneValuesKeyIsABinding(t *testing.T) {
	for _, tc := range []struct {
		inner, want string
		ok          bool
	}{
		{`template "kyverno.deployment.replicas" .Values.admissionController.replicas`, "admissionController.replicas", true},
		{`include "x.image" .Values.image | quote`, "image", true},
		{`include "x.labels" . | nindent 4`, "", false},
		{`include "x.image" (dict "image" .Values.image "root" $)`, "", false},
		{`template "x"`, "", false},
	} {
		p, ok := valuesExpr(tc.inner, dot{root: true})
		if ok != tc.ok || strings.Join(p, ".") != tc.want {
			t.Errorf("%s: %q %v, want %q %v", tc.inner, strings.Join(p, "."), ok, tc.want, tc.ok)
		}
	}
}

// TestTemplateMarkAsFmtWritesIt holds appendTemplateMark to the format it
// replaced, and ReadLine to reading it back.
func TestTemplateMarkAsFmtWritesIt(t *testing.T) {
	for _, n := range [][2]int{{0, 1}, {7, 42}, {123, 98765}, {-1, 0}} {
		got := string(appendTemplateMark([]byte("key:"), n[0], n[1]))
		if want := fmt.Sprintf("key: #@pr%d.%d@", n[0], n[1]); got != want {
			t.Errorf("appendTemplateMark(%d, %d) = %q, want %q", n[0], n[1], got, want)
		}
		if n[0] < 0 {
			continue
		}
		if line, marks := ReadLine(got); line != "key:" || len(marks) != 1 || marks[0].File != n[0] || marks[0].Line != n[1] {
			t.Errorf("ReadLine(%q) = %q, %+v", got, line, marks)
		}
	}
}
