package render

import (
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestProblemsAtTheirColumns: a template whose execution fails is
// reported at the line and column of the action that failed, as the
// engine names it; a value its chart's schema refuses, at the column of
// its key; a parse error, which names no column, at none.
func TestProblemsAtTheirColumns(t *testing.T) {
	chart := func(tpl, values string) rendered.Files {
		return rendered.Files{
			"c/Chart.yaml":         []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
			"c/values.yaml":        []byte(values),
			"c/values.schema.json": []byte(`{"type":"object","properties":{"app":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}`),
			"c/templates/cm.yaml":  []byte(tpl),
		}
	}
	for _, c := range []struct {
		name, tpl, values string
		want              rendered.Problem
	}{
		{"execution", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ .Values.missing.deep }}\n", "app: {}\n",
			rendered.Problem{File: "c/templates/cm.yaml", Line: 6, Column: 16}},
		{"schema", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "app:\n  replicas: three\n",
			rendered.Problem{File: "c/values.yaml", Line: 2, Column: 3}},
		{"parse", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ nofunc }}\n", "app: {}\n",
			rendered.Problem{File: "c/templates/cm.yaml", Line: 4}},
	} {
		r := renderOne(t, chart(c.tpl, c.values), rendered.Options{})
		if len(r.Problems) == 0 {
			t.Errorf("%s: no problem", c.name)
			continue
		}
		got := r.Problems[0]
		if got.File != c.want.File || got.Line != c.want.Line || got.Column != c.want.Column {
			t.Errorf("%s: problem at %s:%d:%d, want %s:%d:%d (%s)", c.name, got.File, got.Line, got.Column, c.want.File, c.want.Line, c.want.Column, got.Message)
		}
	}
}
