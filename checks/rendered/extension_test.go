package rendered

import (
	"bytes"
	"testing"
)

// TestExtensionOf checks which lists a template ends with a values list
// that an appended item can go to: the last block on one values key
// writing at the items' column, in the blocks the list's key is in, with
// nothing after it that may write into the list.
func TestExtensionOf(t *testing.T) {
	for _, tc := range []struct {
		name, tmpl, want string
	}{
		{"with, then a less indented block", `mounts:
  - name: a
  {{- with .Values.extra }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with .Values.sidecars }}
{{- toYaml . | nindent 0 }}
{{- end }}
next: 1
`, "extra"},
		{"if, after a closed block and before an opened one", `  mounts:
  {{- if .Values.config }}
  - name: a
  {{- end }}
  {{- if .Values.more.mounts }}
  {{- toYaml .Values.more.mounts | nindent 2 }}
  {{- end }}
{{- if .Values.claims }}
claims: []
{{- end }}
`, "more.mounts"},
		{"no items of its own", `mounts:
    {{- with .Values.extra }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
next: 1
`, "extra"},
		{"indented the older way", `    mounts:
    - name: a
    {{- if .Values.extra }}
{{ toYaml .Values.extra | indent 4 }}
    {{- end }}
`, "extra"},
		{"indented the older way, with the line break trimmed", `mounts:
  - name: a
  {{- if .Values.extra }}
  {{- toYaml .Values.extra | indent 2 }}
  {{- end }}
`, ""},
		{"tpl of toYaml", `mounts:
  - name: a
  {{- with .Values.extra }}
  {{- tpl (toYaml .) $ | nindent 2 }}
  {{- end }}
`, "extra"},
		{"an item after it", `mounts:
  {{- with .Values.extra }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  - name: a
`, ""},
		{"indented to another column", `mounts:
  - name: a
  {{- with .Values.extra }}
  {{- toYaml . | nindent 4 }}
  {{- end }}
`, ""},
		{"an include after it, into the list", `mounts:
  - name: a
  {{- with .Values.extra }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{- include "more.mounts" . | nindent 2 }}
`, ""},
		{"in a block the key is not in", `mounts:
  - name: a
  {{- if .Values.b }}
  {{- with .Values.extra }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{- end }}
`, ""},
		{"a block on two keys", `mounts:
  - name: a
  {{- if or .Values.extra .Values.b }}
  {{- toYaml .Values.extra | nindent 2 }}
  {{- end }}
`, ""},
		{"a mapping", `mounts:
  a: 1
  {{- with .Values.extra }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
`, ""},
	} {
		g, ok := extensionOf(bytes.SplitAfter([]byte(tc.tmpl), []byte("\n")), 1)
		if g.key != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: extensionOf = %q, %v; want %q", tc.name, g.key, ok, tc.want)
		}
	}
}
