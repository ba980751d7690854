package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// TestCodeQualityFollowsGitLabSpec checks every issue of the report against
// GitLab's Code Quality format: description, check_name, fingerprint (unique
// per issue), severity one of info/minor/major/critical/blocker,
// location.path relative to the repository root and location.lines.begin
// a 1-based line.
func TestCodeQualityFollowsGitLabSpec(t *testing.T) {
	root := filepath.Join("..", "..")
	inputs, err := checks.Load([]string{filepath.Join(root, "fixtures", "rules")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range inputs {
		rel, err := filepath.Rel(root, filepath.FromSlash(inputs[i].Path))
		if err != nil {
			t.Fatal(err)
		}
		inputs[i].Path = filepath.ToSlash(rel)
	}
	res := checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{})
	if len(res.Findings) == 0 {
		t.Fatal("the rule fixtures produced no findings")
	}
	var buf bytes.Buffer
	if err := CodeQuality(&buf, res); err != nil {
		t.Fatal(err)
	}
	var issues []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &issues); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, buf.String())
	}
	if want := len(res.Findings) + len(NotCheckedOf(res)); len(issues) != want {
		t.Fatalf("%d issues for %d findings and %d files not checked", len(issues), len(res.Findings), len(NotCheckedOf(res)))
	}
	severities := map[string]bool{"info": true, "minor": true, "major": true, "critical": true, "blocker": true}
	seen := map[string]bool{}
	for i, is := range issues {
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			if s, ok := is[k].(string); !ok || s == "" {
				t.Errorf("issue %d: %s = %v, want a non-empty string", i, k, is[k])
			}
		}
		if !severities[is["severity"].(string)] {
			t.Errorf("issue %d: severity %q is not one of info, minor, major, critical, blocker", i, is["severity"])
		}
		fp := is["fingerprint"].(string)
		if seen[fp] {
			t.Errorf("issue %d: fingerprint %s repeats", i, fp)
		}
		seen[fp] = true
		loc, _ := is["location"].(map[string]any)
		path, _ := loc["path"].(string)
		if path == "" || strings.HasPrefix(path, "/") || strings.HasPrefix(path, "./") || !strings.HasPrefix(path, "fixtures/rules/") {
			t.Errorf("issue %d: location.path %q, want a path relative to the repository root", i, path)
		}
		lines, _ := loc["lines"].(map[string]any)
		begin, ok := lines["begin"].(float64)
		if !ok || begin < 1 || begin != float64(int(begin)) {
			t.Errorf("issue %d: location.lines.begin = %v, want a 1-based line", i, lines["begin"])
		}
		if end, ok := lines["end"].(float64); ok && end < begin {
			t.Errorf("issue %d: lines.end %v before begin %v", i, end, begin)
		}
	}
}

func TestCodeQualitySeverities(t *testing.T) {
	for sev, want := range map[checks.Severity]string{checks.Error: "critical", checks.Warning: "major", checks.Info: "info"} {
		var buf bytes.Buffer
		res := &checks.Result{Findings: []checks.Finding{{RuleID: "r", Severity: sev, File: "a.yaml", Line: 3, EndLine: 3, Message: "m"}}}
		if err := CodeQuality(&buf, res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), `"severity": "`+want+`"`) {
			t.Errorf("%s → %s, want %s", sev, buf.String(), want)
		}
	}
	var buf bytes.Buffer
	if err := CodeQuality(&buf, &checks.Result{}); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("no findings → %q, %v; want an empty array (GitLab rejects null)", buf.String(), err)
	}
}
