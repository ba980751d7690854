package render

import (
	"slices"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestDormantTemplatesSayWhatTheyWrite: a template that renders nothing
// with the chart's values is skipped with the kinds of object its text
// writes and the action it is written under, so that a finding of an
// object the render lacks can point to the chart's own (a pdb.yaml its
// values leave out) rather than to a new one; a template that writes no
// object of a kind of its own (a helper's caller, a comment's kind) says
// none, and one that opens with no if says no guard (a document
// separator or a template comment before its if is not what it opens
// with, and a guard of 142 bytes is kept whole).
func TestDormantTemplatesSayWhatTheyWrite(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":          []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/values.yaml":         []byte("pdb:\n  enabled: false\nsa: {}\noperator:\n  admissionWebhooks:\n    deployment:\n      enabled: true\n      podDisruptionBudget:\n        enabled: false\n"),
		"c/templates/pdb.yaml":  []byte("# the budget\n{{- if .Values.pdb.enabled }}\napiVersion: policy/v1\nkind: PodDisruptionBudget  # one\nmetadata:\n  name: c\n{{- end }}\n"),
		"c/templates/sa.yaml":   []byte("{{- with .Values.sa.name }}\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ . }}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ . }}\n{{- end }}\n"),
		"c/templates/cm.yaml":   []byte("{{- if false }}\n{{ include \"x\" . }}\n  kind: Nested\nkind: {{ .Values.kind }}\n{{- end }}\n"),
		"c/templates/none.yaml": []byte("\n"),
		"c/templates/sep.yaml":  []byte("---\n{{- if .Values.sa.create }}\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: c\n{{- end }}\n"),
		"c/templates/long.yaml": []byte("{{- /*\nThe budget, when asked for.\n*/ -}}\n{{- if and .Values.operator.admissionWebhooks.deployment.enabled .Values.operator.admissionWebhooks.deployment.podDisruptionBudget.enabled -}}\napiVersion: policy/v1\nkind: PodDisruptionBudget\n{{- end }}\n"),
	}
	r := renderOne(t, files, rendered.Options{})
	got := map[string]rendered.Skipped{}
	for _, s := range r.Skipped {
		got[s.File] = s
	}
	for file, want := range map[string]rendered.Skipped{
		"c/templates/pdb.yaml":  {Writes: []string{"PodDisruptionBudget"}, Guard: "{{- if .Values.pdb.enabled }}"},
		"c/templates/sa.yaml":   {Writes: []string{"ServiceAccount", "Secret"}, Guard: "{{- with .Values.sa.name }}"},
		"c/templates/cm.yaml":   {Guard: "{{- if false }}"},
		"c/templates/none.yaml": {},
		"c/templates/sep.yaml":  {Writes: []string{"ServiceAccount"}, Guard: "{{- if .Values.sa.create }}"},
		"c/templates/long.yaml": {Writes: []string{"PodDisruptionBudget"}, Guard: "{{- if and .Values.operator.admissionWebhooks.deployment.enabled .Values.operator.admissionWebhooks.deployment.podDisruptionBudget.enabled -}}"},
	} {
		s, ok := got[file]
		if !ok {
			t.Errorf("%s not skipped: %+v", file, r.Skipped)
			continue
		}
		if !slices.Equal(s.Writes, want.Writes) || s.Guard != want.Guard {
			t.Errorf("%s skipped writing %q under %q, want %q under %q", file, s.Writes, s.Guard, want.Writes, want.Guard)
		}
	}
}
