package configsecrets_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/report"
)

// csFixtureSecrets are credential values written in the fixtures of the
// configuration and secrets rules. None may appear in any output.
var csFixtureSecrets = []string{
	"Xq7-fixture-literal-password-9vK",
	"ghp_FixtureFixtureFixtureFixture12345678",
	"sk_live_fixture_0000",
	"AKIAQWERTYUIOPASDFGH",
	"fixture-cm-password-Zr81",
	"fixture-cm-apikey-Lm02",
	"MIIEowIBAAKCAQEAfixturefixture",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmaXh0dXJlLXVzZXIifQ",
	"Zml4dHVyZS1zaWduYXR1cmU",
}

// TestCsNeverEchoesSecrets runs every rule, opt-in rules included, over the
// fixtures that hold credentials and asserts that no finding message, fix
// description, fix value or rendered report (text, JSON, SARIF, GitHub,
// Code Quality) contains any of their values.
func TestCsNeverEchoesSecrets(t *testing.T) {
	var cfgText strings.Builder
	cfgText.WriteString("rules:\n")
	for _, r := range catalog.Default().Rules() {
		if r.OptIn {
			cfgText.WriteString("  " + r.ID + ": true\n")
		}
	}
	cfg, err := checks.ParseConfig([]byte(cfgText.String()), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, d := range []string{"sensitive-env-literal", "configmap-sensitive-data", "secret-in-env", "duplicate-env"} {
		dirs = append(dirs, filepath.Join(checkstest.RulesDir(t), d))
	}
	inputs, err := checks.Load(dirs, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The secrets really are in the input (else the test proves nothing).
	var all strings.Builder
	for _, in := range inputs {
		all.Write(in.Data)
	}
	for _, s := range csFixtureSecrets {
		if !strings.Contains(all.String(), s) {
			t.Fatalf("fixture secret %q is not in the fixtures", s)
		}
	}
	res := checks.Run(inputs, cfg, checks.Options{})
	fired := map[string]int{}
	var texts []string
	for _, f := range res.Findings {
		fired[f.RuleID]++
		texts = append(texts, f.RuleID+" message: "+f.Message)
		if f.Fix != nil {
			texts = append(texts, f.RuleID+" fix: "+f.Fix.Description)
			for _, e := range f.Fix.Edits {
				b, _ := json.Marshal(e)
				texts = append(texts, f.RuleID+" edit: "+string(b))
			}
		}
	}
	for _, id := range []string{"sensitive-env-literal", "configmap-sensitive-data"} {
		if fired[id] == 0 {
			t.Fatalf("%s did not fire: the test proves nothing", id)
		}
	}
	for _, format := range report.Formats {
		var buf bytes.Buffer
		if err := report.Write(&buf, format, res, "test"); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		texts = append(texts, format+" report: "+buf.String())
	}
	for _, text := range texts {
		for _, s := range csFixtureSecrets {
			if strings.Contains(text, s) {
				t.Errorf("output echoes the secret %q: %.300s", s, text)
			}
		}
	}
}

// TestCsConfigMapSeverities checks error for credential formats and warning
// for credential-like key names.
func TestCsConfigMapSeverities(t *testing.T) {
	dir := filepath.Join(checkstest.RulesDir(t), "configmap-sensitive-data")
	cfg := checks.DefaultConfig(catalog.Default())
	inputs, err := checks.Load([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]checks.Severity{
		`"aws.ini"`: checks.Error, `"DB_PASSWORD"`: checks.Warning, `"api_key"`: checks.Warning,
		`"tls.key"`: checks.Error, `"session"`: checks.Error,
	}
	got := map[string]checks.Severity{}
	for _, f := range checks.Run(inputs, cfg, checks.Options{}).Findings {
		if f.RuleID != "configmap-sensitive-data" {
			continue
		}
		for key := range want {
			if strings.Contains(f.Message, "key "+key+" ") {
				got[key] = f.Severity
			}
		}
	}
	for key, sev := range want {
		if got[key] != sev {
			t.Errorf("key %s: severity %v, want %v", key, got[key], sev)
		}
	}
}
