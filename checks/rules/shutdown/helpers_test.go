package shutdown

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"

	"mvdan.cc/sh/v3/syntax"
)

func TestSdExecTarget(t *testing.T) {
	tests := []struct {
		script string
		want   string // script with exec inserted; "" for no finding
	}{
		{"set -e; /app", "set -e; exec /app"},
		{"cd /srv && ./server -p 80", "cd /srv && exec ./server -p 80"},
		{"a && b && c", "a && b && exec c"},
		{"echo hi\n\n/app --x \"$Y\"\n", "echo hi\n\nexec /app --x \"$Y\"\n"},
		{"/app", ""},                      // one command
		{"a; exec /app", ""},              // already exec
		{"a; while true; do b; done", ""}, // loop
		{"a; if x; then /app; fi", ""},    // if
		{"a; echo done", ""},              // builtin
		{"a; wait", ""},                   // builtin
		{"/app & b", ""},                  // background
		{"trap 'x' TERM; /app", ""},       // trap
		{"f() { x; }; f", ""},             // function
		{"a || /app", ""},                 // ||
		{"a; /app | tee x", ""},           // pipeline
		{"a; FOO=1 /app", ""},             // assignment
		{"a; $APP", ""},                   // variable name
		{"a; \"$(which app)\"", ""},       // substitution
		{"a; ! /app", ""},                 // negated
		{"a; (/app)", ""},                 // subshell
		{"a; { /app; }", ""},              // group
		{"a; if then", ""},                // does not parse
		{"a && b || c", ""},               // || at the end
	}
	for _, tt := range tests {
		off, _, ok := execTarget(tt.script, syntax.LangPOSIX)
		got := ""
		if ok {
			got = tt.script[:off] + "exec " + tt.script[off:]
		}
		if got != tt.want {
			t.Errorf("sdExecTarget(%q) = %q, want %q", tt.script, got, tt.want)
		}
	}
}

// TestSdPreStopFixByVersion checks that the fix uses the sleep action only
// where the target version has it, and a shell sleep with the distroless
// note before 1.30.
func TestSdPreStopFixByVersion(t *testing.T) {
	src := `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`
	for _, tt := range []struct {
		version, value, desc string
	}{
		{"1.30", "sleep:\n    seconds: 5\n", "sleep action"},
		{"1.29", "exec:\n    command: [\"sh\", \"-c\", \"sleep 5\"]\n", "distroless"},
	} {
		cfg, err := checks.ParseConfig([]byte("kubernetesVersion: \""+tt.version+"\"\n"), sectionCatalog)
		if err != nil {
			t.Fatal(err)
		}
		res := checks.Run([]checks.Input{{Path: "web.yaml", Data: []byte(src)}}, cfg, checks.Options{})
		var found bool
		for _, f := range res.Findings {
			if f.RuleID != prestopHookMissing.ID {
				continue
			}
			found = true
			if f.Fix == nil || len(f.Fix.Edits) != 1 {
				t.Fatalf("%s: want one edit, got %+v", tt.version, f.Fix)
			}
			if !strings.Contains(f.Fix.Edits[0].Value, tt.value) || !strings.Contains(f.Fix.Description, tt.desc) {
				t.Errorf("%s: fix %q / %q, want value containing %q and description containing %q", tt.version, f.Fix.Edits[0].Value, f.Fix.Description, tt.value, tt.desc)
			}
		}
		if !found {
			t.Errorf("%s: no prestop-hook-missing finding", tt.version)
		}
	}
}
