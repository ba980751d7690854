package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strings"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// The SARIF 2.1.0 subset GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool sarifTool `json:"tool"`
	// OriginalURIBaseIDs declares %SRCROOT%, the folder the artifacts'
	// relative URIs start from.
	OriginalURIBaseIDs map[string]sarifBase `json:"originalUriBaseIds"`
	Results            []sarifResult        `json:"results"`
	// Invocations, when files were not checked, names them as notes.
	Invocations []sarifInvocationOf `json:"invocations,omitempty"`
}

type sarifInvocationOf struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string                  `json:"level"`
	Message   sarifText               `json:"message"`
	Locations []sarifArtifactLocation `json:"locations"`
}

type sarifArtifactLocation struct {
	PhysicalLocation struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
	} `json:"physicalLocation"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifText    `json:"shortDescription"`
	FullDescription      sarifText    `json:"fullDescription"`
	HelpURI              string       `json:"helpUri,omitempty"`
	Help                 sarifHelp    `json:"help"`
	DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
	Properties           sarifProps   `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifDefault struct {
	Level string `json:"level"`
}

type sarifProps struct {
	Tags []string `json:"tags"`
	// SecuritySeverity is GitHub's score of a rule, "0.1" to "10.0": see
	// SARIFSecuritySeverity. Only security rules have one: GitHub lists a
	// rule that has one as a security alert.
	SecuritySeverity string `json:"security-severity,omitempty"`
}

// sarifBase is a URI base: where it is when known, and what it is.
type sarifBase struct {
	Description sarifText `json:"description"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	// Properties carry the fix, when the finding has one: what it does
	// and its kind (exact or starting-point), which SARIF has no field for.
	Properties *sarifFixProperties `json:"properties,omitempty"`
}

// sarifFixProperties is a result's property bag for its fix.
type sarifFixProperties struct {
	Fix      string `json:"prodready/fix"`
	FixKind  string `json:"prodready/fixKind"`
	Withheld string `json:"prodready/fixWithheld,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// srcRoot is the URI base of the files checked. Its absolute URI is left
// out (SARIF allows it: the base is then the consumer's, as GitHub takes
// the repository's root), so a log names no path of the machine that
// wrote it.
const srcRoot = "%SRCROOT%"

// sarifArtifactOf is a file's location: a relative path from srcRoot,
// percent-encoded as a URI reference; an absolute path as a file URI.
func sarifArtifactOf(p string) sarifArtifact {
	if strings.HasPrefix(p, "/") {
		return sarifArtifact{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	return sarifArtifact{URI: (&url.URL{Path: p}).EscapedPath(), URIBaseID: srcRoot}
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine"`
}

// SARIFLevel maps a severity to a SARIF level.
func SARIFLevel(s checks.Severity) string {
	switch s {
	case checks.Error:
		return "error"
	case checks.Warning:
		return "warning"
	}
	return "note"
}

// SARIFSecuritySeverity is the security-severity GitHub code scanning
// ranks a security rule by (critical from 9.0, high from 7.0, medium from
// 4.0, low below): a rule's default severity read as
// error 8.0 (high), warning 5.0 (medium), info 2.0 (low).
func SARIFSecuritySeverity(s checks.Severity) string {
	switch s {
	case checks.Error:
		return "8.0"
	case checks.Warning:
		return "5.0"
	}
	return "2.0"
}

// securitySections are the catalog sections whose rules are about
// security: secrets (7), pod security (8), network and RBAC (9). In SARIF
// their rules are tagged security and carry a security-severity, so that
// GitHub code scanning lists their findings as security alerts, and no
// other rule's: a missing label or replica is not one.
var securitySections = map[string]bool{
	"7. Configuration and secrets": true,
	"8. Security context":          true,
	"9. Network and access":        true,
}

// securityWebhookRules are the rules of the webhooks section (11, mostly
// about keeping admission webhooks available) whose finding is a gap in
// security: a policy engine that fails open admits what it should check.
var securityWebhookRules = map[string]bool{"kyverno-fail-open": true}

// notSecurityRules are the rules of the security sections whose finding
// is a mistake that breaks the app, not a gap in its security: a duplicate
// variable, a Service or Ingress that routes nowhere, two Ingresses on one
// host. GitHub would list them among security alerts.
var notSecurityRules = map[string]bool{
	"duplicate-env":                    true,
	"ingress-backend-missing":          true,
	"ingress-host-duplicate":           true,
	"service-selects-nothing":          true,
	"statefulset-service-not-headless": true,
}

// SARIFSecurityRule reports whether rule r is about security: in SARIF it
// is tagged security and has a security-severity.
func SARIFSecurityRule(r *checks.Rule) bool {
	return securitySections[r.Section] && !notSecurityRules[r.ID] || securityWebhookRules[r.ID]
}

// SARIFRuleName is rule id's SARIF name: readable and distinct from the
// id, as SARIF asks, in the Pascal case its examples use
// ("replicas-too-few" is ReplicasTooFew).
func SARIFRuleName(id string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(word[:1]) + word[1:])
	}
	return b.String()
}

// SARIF writes a SARIF 2.1.0 log that GitHub code scanning accepts: every
// rule with its help, and every finding with its real region and a partial
// fingerprint that survives line moves.
func SARIF(w io.Writer, res *checks.Result, version string) error {
	return Write(w, "sarif", res, version)
}

// sarifFrame returns the SARIF log around its results: the encoded log with
// every rule and no results is cut where its empty results array is, and
// the results are streamed in its place (at depth levels of indentation):
// the same bytes as encoding the whole log.
func sarifFrame(version string) (head, tail []byte, depth int, err error) {
	driver := sarifDriver{Name: "prodready", Version: version, InformationURI: "https://github.com/prodready/prodready"}
	for _, r := range catalog.Default().Rules() {
		help := r.Why
		if r.Help != "" {
			help += "\n\n" + r.Help
		}
		help += "\n\nIgnore one finding with a comment `# prodready:ignore " + r.ID + " <reason>` on its line or the line above, or an object with the annotation `prodready.dev/ignore: " + r.ID + "`."
		tags := []string{"kubernetes", r.Section}
		props := sarifProps{Tags: tags}
		if SARIFSecurityRule(r) {
			props = sarifProps{Tags: append(tags, "security"), SecuritySeverity: SARIFSecuritySeverity(r.Severity)}
		}
		driver.Rules = append(driver.Rules, sarifRule{
			ID: r.ID, Name: SARIFRuleName(r.ID),
			ShortDescription:     sarifText{Text: r.Why},
			FullDescription:      sarifText{Text: r.Why},
			HelpURI:              r.Ref,
			Help:                 sarifHelp{Text: help, Markdown: help},
			DefaultConfiguration: sarifDefault{Level: SARIFLevel(r.Severity)},
			Properties:           props,
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}, OriginalURIBaseIDs: map[string]sarifBase{
			srcRoot: {Description: sarifText{Text: "The folder prodready ran in, which the paths of the files are relative to (the repository's root in CI)."}},
		}}},
	}
	doc, err := json.MarshalIndent(log, "", jsonIndent)
	if err != nil {
		return nil, nil, 0, err
	}
	const empty = `"results": []`
	at := bytes.Index(doc, []byte(empty)) // keys are the only unescaped quotes: this is the key
	if at < 0 {
		return nil, nil, 0, errors.New("sarif: no results array in the encoded log")
	}
	lineStart := bytes.LastIndexByte(doc[:at], '\n') + 1
	depth = (at - lineStart) / len(jsonIndent)
	return doc[:at+len(empty)-2], doc[at+len(empty):], depth, nil
}

// sarifRuleIndex is the index of rule id's descriptor; a family's rule
// (policy/require-team) is its family's, as SARIF's hierarchical rule IDs
// ("policy/require-team" under the descriptor "policy") are.
func sarifRuleIndex(ruleIndex map[string]int, id string) int {
	if i, ok := ruleIndex[id]; ok {
		return i
	}
	family, _, _ := strings.Cut(id, "/")
	return ruleIndex[family]
}

// sarifResultOf is f as a SARIF result; ruleIndex gives each rule's index in
// the log's rules.
func sarifResultOf(f checks.Finding, ruleIndex map[string]int) sarifResult {
	end := f.EndLine
	if end < f.Line {
		end = f.Line
	}
	r := sarifResult{
		RuleID: f.RuleID, RuleIndex: sarifRuleIndex(ruleIndex, f.RuleID), Level: SARIFLevel(f.Severity),
		Message: sarifText{Text: f.Message},
		Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifactOf(f.File),
			Region:           sarifRegion{StartLine: f.Line, StartColumn: f.Column, EndLine: end},
		}}},
		PartialFingerprints: map[string]string{"prodready/v1": fileFingerprint(f)},
	}
	if f.Fix != nil && f.Fix.Description != "" {
		r.Properties = &sarifFixProperties{Fix: f.Fix.Description, FixKind: string(f.Fix.Kind), Withheld: f.Fix.Withheld}
	}
	return r
}

// sarifInvocation is the run's "invocations" member listing the files not
// checked as tool notifications, written after the results array at depth
// (in indentation steps) of the run's members.
func sarifInvocation(skipped []NotChecked, depth int) ([]byte, error) {
	inv := sarifInvocationOf{ExecutionSuccessful: true}
	for _, n := range skipped {
		var l sarifArtifactLocation
		l.PhysicalLocation.ArtifactLocation = sarifArtifactOf(n.Path)
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "note", Message: sarifText{Text: "not checked: " + n.Reason}, Locations: []sarifArtifactLocation{l}})
	}
	prefix := strings.Repeat(jsonIndent, depth)
	body, err := json.MarshalIndent([]sarifInvocationOf{inv}, prefix, jsonIndent)
	if err != nil {
		return nil, err
	}
	return append([]byte(",\n"+prefix+`"invocations": `), body...), nil
}
