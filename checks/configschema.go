package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// ConfigSchemaURL is where the JSON Schema of .prodready.yaml is published
// (docs/prodready.schema.json of the repository), for editors: a modeline
// `# yaml-language-server: $schema=<ConfigSchemaURL>` or the schema store's
// file pattern.
const ConfigSchemaURL = "https://raw.githubusercontent.com/prodready/prodready/main/docs/prodready.schema.json"

// fieldSpec is what a setting of the config is beyond its Go type: its
// description, the values it takes, its range, and a check of its text.
// The walk (configparse.go), validate and ConfigSchema read the same
// specs, so the parser and the published schema say the same.
type fieldSpec struct {
	// doc describes the setting, for an editor's hover.
	doc string
	// enum is the values a text setting takes (validate refuses others,
	// and reads them without regard to case).
	enum []string
	// ints is the range of a whole-number setting (the walk refuses a
	// number outside).
	ints *IntRange
	// check refuses a text setting's value (the walk says its error);
	// pattern is its JSON Schema approximation.
	check   func(string) error
	pattern string
	// required are the keys an item of a list of mappings must have
	// (validate says so).
	required []string
}

// The values of failOn and review.inline: severities and none.
var failOnNames = []string{"info", "warning", "error", "none"}

// maxMaxFileBytes bounds limits.maxFileBytes: a config cannot lift the
// bound on what one file costs to read and parse.
const maxMaxFileBytes = 1 << 30

// configFields are the specs of the config's settings by path (list items
// share their list's path: charts.values).
var configFields = map[string]fieldSpec{
	"kubernetesVersion": {
		doc:     "Target Kubernetes release, 1.x (\"1.33\", \"v1.33.2\"): the API-version and feature rules, and what charts render for. Default " + DefaultKubernetesVersion + ".",
		check:   func(s string) error { _, _, err := ParseKubernetesVersion(s); return err },
		pattern: `^\s*v?1\.[0-9]+`,
	},
	"failOn": {
		doc:  "Lowest severity that fails a run: info, warning, error or none. Default error.",
		enum: failOnNames,
	},
	"include": {doc: "Globs of the files to check, from the config file's folder (\"**\" matches any number of folders). Default: every .yaml and .yml file."},
	"exclude": {doc: "Globs of the files not to check, from the config file's folder."},
	"limits":  {doc: "Bounds on the work spent on one input."},
	"limits.maxFileBytes": {
		doc:  "Larger files are refused with a finding. Default 5242880 (5 MiB).",
		ints: &IntRange{Min: 1, Max: maxMaxFileBytes},
	},
	"chartValues": {
		doc:  "Which values sets a chart is rendered with: all (its values.yaml, and once more with each ci/*-values.yaml, values-*.yaml and charts: entry) or default (its values.yaml only: one render a chart, the other sets are named as not rendered). Default all.",
		enum: []string{ChartValuesAll, ChartValuesDefault},
	},
	"rules":                                  {doc: "Rules by ID: true or false to switch one on or off, or a mapping of enabled, severity and the rule's parameters."},
	"helmValues":                             {doc: "Values files the checks cannot recognise on their own, each with the chart it configures."},
	"helmValues.path":                        {doc: "The values file, from the config file's folder."},
	"helmValues.chart":                       {doc: "The chart the file configures (kyverno)."},
	"helmValues.version":                     {doc: "The chart's version (3.2.9)."},
	"charts":                                 {doc: "More values sets for charts of the repository: each entry is one more render of its chart.", required: []string{"path", "values"}},
	"charts.path":                            {doc: "The chart's folder, from the config file's folder."},
	"charts.values":                          {doc: "Values files layered in order on the chart's values.yaml for this render."},
	"crds":                                   {doc: "More files or folders of CustomResourceDefinitions, from the config file's folder, to validate custom resources against (read as context: neither checked nor reported)."},
	"checks":                                 {doc: "The repository's own checks, written as a ValidatingAdmissionPolicy writes them: findings policy/<name>.", required: []string{"name", "validations"}},
	"checks.name":                            {doc: "Letters, digits and dashes: the findings' rule ID is policy/<name>."},
	"checks.severity":                        {doc: "info, warning or error. Default error.", enum: []string{"info", "warning", "error"}},
	"checks.match":                           {doc: "Which objects it checks: kinds, or admission resource rules."},
	"checks.match.kinds":                     {doc: "Kinds it checks (Deployment)."},
	"checks.match.resourceRules":             {doc: "Admission resource rules (CREATE implied)."},
	"checks.match.resourceRules.apiGroups":   {doc: "API groups (\"\" is the core group, \"*\" any)."},
	"checks.match.resourceRules.apiVersions": {doc: "API versions (\"*\" any)."},
	"checks.match.resourceRules.resources":   {doc: "Resources (deployments, pods/ephemeralcontainers, \"*\")."},
	"checks.variables":                       {doc: "Named CEL expressions, read as variables.<name> by the others."},
	"checks.variables.name":                  {doc: "The variable's name."},
	"checks.variables.expression":            {doc: "Its CEL expression."},
	"checks.matchConditions":                 {doc: "CEL conditions an object must meet to be checked."},
	"checks.matchConditions.name":            {doc: "The condition's name."},
	"checks.matchConditions.expression":      {doc: "Its CEL expression (true: checked)."},
	"checks.validations":                     {doc: "CEL validations a checked object must pass."},
	"checks.validations.expression":          {doc: "CEL over object (and variables): true passes."},
	"checks.validations.message":             {doc: "The finding's message."},
	"checks.validations.messageExpression":   {doc: "A CEL expression making the message."},
	"checks.validations.fieldPath":           {doc: "Where the finding goes (.spec.replicas). Default: the field the expression reads first."},
	"review":                                 {doc: "How the bot and the Action review a pull request (read from the base commit)."},
	"review.drafts":                          {doc: "Review draft pull requests too. Default false."},
	"review.report": {
		doc:  "Which findings a review reports: new (those the pull request introduces), touched (also those already at base in the files it changes) or all. Default new.",
		enum: []string{ReportNew, ReportTouched, ReportAll},
	},
	"review.inline": {
		doc:  "Lowest severity commented inline; below it, findings appear in the summary only. info, warning, error or none. Default warning.",
		enum: failOnNames,
	},
	"review.maxComments": {
		doc:  fmt.Sprintf("Most inline threads of one review; beyond it, findings go to the summary. Default %d.", DefaultMaxComments),
		ints: &IntRange{Min: 0, Max: maxMaxComments},
	},
	"review.allowIgnoresInPR": {doc: "Let ignore comments and annotations a pull request adds silence findings in its own review. Default false."},
}

// ConfigSchema is the JSON Schema (draft-07, which YAML editors read) of
// .prodready.yaml for the rules of catalog, made from the Config type, the
// specs the parser checks values with, and each rule's parameters with
// their defaults and ranges. docs/prodready.schema.json is its output for
// the default catalog.
func ConfigSchema(catalog *Catalog) []byte {
	s := schemaOf(reflect.TypeFor[Config](), "", catalog)
	s["$schema"] = "http://json-schema.org/draft-07/schema#"
	s["$id"] = ConfigSchemaURL
	s["title"] = ConfigFileName
	s["description"] = "prodready's configuration: https://github.com/prodready/prodready/blob/main/docs/config.md"
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic("checks: the config schema does not encode: " + err.Error()) // maps of JSON values: a bug
	}
	return buf.Bytes()
}

// schema is one JSON Schema object.
type schema = map[string]any

// schemaOf is the schema of a setting of Go type t at path key.
func schemaOf(t reflect.Type, key string, catalog *Catalog) schema {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	spec, ok := configFields[key]
	if !ok && key != "" {
		panic("checks: config setting " + key + " has no fieldSpec") // TestConfigSchemaIsCurrent
	}
	s := schema{}
	switch {
	case t.Kind() == reflect.Map: // rules
		s = rulesSchema(catalog)
	case t.Kind() == reflect.Struct:
		props := schema{}
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			props[name] = schemaOf(f.Type, join(key, name), catalog)
		}
		s["type"] = "object"
		s["properties"] = props
		s["additionalProperties"] = false
		if spec.required != nil {
			s["required"] = spec.required
		}
	case t.Kind() == reflect.Slice:
		items := schemaOf(t.Elem(), key, catalog) // an item shares its list's spec
		delete(items, "description")
		s["type"], s["items"] = "array", items
	case t.Kind() == reflect.Bool:
		s["type"] = "boolean"
	case t.Kind() == reflect.Int:
		s["type"] = "integer"
		if spec.ints != nil {
			s["minimum"], s["maximum"] = spec.ints.Min, spec.ints.Max
		}
	case t.Kind() == reflect.String && spec.pattern != "":
		// The one patterned setting is the version, which may be written
		// unquoted (1.33): the parser reads its text where other YAML
		// readers see a number, which must then be 1.x (2.0 is no release).
		s["type"] = []string{"string", "number"}
		s["pattern"] = spec.pattern
		s["minimum"], s["exclusiveMaximum"] = 1, 2
	case t.Kind() == reflect.String:
		s["type"] = "string"
		if spec.enum != nil {
			s["enum"] = spec.enum
		}
	}
	if spec.doc != "" {
		s["description"] = spec.doc
	}
	return s
}

// rulesSchema is the schema of the rules mapping: each rule of catalog by
// ID, taking true, false, or its settings and parameters.
func rulesSchema(catalog *Catalog) schema {
	props := schema{}
	for _, r := range catalog.Rules() {
		settings := schema{
			"enabled":  schema{"type": "boolean", "description": "Run the rule (opt-in rules are off by default)."},
			"severity": schema{"type": "string", "enum": severityNames, "description": fmt.Sprintf("Severity of its findings. Default %s.", r.Severity)},
		}
		switchable := schema{"type": "boolean"}
		if r.AlwaysOn {
			settings["enabled"] = schema{"const": true, "description": "Always on: its findings say what was not checked; set its severity instead."}
			switchable = schema{"const": true}
		}
		for _, p := range sortedParams(r) {
			settings[p] = paramSchema(r, p)
		}
		props[r.ID] = schema{
			"description": r.Why,
			"oneOf": []any{
				switchable,
				schema{"type": "object", "properties": settings, "additionalProperties": false},
			},
		}
	}
	return schema{"type": "object", "properties": props, "additionalProperties": false}
}

// paramSchema is the schema of rule r's parameter p, as paramProblem
// checks it: its type from its default, its range from r.ParamRanges.
func paramSchema(r *Rule, p string) schema {
	def := r.Params[p]
	s := schema{"default": def, "description": fmt.Sprintf("Parameter of %s (see its help in docs/rules.md).", r.ID)}
	switch def.(type) {
	case int:
		rng := r.ParamRanges[p]
		if rng == (IntRange{}) {
			rng = IntRange{Min: 0, Max: math.MaxInt32}
		}
		s["type"], s["minimum"], s["maximum"] = "integer", rng.Min, rng.Max
	case bool:
		s["type"] = "boolean"
	case []string:
		s["type"], s["items"] = "array", schema{"type": "string"}
	}
	return s
}
