package report

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"sort"

	"github.com/prodready/prodready/checks"
)

// The JUnit XML that GitLab's test reports and Jenkins' JUnit plugin read,
// shaped as kubeconform's and kube-score's: a test suite per file, a test
// case per object, a failure per finding. It is valid under Jenkins'
// junit-10.xsd, which allows a skipped count on a suite but not on the
// root, and a file on a suite but not on a case (the case's classname is
// its file).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	File     string      `xml:"file,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	Skipped   *junitSkipped  `xml:"skipped"`
	doc       int            // the object's document, for the order of the cases
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// junitFinding is what the JUnit report needs of a finding, held until
// the report is written: its strings are the finding's, and its fix's
// edits, paths and identity are let go.
type junitFinding struct {
	File, RuleID, Message, Fix string
	Line, Column               int
	Severity                   checks.Severity
	Object                     checks.ObjectRef
	fixed                      bool // the finding has a fix (Fix may be "")
}

// holdForJUnit keeps what the JUnit report needs of f.
func holdForJUnit(f checks.Finding) junitFinding {
	h := junitFinding{File: f.File, RuleID: f.RuleID, Message: f.Message, Line: f.Line, Column: f.Column, Severity: f.Severity, Object: f.Object}
	if f.Fix != nil {
		h.Fix, h.fixed = f.Fix.Description, true
	}
	return h
}

// writeJUnit writes the JUnit report of a run: for each file (by path),
// a test case per Kubernetes object checked (res.Checked), in document
// order, failing with one failure per finding about it; a finding about
// no object listed (a document that is not YAML, a whole file) makes a
// case of its own; a file not checked is a skipped case.
func writeJUnit(b *bufio.Writer, fs []junitFinding, res *checks.Result, skipped []NotChecked) error {
	type fileCases struct {
		cases []junitCase
		index map[checks.ObjectRef]int
	}
	files := map[string]*fileCases{}
	file := func(p string) *fileCases {
		fc := files[p]
		if fc == nil {
			fc = &fileCases{index: map[checks.ObjectRef]int{}}
			files[p] = fc
		}
		return fc
	}
	caseOf := func(p string, ref checks.ObjectRef) *junitCase {
		fc := file(p)
		i, ok := fc.index[ref]
		if !ok {
			i = len(fc.cases)
			fc.index[ref] = i
			fc.cases = append(fc.cases, junitCase{Name: junitCaseName(ref), Classname: p, doc: ref.Doc})
		}
		return &fc.cases[i]
	}
	checked := res.Checked
	if checked == nil {
		checked = checks.CheckedObjects(res.Files) // a run that kept its files
	}
	for _, p := range sortedKeys(checked) {
		for _, ref := range checked[p] {
			caseOf(p, ref)
		}
	}
	for _, f := range fs {
		c := caseOf(f.File, f.Object)
		text := fmt.Sprintf("%s:%d:%d %s %s\n%s", f.File, f.Line, f.Column, f.Severity, f.RuleID, f.Message)
		if f.fixed {
			text += "\nfix: " + f.Fix
		}
		c.Failures = append(c.Failures, junitFailure{Message: f.RuleID + ": " + firstLine(f.Message), Type: f.Severity.String(), Text: text})
	}
	for _, n := range skipped {
		fc := file(n.Path)
		fc.cases = append(fc.cases, junitCase{Name: "not checked", Classname: n.Path, Skipped: &junitSkipped{Message: "not checked: " + n.Reason}, doc: -2})
	}
	doc := junitSuites{Name: "prodready"}
	for _, p := range sortedKeys(files) {
		cases := files[p].cases
		sort.SliceStable(cases, func(i, j int) bool { return cases[i].doc < cases[j].doc })
		suite := junitSuite{Name: p, File: p, Cases: cases, Tests: len(cases)}
		for _, c := range cases {
			switch {
			case c.Skipped != nil:
				suite.Skipped++
			case len(c.Failures) > 0:
				suite.Failures++
			}
		}
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Suites = append(doc.Suites, suite)
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	b.WriteString(xml.Header)
	b.Write(out)
	b.WriteByte('\n')
	return nil
}

// junitCaseName names an object's test case: "Deployment prod/web", or
// the document ("document 2") or file it is about when it has no kind.
func junitCaseName(ref checks.ObjectRef) string {
	switch {
	case ref.Kind != "" && ref.Namespace != "":
		return ref.Kind + " " + ref.Namespace + "/" + ref.Name
	case ref.Kind != "" && ref.Name != "":
		return ref.Kind + " " + ref.Name
	case ref.Kind != "":
		return fmt.Sprintf("%s (document %d)", ref.Kind, ref.Doc+1)
	case ref.Doc >= 0:
		return fmt.Sprintf("document %d", ref.Doc+1)
	}
	return "file"
}
