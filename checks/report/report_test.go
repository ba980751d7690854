package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/report"
)

const input = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1
          readinessProbe: {tcpSocket: {port: http}}
`

func result(t *testing.T) *checks.Result {
	t.Helper()
	res := checks.Run([]checks.Input{{Path: "deploy/web.yaml", Data: []byte(input)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	for _, f := range res.Findings {
		if f.RuleID == "probe-named-port-undeclared" {
			return res
		}
	}
	t.Fatalf("the input must produce a probe-named-port-undeclared finding: %+v", res.Findings)
	return nil
}

// TestTextFormat: text names each file once, then one line a finding,
// `  line:col  severity  message  rule-id`, with every line of the report
// bounded; wide keeps `file:line:col severity rule-id message`.
func TestTextFormat(t *testing.T) {
	var b bytes.Buffer
	if err := report.Text(&b, result(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "deploy/web.yaml") != 1 || !strings.HasPrefix(out, "deploy/web.yaml\n  ") || !strings.Contains(out, "\n  13:40    error    readinessProbe of container \"web\" targets port \"http\"") ||
		!strings.Contains(out, "  probe-named-port-undeclared\n") {
		t.Fatalf("text output does not name the file once above `line:col severity message rule-id`:\n%s", out)
	}
	for line := range strings.SplitSeq(out, "\n") {
		if n := len([]rune(line)); n > 200 {
			t.Errorf("text line of %d characters, want at most 200: %s", n, line)
		}
	}
	b.Reset()
	if err := report.Write(&b, "wide", result(t), ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "deploy/web.yaml:13:40 error probe-named-port-undeclared ") {
		t.Fatalf("wide output lacks file:line:col severity rule-id:\n%s", b.String())
	}
}

// TestTextSummaryAgreesInNumber: the summary line says "1 file", "1
// object", "1 error", never "1 files".
func TestTextSummaryAgreesInNumber(t *testing.T) {
	var b bytes.Buffer
	if err := report.Text(&b, result(t)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "1 file, 1 object: 1 error, ") {
		t.Errorf("summary line %q, want it to start with %q", last, "1 file, 1 object: 1 error, ")
	}
}

func TestSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := report.SARIF(&b, result(t), "test"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
							EndLine   int `json:"endLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Properties          map[string]string `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF 2.1.0 log: %s", b.String())
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(catalog.Default().Rules()) {
		t.Errorf("rules array has %d rules, the registry %d", len(run.Tool.Driver.Rules), len(catalog.Default().Rules()))
	}
	found := false
	for _, r := range run.Results {
		if r.RuleID != "probe-named-port-undeclared" {
			continue
		}
		found = true
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != "deploy/web.yaml" || loc.Region.StartLine != 13 || loc.Region.EndLine < 13 || r.Level != "error" {
			t.Errorf("result location/level: %+v", r)
		}
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("ruleIndex %d points at %s", r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
		if r.PartialFingerprints["prodready/v1"] == "" {
			t.Error("no partial fingerprint")
		}
	}
	if !found {
		t.Fatal("finding missing from SARIF")
	}
	// A fix's kind is in the result's property bag.
	kinds := map[string]bool{}
	for _, r := range run.Results {
		if k := r.Properties["prodready/fixKind"]; k != "" {
			kinds[k] = true
			if r.Properties["prodready/fix"] == "" {
				t.Errorf("%s: a fix kind without its description", r.RuleID)
			}
		}
	}
	if !kinds[string(checks.StartingPoint)] {
		t.Errorf("no result says its fix is a starting point: %v", kinds)
	}
}

func TestGitHubWorkflowCommands(t *testing.T) {
	var b bytes.Buffer
	if err := report.GitHub(&b, result(t)); err != nil {
		t.Fatal(err)
	}
	want := "::error file=deploy/web.yaml,line=13,endLine=13,col=40,title=prodready probe-named-port-undeclared::"
	if !strings.Contains(b.String(), want) {
		t.Fatalf("want a line starting %q in:\n%s", want, b.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if !strings.HasPrefix(l, "::") {
			t.Errorf("a message must not break across lines: %q", l)
		}
	}
}

func TestCodeQuality(t *testing.T) {
	var b bytes.Buffer
	if err := report.CodeQuality(&b, result(t)); err != nil {
		t.Fatal(err)
	}
	var issues []map[string]any
	if err := json.Unmarshal(b.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	for _, is := range issues {
		for _, k := range []string{"description", "check_name", "fingerprint", "severity", "location"} {
			if _, ok := is[k]; !ok {
				t.Errorf("issue lacks %s: %v", k, is)
			}
		}
		sev := is["severity"].(string)
		if !strings.Contains(" info minor major critical blocker ", " "+sev+" ") {
			t.Errorf("severity %q is not one GitLab knows", sev)
		}
	}
}

// TestRulesMarkdownIsCurrent fails when docs/rules.md is stale: regenerate
// it with `make docs`.
func TestRulesMarkdownIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != report.RulesMarkdown() {
		t.Fatal("docs/rules.md is stale: run `make docs` (prodready rules -o markdown --output-file docs/rules.md)")
	}
}

// TestTextCountsDescribedFixes: a finding whose fix is described but not
// written (a chart's or overlay's, as check maps it) is counted on a line
// of its own that sends the reader to `prodready fix --all`, apart from
// the fixes check writes; a withheld fix is not counted, and the line,
// like every other, stays within 200 characters.
func TestTextCountsDescribedFixes(t *testing.T) {
	res := result(t)
	rendered := checks.Finding{RuleID: "replicas-too-few", Severity: checks.Warning, File: "chart/templates/deployment.yaml", Line: 3, Column: 1,
		Message: "Deployment is selected by a Service but replicas is unset (1) (rendered from the chart chart)", Fix: &checks.Fix{Description: "set replicas: 3"}}
	withheld := rendered
	withheld.Line, withheld.Fix = 4, &checks.Fix{Description: "set replicas: 3", Withheld: "the chart refuses it"}
	res.Findings = append(res.Findings, rendered, withheld)
	var b bytes.Buffer
	if err := report.Text(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "\n1 finding of charts and overlays describes a fix (-o wide): `prodready fix --all` writes each one their source takes") {
		t.Errorf("the described fix is not counted on its own line:\n%s", out)
	}
	for line := range strings.SplitSeq(out, "\n") {
		if n := len([]rune(line)); n > 200 {
			t.Errorf("text line of %d characters, want at most 200: %s", n, line)
		}
	}
	b.Reset()
	if err := report.Text(&b, result(t)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "charts and overlays") {
		t.Errorf("a run without described fixes counts some:\n%s", b.String())
	}
}
