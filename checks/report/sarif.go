package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
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
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
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
		driver.Rules = append(driver.Rules, sarifRule{
			ID: r.ID, Name: r.ID,
			ShortDescription:     sarifText{Text: r.Why},
			FullDescription:      sarifText{Text: r.Why},
			HelpURI:              r.Ref,
			Help:                 sarifHelp{Text: help, Markdown: help},
			DefaultConfiguration: sarifDefault{Level: SARIFLevel(r.Severity)},
			Properties:           sarifProps{Tags: []string{"kubernetes", r.Section}},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}},
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

// sarifResultOf is f as a SARIF result; ruleIndex gives each rule's index in
// the log's rules.
func sarifResultOf(f checks.Finding, ruleIndex map[string]int) sarifResult {
	end := f.EndLine
	if end < f.Line {
		end = f.Line
	}
	return sarifResult{
		RuleID: f.RuleID, RuleIndex: ruleIndex[f.RuleID], Level: SARIFLevel(f.Severity),
		Message: sarifText{Text: f.Message},
		Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: f.File},
			Region:           sarifRegion{StartLine: f.Line, StartColumn: f.Column, EndLine: end},
		}}},
		PartialFingerprints: map[string]string{"prodready/v1": f.Fingerprint()},
	}
}

// sarifInvocation is the run's "invocations" member listing the files not
// checked as tool notifications, written after the results array at depth
// (in indentation steps) of the run's members.
func sarifInvocation(skipped []NotChecked, depth int) ([]byte, error) {
	inv := sarifInvocationOf{ExecutionSuccessful: true}
	for _, n := range skipped {
		var l sarifArtifactLocation
		l.PhysicalLocation.ArtifactLocation = sarifArtifact{URI: n.Path}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "note", Message: sarifText{Text: "not checked: " + n.Reason}, Locations: []sarifArtifactLocation{l}})
	}
	prefix := strings.Repeat(jsonIndent, depth)
	body, err := json.MarshalIndent([]sarifInvocationOf{inv}, prefix, jsonIndent)
	if err != nil {
		return nil, err
	}
	return append([]byte(",\n"+prefix+`"invocations": `), body...), nil
}
