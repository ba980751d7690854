package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/report"
)

// TestCompactIsOneLinePerFinding: compact writes each finding on one line,
// `file:line:col: severity: message [rule]`, with no fix, and a message
// that quotes YAML cut to its first line.
func TestCompactIsOneLinePerFinding(t *testing.T) {
	res := &checks.Result{Findings: []checks.Finding{
		{RuleID: "pdb-missing", Severity: checks.Warning, File: "a.yaml", Line: 3, Column: 1, Message: "no PodDisruptionBudget selects them. Add this PodDisruptionBudget:\n  apiVersion: policy/v1\n"},
		{RuleID: "run-as-root", Severity: checks.Error, File: "a.yaml", Line: 9, Column: 11, Message: "container may run as root", Fix: &checks.Fix{Description: "set runAsNonRoot"}},
	}}
	var b bytes.Buffer
	if err := report.Write(&b, "compact", res, ""); err != nil {
		t.Fatal(err)
	}
	want := "a.yaml:3:1: warning: no PodDisruptionBudget selects them. Add this PodDisruptionBudget … [pdb-missing]\n" +
		"a.yaml:9:11: error: container may run as root [run-as-root]\n" +
		"0 files, 0 objects: 1 error, 1 warning, 0 info\n"
	if b.String() != want {
		t.Errorf("compact:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestTextNamesTheConfigFirst: the text report's first line names the
// config the run used, as the wide one's does; compact and the machine
// formats do not.
func TestTextNamesTheConfigFirst(t *testing.T) {
	for _, format := range report.Formats {
		var b bytes.Buffer
		if err := report.WriteWith(&b, format, result(t), report.Options{Config: "ci/prodready.yaml"}); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), "\n")
		if got := first == "config: ci/prodready.yaml"; got != (format == "text" || format == "wide") {
			t.Errorf("%s: first line %q", format, first)
		}
	}
}

// manyFindings is a result with n findings of each severity.
func manyFindings(n int) *checks.Result {
	res := &checks.Result{}
	for _, sev := range []checks.Severity{checks.Error, checks.Warning, checks.Info} {
		for i := range n {
			res.Findings = append(res.Findings, checks.Finding{RuleID: "run-as-root", Severity: sev, File: fmt.Sprintf("f%02d.yaml", i), Line: i + 1, Column: 1, Message: "m | with a pipe\nand more"})
		}
	}
	return res
}

// TestGitHubCapsAnnotationsPerLevel: GitHub shows 10 annotations of each
// level per step, so no more are written, and a last line says how many
// were left out; the step summary has every finding.
func TestGitHubCapsAnnotationsPerLevel(t *testing.T) {
	res := manyFindings(12)
	res.NoObject = []string{"values/other.yaml"}
	var b, summary bytes.Buffer
	if err := report.WriteWith(&b, "github", res, report.Options{StepSummary: &summary, Config: ".prodready.yaml"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	levels := map[string]int{}
	for _, l := range lines[:len(lines)-1] {
		level, _, _ := strings.Cut(strings.TrimPrefix(l, "::"), " ")
		levels[level]++
	}
	if levels["error"] != 10 || levels["warning"] != 10 || levels["notice"] != 10 || len(levels) != 3 {
		t.Errorf("annotations by level: %v, want 10 of each", levels)
	}
	want := "prodready: GitHub shows 10 annotations of each level per step: 2 errors, 2 warnings, 3 notices more not annotated (the job summary lists them all)"
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("last line %q\nwant %q", last, want)
	}
	s := summary.String()
	if got := strings.Count(s, "| `run-as-root` |"); got != 36 {
		t.Errorf("step summary has %d rows, want all 36 findings:\n%s", got, s)
	}
	for _, want := range []string{"## prodready\n", "Config: .prodready.yaml\n", "0 files (1 not checked), 0 objects: 12 errors, 12 warnings, 12 info\n", "| m \\| with a pipe …", "**1 file not checked:**\n\n- `values/other.yaml`: holds no Kubernetes object"} {
		if !strings.Contains(s, want) {
			t.Errorf("step summary lacks %q:\n%s", want, s)
		}
	}
	var few bytes.Buffer
	if err := report.Write(&few, "github", manyFindings(10), ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(few.String(), "not annotated") {
		t.Errorf("10 of each level fit: no line about the cap\n%s", few.String())
	}
}

// TestSARIFRulesAndLocations: the security rules (and no other: not the
// mistakes that break the app in the security sections, a duplicate env
// var or a Service that selects nothing) carry the
// security tag and a security-severity by their default severity, every
// rule a readable name of its own, and
// locations are relative to %SRCROOT%, which the run declares.
func TestSARIFRulesAndLocations(t *testing.T) {
	res := result(t)
	res.Findings = append(res.Findings, checks.Finding{RuleID: "run-as-root", Severity: checks.Warning, File: "/abs/x y.yaml", Line: 1, Column: 1, Message: "m"})
	var b bytes.Buffer
	if err := report.Write(&b, "sarif", res, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	type location struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
		} `json:"physicalLocation"`
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string `json:"version"`
					Rules   []struct {
						ID         string `json:"id"`
						Name       string `json:"name"`
						HelpURI    string `json:"helpUri"`
						Properties struct {
							Tags             []string `json:"tags"`
							SecuritySeverity string   `json:"security-severity"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			OriginalURIBaseIDs map[string]struct {
				URI         string `json:"uri"`
				Description struct {
					Text string `json:"text"`
				} `json:"description"`
			} `json:"originalUriBaseIds"`
			Results []struct {
				RuleID    string     `json:"ruleId"`
				Locations []location `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF log with one run (%v)", err)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Version != "v1.2.3" {
		t.Errorf("driver version %q", run.Tool.Driver.Version)
	}
	want := map[checks.Severity]string{checks.Error: "8.0", checks.Warning: "5.0", checks.Info: "2.0"}
	names := map[string]string{}
	securityRules := 0
	for _, r := range run.Tool.Driver.Rules {
		rule := catalog.Default().Lookup(r.ID)
		breaksTheApp := map[string]bool{"duplicate-env": true, "ingress-backend-missing": true, "ingress-host-duplicate": true, "service-selects-nothing": true, "statefulset-service-not-headless": true}
		isSecurity := (rule.Section == "8. Security context" || rule.Section == "7. Configuration and secrets" || rule.Section == "9. Network and access") && !breaksTheApp[r.ID] || r.ID == "kyverno-fail-open"
		wantSeverity := ""
		if isSecurity {
			wantSeverity = want[rule.Severity]
			securityRules++
		}
		if r.Properties.SecuritySeverity != wantSeverity {
			t.Errorf("%s (%s, %s): security-severity %q, want %q", r.ID, rule.Section, rule.Severity, r.Properties.SecuritySeverity, wantSeverity)
		}
		security := strings.Contains(strings.Join(r.Properties.Tags, ","), "security")
		if security != isSecurity {
			t.Errorf("%s in %q: tags %v", r.ID, rule.Section, r.Properties.Tags)
		}
		if r.Name == "" || r.Name == r.ID || strings.ContainsAny(r.Name, "- ") {
			t.Errorf("%s: name %q, want a readable identifier distinct from the id", r.ID, r.Name)
		}
		if other, dup := names[r.Name]; dup {
			t.Errorf("%s and %s share the name %q", r.ID, other, r.Name)
		}
		names[r.Name] = r.ID
		if r.HelpURI != rule.Ref {
			t.Errorf("%s: helpUri %q, want %q", r.ID, r.HelpURI, rule.Ref)
		}
	}
	if securityRules < 30 || securityRules > len(run.Tool.Driver.Rules)/2 {
		t.Errorf("%d of %d rules have a security-severity", securityRules, len(run.Tool.Driver.Rules))
	}
	if got := report.SARIFRuleName("replicas-too-few"); got != "ReplicasTooFew" {
		t.Errorf("SARIFRuleName(replicas-too-few) = %q", got)
	}
	base, ok := run.OriginalURIBaseIDs["%SRCROOT%"]
	if !ok || base.URI != "" || base.Description.Text == "" {
		t.Errorf("originalUriBaseIds: %+v, want %%SRCROOT%% described, with no machine path", run.OriginalURIBaseIDs)
	}
	var got []string
	for _, r := range run.Results {
		a := r.Locations[0].PhysicalLocation.ArtifactLocation
		got = append(got, a.URIBaseID+" "+a.URI)
	}
	if strings.Join(got, "\n") != strings.Repeat("%SRCROOT% deploy/web.yaml\n", len(got)-1)+" file:///abs/x%20y.yaml" {
		t.Errorf("artifact locations:\n%s", strings.Join(got, "\n"))
	}
}

// TestJUnit: a test suite per file, a test case per object (passing ones
// too), a failure per finding, a skipped case per file not checked, and
// totals that add up.
func TestJUnit(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\n" + input + "---\n: [\n"
	res := checks.Run([]checks.Input{{Path: "deploy/web.yaml", Data: []byte(src)}}, checks.DefaultConfig(catalog.Default()), checks.Options{Memory: checks.Lean, ListObjects: true})
	res.Files = append(res.Files, &manifest.File{Path: "chart/templates/cm.yaml", Skipped: "Helm chart template: not YAML until rendered"})
	var b bytes.Buffer
	if err := report.Write(&b, "junit", res, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML declaration:\n%s", b.String())
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name    string `xml:"name,attr"`
			Tests   int    `xml:"tests,attr"`
			Skipped int    `xml:"skipped,attr"`
			Cases   []struct {
				Name     string `xml:"name,attr"`
				Failures []struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	var cases []string
	failures, skipped := 0, 0
	for _, s := range doc.Suites {
		skipped += s.Skipped
		for _, c := range s.Cases {
			line := s.Name + " | " + c.Name
			if c.Skipped != nil {
				line += " | skipped: " + c.Skipped.Message
			}
			if len(c.Failures) > 0 {
				failures++
				line += fmt.Sprintf(" | %d failures", len(c.Failures))
			}
			cases = append(cases, line)
		}
	}
	want := []string{
		"chart/templates/cm.yaml | not checked | skipped: not checked: Helm chart template: not YAML until rendered",
		"deploy/web.yaml | ConfigMap ok",
		fmt.Sprintf("deploy/web.yaml | Deployment web | %d failures", countOf(res, 1)),
		"deploy/web.yaml | document 3 | 1 failures",
	}
	if strings.Join(cases, "\n") != strings.Join(want, "\n") {
		t.Errorf("cases:\n%s\nwant:\n%s", strings.Join(cases, "\n"), strings.Join(want, "\n"))
	}
	if doc.Tests != 4 || doc.Failures != failures || skipped != 1 {
		t.Errorf("totals: %d tests, %d failures, %d skipped in the suites; want 4, %d, 1", doc.Tests, doc.Failures, skipped, failures)
	}
	validateJUnit(t, b.Bytes())
}

// countOf counts the findings of res about document doc.
func countOf(res *checks.Result, doc int) int {
	n := 0
	for _, f := range res.Findings {
		if f.Object.Doc == doc {
			n++
		}
	}
	return n
}

// validateJUnit validates a JUnit report against Jenkins' junit-10.xsd
// (testdata/junit-10.xsd) with xmllint (Debian's libxml2-utils); when
// xmllint is not installed it says so in one line and the test's other
// assertions stand.
func validateJUnit(t *testing.T, report []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Log("xmllint is not installed (apt-get install libxml2-utils): the JUnit report is not validated against Jenkins' junit-10.xsd")
		return
	}
	f := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(f, report, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit-10.xsd", f).CombinedOutput()
	if err != nil {
		t.Errorf("the JUnit report is not valid under Jenkins' junit-10.xsd: %v\n%s", err, out)
	}
}

// TestJUnitSchemaRefusesWhatJenkinsRefuses: the schema copy and the
// validator catch what the issue found (a skipped count on the root) and
// a file on a case, so a pass of validateJUnit means something.
func TestJUnitSchemaRefusesWhatJenkinsRefuses(t *testing.T) {
	for _, bad := range []string{
		`<testsuites name="p" tests="0" failures="0" errors="0" skipped="0"></testsuites>`,
		`<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x" file="a"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1" failures="0"><testcase name="x"/></testsuite></testsuites>`,
	} {
		xmllint, err := exec.LookPath("xmllint")
		if err != nil {
			t.Skip("xmllint is not installed (apt-get install libxml2-utils): the junit-10.xsd copy is not exercised")
		}
		f := filepath.Join(t.TempDir(), "bad.xml")
		if err := os.WriteFile(f, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit-10.xsd", f).CombinedOutput(); err == nil {
			t.Errorf("junit-10.xsd accepts %s\n%s", bad, out)
		}
	}
}
