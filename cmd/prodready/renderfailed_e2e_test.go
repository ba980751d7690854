package main

import (
	"testing"
)

// TestCheckPutsARenderFailureAtTheTemplateLine runs `prodready check` as a
// process on a chart whose helper fails to render when called from a
// template: the render-failed error is at the helper's line, the action
// that failed, not at the top of Chart.yaml; an ignore comment on the
// first line of Chart.yaml, where it was reported before, still silences
// it.
func TestCheckPutsARenderFailureAtTheTemplateLine(t *testing.T) {
	files := map[string]string{
		"web/Chart.yaml":               "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":              "image: nginx:1.27\n",
		"web/templates/_helpers.tpl":   "{{- define \"web.port\" -}}\n{{ .Values.service.port }}\n{{- end -}}\n",
		"web/templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  port: {{ include \"web.port\" . | quote }}\n",
	}
	fs, code := checkJSON(t, writeRepo(t, files), "web")
	got := keysOf(byKey(fs))
	if len(fs) != 1 || fs[0].Rule != "render-failed" || fs[0].File != "web/templates/_helpers.tpl" || fs[0].Line != 2 || fs[0].Severity != "error" {
		t.Errorf("findings %v, want one render-failed error at web/templates/_helpers.tpl:2", got)
	}
	if code != 1 {
		t.Errorf("check exited %d, want 1 (an error)", code)
	}

	files["web/Chart.yaml"] = "# prodready:ignore render-failed the service block comes from the platform's values\n" + files["web/Chart.yaml"]
	// The chart renders no object, so nothing of web/ is checked: exit 2
	// says so (--allow-empty would exit 0).
	fs, code = checkJSON(t, writeRepo(t, files), "web")
	if len(fs) != 0 || code != 2 {
		t.Errorf("with the ignore on Chart.yaml: findings %v, exit %d; want none, 2 (nothing checked)", keysOf(byKey(fs)), code)
	}
}
