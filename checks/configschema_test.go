package checks_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
)

var updateSchema = flag.Bool("update", false, "rewrite docs/prodready.schema.json from checks.ConfigSchema")

// schemaFile is the published JSON Schema of .prodready.yaml.
const schemaFile = "../docs/prodready.schema.json"

// TestConfigSchemaIsCurrent fails when docs/prodready.schema.json differs
// from what the parser's definitions make (`go test ./checks -run
// TestConfigSchemaIsCurrent -update` rewrites it; `make docs` does too).
func TestConfigSchemaIsCurrent(t *testing.T) {
	got := checks.ConfigSchema(catalog.Default())
	if *updateSchema {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("docs/prodready.schema.json is stale: run `make docs` (go test ./checks -run TestConfigSchemaIsCurrent -update)")
	}
}

// TestConfigSchemaAgreesWithTheParser validates configs with a JSON Schema
// validator against the published schema: what the parser accepts, the
// schema accepts, and what it refuses for a value's type, range or name,
// the schema refuses too.
func TestConfigSchemaAgreesWithTheParser(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(checks.ConfigSchema(catalog.Default())))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(checks.ConfigSchemaURL, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(checks.ConfigSchemaURL)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	validate := func(src string) error {
		var v any
		if err := yaml.Unmarshal([]byte(src), &v); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(inst)
	}
	good := []string{
		"{}\n",
		`kubernetesVersion: "1.33"
failOn: warning
include: ["deploy/**/*.yaml"]
exclude: ["**/testdata/**"]
limits: {maxFileBytes: 1024}
rules:
  replicas-too-few: {severity: error, minReplicas: 3}
  cpu-limit-set: {enabled: true}
  default-service-account: false
  render-failed: {severity: warning}
  webhook-timeout: {min: 1, max: 30}
  required-labels-missing: {labels: [team]}
  pdb-blocks-eviction: {allowMaxUnavailableZero: true}
helmValues:
  - {path: platform/kyverno/values.yaml, chart: kyverno, version: 3.2.9}
charts:
  - {path: charts/web, values: [envs/prod.yaml]}
review: {drafts: true, report: touched, inline: none, maxComments: 0, allowIgnoresInPR: false}
`,
		"kubernetesVersion: 1.30\n",
		"kubernetesVersion: v1.31.2\n",
	}
	for _, src := range good {
		if _, err := checks.ParseConfig([]byte(src), catalog.Default()); err != nil {
			t.Errorf("parser refuses %q: %v", src, err)
		}
		if err := validate(src); err != nil {
			t.Errorf("schema refuses %q: %v", src, err)
		}
	}
	bad := []string{
		"kubernetesVersion: \"2.0\"\n",
		"kubernetesVersion: 2.0\n",
		"kubernetesVersion: latest\n",
		"failOn: sometimes\n",
		"rulez: {}\n",
		"limits: {maxFileBytes: -1}\n",
		"limits: {maxFileByte: 3}\n",
		"include: '*.yaml'\n",
		"rules: {no-such-rule: true}\n",
		"rules: {replicas-too-few: {minReplicas: three}}\n",
		"rules: {replicas-too-few: {minReplicas: -1}}\n",
		"rules: {replicas-too-few: {minReplicas: 2.5}}\n",
		"rules: {replicas-too-few: {minReplica: 3}}\n",
		"rules: {replicas-too-few: {severity: critical}}\n",
		"rules: {webhook-timeout: {max: 31}}\n",
		"rules: {required-labels-missing: {labels: team}}\n",
		"rules: {yaml-invalid: {enabled: false}}\n",
		"rules: {render-failed: false}\n",
		"charts: [{path: charts/web}]\n",
		"review: {report: changed}\n",
		"review: {maxComments: 500}\n",
		"review: {drafts: maybe}\n",
	}
	for _, src := range bad {
		if _, err := checks.ParseConfig([]byte(src), catalog.Default()); err == nil {
			t.Errorf("parser accepts %q", src)
		}
		if err := validate(src); err == nil {
			t.Errorf("schema accepts %q", src)
		}
	}
}

// TestConfigDocsNameTheSchema: docs/config.md tells editors where the
// schema is.
func TestConfigDocsNameTheSchema(t *testing.T) {
	md, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "# yaml-language-server: $schema="+checks.ConfigSchemaURL) {
		t.Errorf("docs/config.md does not give the modeline for %s", checks.ConfigSchemaURL)
	}
}
