package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestCheckPutsRenderedFindingsAtTheirColumns runs `prodready check -o
// compact` as a process on one Deployment written three ways: a plain
// file, the base of an overlay and a chart's template. Each finding of the
// overlay is at the line and column the plain file's is at, and a chart's
// finding on a template line is at the column that line writes its key
// at, as an editor jumping to it expects, not at column 1; a template
// that fails, at the column of the action the engine names.
func TestCheckPutsRenderedFindingsAtTheirColumns(t *testing.T) {
	dep := spreadDeployment("web")
	dir := writeRepo(t, map[string]string{
		"plain/web.yaml":                dep,
		"base/web.yaml":                 dep,
		"base/kustomization.yaml":       "resources:\n  - web.yaml\n",
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "image: nginx:1.27\n",
		"web/templates/deployment.yaml": strings.Replace(dep, "image: nginx:1.27", "image: {{ .Values.image }}", 1),
		"broken/Chart.yaml":             "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
		"broken/templates/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ .Values.missing.deep }}\n",
	})
	line := regexp.MustCompile(`(?m)^(\S+?):(\d+):(\d+): \w+: .*\[([a-z0-9-]+)\]$`)
	at := func(args ...string) map[string]string {
		t.Helper()
		out, errOut, _ := runCLI(t, dir, append([]string{"check", "-o", "compact"}, args...)...)
		got := map[string]string{}
		for _, m := range line.FindAllStringSubmatch(out, -1) {
			file := m[1][strings.IndexByte(m[1], '/')+1:]
			got[file+":"+m[2]+" "+m[4]] = m[3]
		}
		if len(got) == 0 {
			t.Fatalf("check %v:\n%s\n%s\nfound nothing", args, out, errOut)
		}
		return got
	}
	plain, overlay := at("plain"), at("base")
	same, indented := 0, 0
	for k, col := range overlay {
		want, ok := plain[k]
		if !ok {
			continue
		}
		same++
		if col != want {
			t.Errorf("base/%s at column %s as an overlay's, %s as a plain file's", k, col, want)
		}
		if col != "1" {
			indented++
		}
	}
	if same < 5 || indented < 3 {
		t.Errorf("%d findings of the overlay at the plain file's lines, %d of them indented; want at least 5 and 3:\noverlay %v\nplain %v", same, indented, overlay, plain)
	}
	// A template that fails: at the action the engine names.
	if out, _, _ := runCLI(t, dir, "check", "-o", "compact", "broken"); !strings.Contains(out, "broken/templates/cm.yaml:6:16: error:") {
		t.Errorf("check broken:\n%s\nwant the render-failed error at 6:16, where .missing is read", out)
	}
	chart := at("web")
	for _, k := range []string{"18 cpu-requests-missing", "13 recommended-labels-missing", "16 seccomp-profile-missing"} {
		col, want := chart["templates/deployment.yaml:"+k], plain["web.yaml:"+k]
		if col == "" || want == "" || col != want {
			t.Errorf("web/templates/deployment.yaml:%s at column %q, want %q, the column the template line writes its key at as the plain file's:\nchart %v", k, col, want, chart)
		}
	}
}
