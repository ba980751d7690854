package checks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/prodready/prodready/checks/manifest"
)

// ConfigFileName is the config file looked for at the root of a checked tree.
const ConfigFileName = ".prodready.yaml"

// DefaultKubernetesVersion is the target version when the config names none:
// the release that the bundled k8s.io/api types describe.
const DefaultKubernetesVersion = "1.37"

// Config is the parsed .prodready.yaml.
type Config struct {
	// KubernetesVersion is the target cluster version, "1.33" or "v1.33.2".
	KubernetesVersion string `yaml:"kubernetesVersion"`
	// FailOn is the lowest severity that fails a check (default error).
	FailOn string `yaml:"failOn"`
	// Include and Exclude are path globs relative to the checked root
	// ("**" matches any number of folders). Include defaults to every
	// .yaml and .yml file.
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
	// Limits bound the work spent on hostile input.
	Limits LimitsConfig `yaml:"limits"`
	// Rules configures rules by ID: enabled, severity, and the rule's own
	// parameters.
	Rules map[string]RuleConfig `yaml:"rules"`
	// HelmValues names values files and the chart they configure.
	HelmValues []HelmValuesConfig `yaml:"helmValues"`
	// Charts names more values sets for charts of the repository: each
	// makes one more render of its chart.
	Charts []ChartConfig `yaml:"charts"`
	// ChartValues says which values sets a chart is rendered with:
	// ChartValuesAll (the default) renders it with its values.yaml and
	// once more per values set (ci/*-values.yaml, values-*.yaml, charts:);
	// ChartValuesDefault with its values.yaml only.
	ChartValues string `yaml:"chartValues"`
	// Review configures the bot.
	Review ReviewConfig `yaml:"review"`
	// CRDs names more files or folders of CustomResourceDefinitions
	// (vendored, or outside the checked paths), relative to the config's
	// folder: custom resources are validated against them too (crd-schema,
	// and a policy's resource names). They are read, never checked.
	CRDs []string `yaml:"crds"`
	// Checks are the repository's own checks, written as admission
	// policies are (CEL on the object), evaluated on the same engine as
	// its ValidatingAdmissionPolicies: findings policy/<name>.
	Checks []CheckConfig `yaml:"checks"`

	failOn  Severity
	catalog *Catalog
	// root is the absolute folder the include and exclude globs are
	// relative to (SetRoot); "" matches them from each checked folder.
	root string
	// globState holds the --include and --exclude globs and what every
	// glob matched in a run (glob.go).
	globState *globState
}

// SetRoot makes the include and exclude globs match the files of a checked
// folder under dir by their path relative to dir (the folder of the config
// file, or the repository root), whatever folder is named to check: with
// `exclude: [deploy/legacy/**]`, checking `.`, `deploy` or `./deploy/`
// leaves out the same files. Files of folders outside dir match from the
// folder checked, as they do when no root is set.
func (c *Config) SetRoot(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("config root: %w", err)
	}
	c.root = abs
	return nil
}

// LimitsConfig bounds parsing.
type LimitsConfig struct {
	MaxFileBytes int `yaml:"maxFileBytes"`
}

// HelmValuesConfig says which chart a values file configures.
type HelmValuesConfig struct {
	Path    string `yaml:"path"`
	Chart   string `yaml:"chart"`
	Version string `yaml:"version"`
}

// ChartConfig is one chart of the repository and the values files of one
// more render of it, layered in order on its values.yaml. Paths are
// relative to the checked root: `{path: charts/web, values: [envs/prod.yaml]}`.
type ChartConfig struct {
	Path   string   `yaml:"path"`
	Values []string `yaml:"values"`
}

// CheckConfig is one custom check: what it matches, and the CEL
// validations an object it matches must pass, as a
// ValidatingAdmissionPolicy writes them (object, params-less).
type CheckConfig struct {
	// Name makes the findings' rule ID policy/<name>.
	Name string `yaml:"name"`
	// Severity is info, warning or error (default error).
	Severity string `yaml:"severity"`
	// Match says which objects it checks: kinds, or resource rules.
	Match CheckMatch `yaml:"match"`
	// Variables, MatchConditions and Validations are a
	// ValidatingAdmissionPolicy's, with fieldPath for the finding's line.
	Variables       []CheckExpression `yaml:"variables"`
	MatchConditions []CheckExpression `yaml:"matchConditions"`
	Validations     []CheckValidation `yaml:"validations"`

	severity Severity
}

// CheckMatch says which objects a custom check matches: any of kinds
// (Deployment), or any of the resource rules.
type CheckMatch struct {
	Kinds         []string            `yaml:"kinds"`
	ResourceRules []CheckResourceRule `yaml:"resourceRules"`
}

// CheckResourceRule is an admission resource rule (CREATE implied).
type CheckResourceRule struct {
	APIGroups   []string `yaml:"apiGroups"`
	APIVersions []string `yaml:"apiVersions"`
	Resources   []string `yaml:"resources"`
}

// CheckExpression is a named CEL expression: a variable or a match
// condition.
type CheckExpression struct {
	Name       string `yaml:"name"`
	Expression string `yaml:"expression"`
}

// CheckValidation is one CEL validation of a custom check.
type CheckValidation struct {
	Expression        string `yaml:"expression"`
	Message           string `yaml:"message"`
	MessageExpression string `yaml:"messageExpression"`
	// FieldPath is where the finding goes (.spec.replicas); default the
	// field the expression reads first.
	FieldPath string `yaml:"fieldPath"`
}

// SeverityOf is the check's severity (Error when it sets none).
func (c CheckConfig) SeverityOf() Severity {
	if c.severity == 0 {
		return Error
	}
	return c.severity
}

// validate checks one custom check: a unique name, a severity, what it
// matches, and at least one validation with an expression.
func (c *CheckConfig) validate(at string, seen map[string]bool) *fieldError {
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, " /,#"):
		return &fieldError{at, at + ": a check takes a name of letters, digits and dashes (its findings are policy/<name>)"}
	case seen[c.Name]:
		return &fieldError{at + ".name", fmt.Sprintf("%s: a second check named %q", at, c.Name)}
	case len(c.Match.Kinds) == 0 && len(c.Match.ResourceRules) == 0:
		return &fieldError{at, at + ": a check matches kinds ({kinds: [Deployment]}) or resourceRules"}
	case len(c.Validations) == 0:
		return &fieldError{at, at + ": a check takes at least one validation ({expression: ..., message: ...})"}
	}
	seen[c.Name] = true
	for i, v := range c.Validations {
		if strings.TrimSpace(v.Expression) == "" {
			where := fmt.Sprintf("%s.validations[%d]", at, i)
			return &fieldError{where, where + ": a validation takes an expression"}
		}
	}
	if c.Severity != "" {
		sev, err := ParseSeverity(c.Severity)
		if err != nil || sev > Error {
			return &fieldError{at + ".severity", fmt.Sprintf("%s.severity: want info, warning or error, not %q", at, c.Severity)}
		}
		c.severity = sev
	}
	return nil
}

// ReviewConfig configures pull-request reviews.
type ReviewConfig struct {
	// Drafts makes the bot review draft pull requests too.
	Drafts bool `yaml:"drafts"`
	// Report says which findings a review reports: "new" (default: those
	// the pull request introduces, wherever they are), "touched" (also
	// those already at base in the files it changes) or "all" (every
	// finding of the files it changes, and the new ones elsewhere).
	Report string `yaml:"report"`
	// Inline is the lowest severity commented inline (default warning):
	// findings below it appear in the summary and check run only; none
	// comments nothing inline.
	Inline string `yaml:"inline"`
	// MaxComments caps the inline threads of one review (default 25):
	// beyond it, findings go to the summary with links to their lines.
	// 0 comments nothing inline.
	MaxComments *int `yaml:"maxComments"`
	// AllowIgnoresInPR, false by default, lets ignore comments and
	// annotations a pull request adds silence findings in its own review
	// (the summary lists them either way). Unset or false, a finding
	// silenced by an ignore of the pull request's (one that silences a
	// finding the base did not) is reported and graded as if the ignore
	// were not there: a pull request cannot turn its own check green by
	// ignoring what it is failed for. Only the config at base sets it.
	AllowIgnoresInPR *bool `yaml:"allowIgnoresInPR"`

	inline Severity
}

// The values of review.report.
const (
	ReportNew     = "new"
	ReportTouched = "touched"
	ReportAll     = "all"
)

// DefaultMaxComments is review.maxComments when the config does not set it.
const DefaultMaxComments = 25

// maxMaxComments bounds review.maxComments: GitHub's secondary rate limit
// allows about 80 content-creating requests a minute.
const maxMaxComments = 100

// ReportMode is review.report: ReportNew, ReportTouched or ReportAll.
func (r ReviewConfig) ReportMode() string {
	if r.Report == "" {
		return ReportNew
	}
	return r.Report
}

// InlineSeverity is the lowest severity commented inline (review.inline,
// default Warning); above Error when nothing is.
func (r ReviewConfig) InlineSeverity() Severity {
	if r.inline == 0 {
		return Warning
	}
	return r.inline
}

// CommentCap is review.maxComments (DefaultMaxComments when not set).
func (r ReviewConfig) CommentCap() int {
	if r.MaxComments == nil {
		return DefaultMaxComments
	}
	return *r.MaxComments
}

// IgnoresInPR reports whether ignores a pull request adds silence
// findings in its review (review.allowIgnoresInPR, default false: they do
// not, and the findings they silence are counted).
func (r ReviewConfig) IgnoresInPR() bool {
	return r.AllowIgnoresInPR != nil && *r.AllowIgnoresInPR
}

// validate checks the review section and keeps its parsed severity.
func (r *ReviewConfig) validate() []*fieldError {
	var errs []*fieldError
	modes := configFields["review.report"].enum
	switch r.Report {
	case "", ReportNew, ReportTouched, ReportAll:
	default:
		errs = append(errs, &fieldError{"review.report", fmt.Sprintf("review.report: want %s, not %q%s", orList(modes), r.Report, hint(r.Report, modes, ""))})
	}
	r.inline = Warning
	if r.Inline != "" {
		sev, err := ParseSeverity(r.Inline)
		if err != nil {
			errs = append(errs, &fieldError{"review.inline", fmt.Sprintf("review.inline: want %s, not %q%s", orList(failOnNames), r.Inline, hint(r.Inline, failOnNames, ""))})
		}
		r.inline = sev
	}
	if r.MaxComments != nil && (*r.MaxComments < 0 || *r.MaxComments > maxMaxComments) {
		errs = append(errs, &fieldError{"review.maxComments", fmt.Sprintf("review.maxComments: want 0 to %d, not %d", maxMaxComments, *r.MaxComments)})
	}
	return errs
}

// orList says names as a choice: "new, touched or all".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// RuleConfig is one rule's settings. Enabled is a pointer so "not said"
// differs from false.
type RuleConfig struct {
	Enabled  *bool
	Severity Severity
	Params   map[string]any
}

// UnmarshalYAML reads enabled, severity and the rule's parameters, which sit
// beside them: `replicas-too-few: {severity: error, minReplicas: 3}`.
func (rc *RuleConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode { // `rule-id: false` / `rule-id: true`
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: a rule takes true, false or a mapping, not %q", n.Line, n.Value)
		}
		rc.Enabled = &b
		return nil
	}
	var raw map[string]any
	if err := n.Decode(&raw); err != nil {
		return err
	}
	for k, v := range raw {
		switch k {
		case "enabled":
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("line %d: enabled must be true or false", n.Line)
			}
			rc.Enabled = &b
		case "severity":
			s, _ := v.(string)
			sev, err := ParseSeverity(s)
			if err != nil || sev > Error {
				return fmt.Errorf("line %d: severity must be info, warning or error", n.Line)
			}
			rc.Severity = sev
		default:
			if rc.Params == nil {
				rc.Params = map[string]any{}
			}
			rc.Params[k] = v
		}
	}
	return nil
}

// DefaultConfig is the configuration used when there is no config file,
// for the rules of catalog.
func DefaultConfig(catalog *Catalog) *Config {
	c := &Config{catalog: catalog}
	c.validate() // nothing set: no problem to say
	return c
}

// Catalog returns the rules this config is for.
func (c *Config) Catalog() *Catalog { return c.catalog }

// LoadConfig reads a config file. A missing file at the default location is
// not an error (the defaults apply); callers that were given a path
// explicitly should check for its existence themselves. Errors name the
// file by path, as ParseConfigFile says them.
func LoadConfig(path string, catalog *Catalog) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return DefaultConfig(catalog), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return ParseConfigFile(path, data, catalog)
}

// ParseConfig parses the text of a .prodready.yaml and validates it against
// the rules of catalog: ParseConfigFile with the file named ConfigFileName.
func ParseConfig(data []byte, catalog *Catalog) (*Config, error) {
	return ParseConfigFile(ConfigFileName, data, catalog)
}

// validate sets the defaults and checks what the YAML walk does not: the
// version, failOn, charts, and that rules and parameters exist. It returns
// every problem, each naming the field at fault.
func (c *Config) validate() []*fieldError {
	var errs []*fieldError
	if c.KubernetesVersion == "" {
		c.KubernetesVersion = DefaultKubernetesVersion
	}
	if _, _, err := ParseKubernetesVersion(c.KubernetesVersion); err != nil {
		errs = append(errs, &fieldError{"kubernetesVersion", "kubernetesVersion: " + err.Error()})
	}
	if c.FailOn == "" {
		c.FailOn = "error"
	}
	sev, err := ParseSeverity(c.FailOn)
	if err != nil {
		errs = append(errs, &fieldError{"failOn", fmt.Sprintf("failOn: want %s, not %q%s", orList(failOnNames), c.FailOn, hint(c.FailOn, failOnNames, ""))})
	}
	c.failOn = sev
	errs = append(errs, c.Review.validate()...)
	if e := c.validateChartValues(); e != nil {
		errs = append(errs, e)
	}
	for i, ch := range c.Charts {
		if ch.Path == "" || len(ch.Values) == 0 {
			at := fmt.Sprintf("charts[%d]", i)
			errs = append(errs, &fieldError{at, at + ": a chart takes a path and at least one values file ({path: charts/web, values: [envs/prod.yaml]})"})
		}
	}
	seen := map[string]bool{}
	for i := range c.Checks {
		if e := c.Checks[i].validate(fmt.Sprintf("checks[%d]", i), seen); e != nil {
			errs = append(errs, e)
		}
	}
	for _, id := range sortedKeys(c.Rules) {
		if err := c.catalog.CheckRuleID(id); err != nil {
			errs = append(errs, &fieldError{"rules." + id, "rules: " + err.Error()})
			continue
		}
		r := c.catalog.Lookup(id)
		if rc := c.Rules[id]; r.AlwaysOn && rc.Enabled != nil && !*rc.Enabled {
			errs = append(errs, &fieldError{"rules." + id, "rules." + errAlwaysOn(id).Error()})
		}
		params := sortedParams(r)
		for _, p := range sortedKeys(c.Rules[id].Params) {
			if _, ok := r.Params[p]; !ok {
				errs = append(errs, &fieldError{"rules." + id + "." + p, fmt.Sprintf("rules.%s: unknown parameter %q%s", id, p, hint(p, params, knownParams(r)))})
			}
		}
		if e := c.minAboveMax(r); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// The values of chartValues.
const (
	// ChartValuesAll renders a chart with its values.yaml and once more per
	// values set.
	ChartValuesAll = "all"
	// ChartValuesDefault renders a chart with its values.yaml only.
	ChartValuesDefault = "default"
)

// validateChartValues checks chartValues (empty is ChartValuesAll).
func (c *Config) validateChartValues() *fieldError {
	modes := configFields["chartValues"].enum
	switch c.ChartValues {
	case "", ChartValuesAll, ChartValuesDefault:
		return nil
	}
	return &fieldError{"chartValues", fmt.Sprintf("chartValues: want %s, not %q%s", orList(modes), c.ChartValues, hint(c.ChartValues, modes, ""))}
}

// ChartValuesOnlyDefault reports whether charts are rendered with their
// values.yaml only (chartValues: default, or --chart-values default).
func (c *Config) ChartValuesOnlyDefault() bool { return c.ChartValues == ChartValuesDefault }

// SetChartValues overrides chartValues (from a command-line flag):
// ChartValuesAll or ChartValuesDefault.
func (c *Config) SetChartValues(v string) error {
	switch v {
	case ChartValuesAll, ChartValuesDefault:
		c.ChartValues = v
		return nil
	}
	modes := configFields["chartValues"].enum
	return fmt.Errorf("want %s, not %q%s", orList(modes), v, hint(v, modes, ""))
}

// minAboveMax is the problem of rule r's whole-number parameters min and
// max when the config sets either and min is above max (nil otherwise),
// at the one it sets (min when both).
func (c *Config) minAboveMax(r *Rule) *fieldError {
	_, minInt := r.Params["min"].(int)
	_, maxInt := r.Params["max"].(int)
	if !minInt || !maxInt {
		return nil
	}
	lo, hi := c.IntParam(r.ID, "min"), c.IntParam(r.ID, "max")
	if lo <= hi {
		return nil
	}
	at := "rules." + r.ID + ".min"
	if _, set := c.Rules[r.ID].Params["min"]; !set {
		at = "rules." + r.ID + ".max"
	}
	return &fieldError{at, fmt.Sprintf("rules.%s: min (%d) is above max (%d): nothing would be in range", r.ID, lo, hi)}
}

// sortedParams are the names of r's parameters, sorted.
func sortedParams(r *Rule) []string {
	return sortedKeys(r.Params)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// knownParams says which parameters r takes, for an unknown one's error.
func knownParams(r *Rule) string {
	if len(r.Params) == 0 {
		return "this rule takes none"
	}
	return "it takes " + strings.Join(sortedParams(r), ", ")
}

// FailOnSeverity is the lowest severity that makes a run fail.
func (c *Config) FailOnSeverity() Severity { return c.failOn }

// Fails reports whether any of fs is at or above failOn.
func (c *Config) Fails(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity >= c.failOn {
			return true
		}
	}
	return false
}

// SetFailOn overrides failOn (from a command-line flag).
func (c *Config) SetFailOn(s Severity) { c.failOn = s; c.FailOn = s.String() }

// SetKubernetesVersion overrides kubernetesVersion (from a command-line
// flag): "1.33", "v1.33" or "v1.33.2", refused as ParseKubernetesVersion
// refuses it.
func (c *Config) SetKubernetesVersion(v string) error {
	if _, _, err := ParseKubernetesVersion(v); err != nil {
		return err
	}
	c.KubernetesVersion = v
	return nil
}

// SetEnabled turns rule id on or off, over what the config file says (from
// a command-line flag); its severity and parameters stay as configured.
// An always-on rule cannot be switched off: the error says why.
func (c *Config) SetEnabled(id string, on bool) error {
	if r := c.catalog.Lookup(id); r != nil && r.AlwaysOn && !on {
		return errAlwaysOn(id)
	}
	rules := make(map[string]RuleConfig, len(c.Rules)+1)
	for k, v := range c.Rules {
		rules[k] = v
	}
	rc := rules[id]
	rc.Enabled = &on
	rules[id] = rc
	c.Rules = rules
	return nil
}

// errAlwaysOn is the refusal to switch off always-on rule id.
func errAlwaysOn(id string) error {
	return fmt.Errorf("%s cannot be switched off: its findings say what was not checked, which would otherwise pass in silence; set its severity instead ({severity: info}) and failOn decides whether it fails the run", id)
}

// Enabled reports whether rule r runs under this config (an always-on
// rule always does).
func (c *Config) Enabled(r *Rule) bool {
	if r.AlwaysOn {
		return true
	}
	if rc, ok := c.Rules[r.ID]; ok && rc.Enabled != nil {
		return *rc.Enabled
	}
	return !r.OptIn
}

// SeverityOf returns the configured severity override for rule id, or 0.
// A family's rule (policy/require-team) takes its own override, else the
// family's (policy).
func (c *Config) SeverityOf(id string) Severity {
	if s := c.Rules[id].Severity; s != 0 {
		return s
	}
	if family, _, ok := strings.Cut(id, "/"); ok {
		return c.Rules[family].Severity
	}
	return 0
}

// Param returns rule id's parameter name: the configured value, else the
// rule's default.
func (c *Config) Param(id, name string) any {
	if v, ok := c.Rules[id].Params[name]; ok {
		return v
	}
	if r := c.catalog.Lookup(id); r != nil {
		return r.Params[name]
	}
	return nil
}

// IntParam returns an integer parameter (0 when it is not a number).
func (c *Config) IntParam(id, name string) int {
	switch v := c.Param(id, name).(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	case string:
		n, _ := strconv.Atoi(v)
		return n
	}
	return 0
}

// StringsParam returns a list-of-strings parameter.
func (c *Config) StringsParam(id, name string) []string {
	switch v := c.Param(id, name).(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, fmt.Sprint(e))
		}
		return out
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	}
	return nil
}

// ParseLimits returns the parser limits this config asks for.
func (c *Config) ParseLimits() manifest.Limits {
	l := manifest.DefaultLimits
	if c.Limits.MaxFileBytes > 0 {
		l.MaxFileBytes = c.Limits.MaxFileBytes
	}
	return l
}

// maxMinorAhead bounds a target's minor version: up to this many releases
// (three years) past DefaultKubernetesVersion, so that a typo (1.330) is
// refused rather than read as a release no one runs.
const maxMinorAhead = 12

// ParseKubernetesVersion reads a Kubernetes release, "1.33", "v1.33",
// "v1.33.2" or a vendor's "1.33.2-gke.1000" (k8s.io/apimachinery's
// version.ParseGeneric), into its major and minor. Kubernetes releases are
// 1.x: "2.0" is refused, not read as minor 0. Its errors quote s and say
// what is wanted, without naming the setting (the config's key or a flag).
func ParseKubernetesVersion(s string) (major, minor int, err error) {
	v, perr := version.ParseGeneric(s)
	if perr != nil {
		return 0, 0, fmt.Errorf("%q is not a Kubernetes release: want one like 1.33 or v1.33.2", s)
	}
	_, latest, _ := strings.Cut(DefaultKubernetesVersion, ".")
	known, _ := strconv.Atoi(latest)
	switch {
	case v.Major() != 1:
		return 0, 0, fmt.Errorf("%q is not a Kubernetes release: they are 1.x (1.33, v1.33.2)", s)
	case v.Minor() > uint(known+maxMinorAhead):
		return 0, 0, fmt.Errorf("%q is not a Kubernetes release yet: want one like 1.33 (prodready knows up to %s)", s, DefaultKubernetesVersion)
	}
	return 1, int(v.Minor()), nil
}

// TargetMinor returns the minor version of the target Kubernetes release
// (33 for 1.33).
func (c *Config) TargetMinor() int {
	_, minor, _ := ParseKubernetesVersion(c.KubernetesVersion)
	return minor
}
