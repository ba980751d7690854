package tmplmark

import "testing"

// TestObservable holds the lexical reading of where a text that may hold
// marks goes: out as it is, or into a stripping function, is unseen;
// compared, measured, kept or handed on, it may be seen.
func TestObservable(t *testing.T) {
	const helpers = `{{- define "app.labels" -}}
app: x
{{- end -}}
{{- define "app.name" -}}
{{ .Chart.Name | trunc 63 }}
{{- end -}}
{{- define "app.wrap" -}}
{{ include "app.labels" . }}
{{- end -}}
`
	isFile := func(name string) bool { return name == "app/templates/cm.yaml" }
	for _, tc := range []struct {
		name     string
		tpl      string
		remarked bool
		seen     bool
	}{
		{"written out", `{{- include "app.labels" . | nindent 4 }}`, false, false},
		{"quoted", `x: {{ include "app.labels" . | quote }}`, false, false},
		{"checksum", `x: {{ include "app.labels" . | trunc 3 | sha256sum }}`, false, true},
		{"checksum first", `x: {{ include "app.labels" . | sha256sum | trunc 3 }}`, false, false},
		{"compared", `{{ if eq (include "app.labels" .) "app: x" }}y{{ end }}`, false, true},
		{"compared, no marks", `{{ if eq (include "app.name" .) "x" }}y{{ end }}`, false, false},
		{"through a define", `{{ if eq (include "app.wrap" .) "x" }}y{{ end }}`, false, true},
		{"kept", `{{ $x := include "app.labels" . }}{{ $x | trunc 2 }}`, false, true},
		{"kept parsed", `{{ $x := include "app.labels" . | fromYaml }}{{ $x.app }}`, false, false},
		{"parenthesised, parsed", `{{ $x := (include "app.labels" .) | fromYaml }}`, false, false},
		{"argument", `{{ include "app.name" (dict "l" (include "app.labels" .)) }}`, false, true},
		{"trimmed define", `{{ include "app.labels" . | trim | nindent 2 }}`, false, false},
		{"trimmed file", `{{ include "app/templates/cm.yaml" . | trim | nindent 2 }}`, false, true},
		{"computed name", `{{ include (print "app/templates/" "cm.yaml") . | trunc 5 }}`, false, true},
		{"computed name, checksum", `{{ include (print "app/templates/" "cm.yaml") . | sha256sum }}`, false, false},
		{"condition", `{{ if include "app.labels" . }}y{{ end }}`, false, true},
		{"undefined", `{{ if eq (include "other.labels" .) "x" }}y{{ end }}`, false, false},
		{"tpl of a marked text", `{{ tpl (include "app.labels" .) . | nindent 2 }}`, false, false},
		{"tpl of a marked text, measured", `{{ tpl (include "app.labels" .) . | len }}`, false, true},
		{"toYaml kept", `{{ $y := toYaml .Values.x }}{{ $y | trunc 3 }}`, false, false},
		{"toYaml kept, remarked", `{{ $y := toYaml .Values.x }}{{ $y | trunc 3 }}`, true, true},
		{"toYaml trimmed of a newline, remarked", `{{ .Values.x | toYaml | trimSuffix "\n" | indent 6 }}`, true, false},
		{"toYaml trimmed of text, remarked", `{{ .Values.x | toYaml | trimSuffix "@" | indent 6 }}`, true, true},
		{"tpl text with a marked include", `{{ $y := tpl "{{ include \"app.labels\" . }}" . }}`, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tbl Table
			tbl.Annotate(0, helpers)
			tbl.Annotate(1, tc.tpl)
			why := tbl.Observable(tc.remarked, isFile)
			if (why != "") != tc.seen {
				t.Errorf("Observable = %q, want seen %v", why, tc.seen)
			}
		})
	}
}

// TestObserveTextOfValues reads a values text tpl may render as a
// template's: an include of a define with key lines in it makes tpl's
// text hold marks.
func TestObserveTextOfValues(t *testing.T) {
	var tbl Table
	tbl.Annotate(0, "{{- define \"app.labels\" -}}\napp: x\n{{- end -}}\n")
	tbl.Annotate(1, `{{ $n := tpl .Values.ns . | trunc 5 }}`)
	if why := tbl.Observable(false, func(string) bool { return false }); why != "" {
		t.Fatalf("no values text read yet: Observable = %q", why)
	}
	tbl.ObserveText(`labels: {{ include "app.labels" . | nindent 2 }}`)
	if why := tbl.Observable(false, func(string) bool { return false }); why == "" {
		t.Error("tpl's text holds marks and is measured, but Observable says none is seen")
	}
	tbl.Forget()
	if why := tbl.Observable(false, func(string) bool { return false }); why != "" {
		t.Errorf("after Forget, Observable = %q", why)
	}
}

// TestNamesFiles tells the chart's Files from names ending in Files.
func TestNamesFiles(t *testing.T) {
	for in, want := range map[string]bool{
		`.Files.Get "x"`:           true,
		`$.Files.Glob "crds/*"`:    true,
		`index $ "Files"`:          true,
		`range .Values.ruleFiles`:  false,
		`.Values.serverFilesX`:     false,
		`$root.Files.AsConfig | x`: true,
	} {
		if got := namesFiles(in); got != want {
			t.Errorf("namesFiles(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestObservableWithDot follows a with's dot that is an include's text
// into its body.
func TestObservableWithDot(t *testing.T) {
	const helpers = "{{- define \"app.affinity\" -}}\nnodeAffinity: {}\n{{- end -}}\n{{- define \"app/templates/cm.yaml\" -}}{{- end -}}\n"
	for _, tc := range []struct {
		name string
		tpl  string
		seen bool
	}{
		{"trimmed out", "{{- with include \"app.affinity\" . }}\naffinity:\n  {{- trim . | nindent 8 }}\n{{- end }}", false},
		{"written out", "{{- with include \"app.affinity\" . }}\naffinity: {{ . }}\n{{- end }}", false},
		{"measured", "{{- with include \"app.affinity\" . }}\nn: {{ len . }}\n{{- end }}", true},
		{"cut", "{{- with include \"app.affinity\" . }}\nn: {{ . | trunc 3 }}\n{{- end }}", true},
		{"else branch", "{{- with include \"app.affinity\" . }}\na: {{ . }}\n{{- else }}\nb: {{ len . }}\n{{- end }}", false},
		{"nested range", "{{- with include \"app.affinity\" . }}\n{{- range .Values.x }}{{ len . }}{{ end }}\n{{- end }}", true},
		{"after the end", "{{- with include \"app.affinity\" . }}\na: {{ . }}\n{{- end }}\nb: {{ len . }}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tbl Table
			tbl.Annotate(0, helpers)
			tbl.Annotate(1, tc.tpl)
			why := tbl.Observable(false, func(string) bool { return false })
			if (why != "") != tc.seen {
				t.Errorf("Observable = %q, want seen %v", why, tc.seen)
			}
		})
	}
}
