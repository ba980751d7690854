package rendered

import (
	"slices"
	"strings"
	"testing"
)

// TestGuardKeys checks which guards a turn-on fix reads as values keys to
// set: an if on one values key, or on `and` of values keys alone, through
// .Values or $.Values, with or without trim markers; and no others.
func TestGuardKeys(t *testing.T) {
	for guard, want := range map[string][]string{
		"{{- if .Values.pdb.enabled }}":                               {"pdb.enabled"},
		"{{ if .Values.podDisruptionBudget -}}":                       {"podDisruptionBudget"},
		"{{- if and .Values.dex.enabled $.Values.dex.pdb.enabled -}}": {"dex.enabled", "dex.pdb.enabled"},
		"{{- if (.Values.pdb.enabled) }}":                             nil, // a parenthesised pipeline: not read
		"{{- with .Values.pdb }}":                                     nil,
		"{{- if not .Values.pdb.disabled }}":                          nil,
		"{{- if or .Values.a .Values.b }}":                            nil,
		"{{- if and .Values.a (gt (int .Values.n) 1) }}":              nil,
		"{{- if eq .Values.kind \"Deployment\" }}":                    nil,
		"{{- if .Release.IsInstall }}":                                nil,
		"{{- if .Values }}":                                           nil,
		"{{- if $x := .Values.a }}":                                   nil,
		"{{- if .Values.a | default true }}":                          nil,
		"{{- if and .Values.a }}":                                     nil,
		"{{- if .Values.a }}{{ end }}":                                nil,
		"{{- if .Values.a":                                            nil,
		"":                                                            nil,
	} {
		keys, ok := guardKeys(guard)
		var got []string
		for _, k := range keys {
			got = append(got, strings.Join(k, "."))
		}
		if ok != (want != nil) || !slices.Equal(got, want) {
			t.Errorf("guardKeys(%q) = %q, %v; want %q", guard, got, ok, want)
		}
	}
}

// FuzzGuardKeys: any text a template may open with is read without a
// panic, and what it gives are values paths with no empty key.
func FuzzGuardKeys(f *testing.F) {
	for _, s := range []string{"{{- if .Values.pdb.enabled }}", "{{- if and .Values.a $.Values.b -}}", "{{ with .Values.x }}", "{{- if (", "{{/* */}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, guard string) {
		keys, ok := guardKeys(guard)
		if !ok && keys != nil {
			t.Fatalf("guardKeys(%q) = %q with false", guard, keys)
		}
		for _, k := range keys {
			if len(k) == 0 || slices.Contains(k, "") {
				t.Fatalf("guardKeys(%q) gives the path %q", guard, k)
			}
		}
	})
}
