package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/plural"
)

// Stream writes a report in one of Formats while the findings arrive, in
// batches (checks.Run with Options.Emit hands over a file's at a time, a large
// file's in several), so a long run's findings are never held whole (junit
// holds what it needs of each finding until Close, github's step summary
// the rows that fit in it). The bytes are those Write gives for all the
// findings at once.
type Stream struct {
	w      *bufio.Writer
	format string
	opts   Options
	counts Counts
	array  jsonArray // json, sarif and codequality: the findings array
	// sarif's rule indexes, and the log's text after its results array.
	ruleIndex map[string]int
	sarifTail []byte
	github    githubAnnotations
	junit     []junitFinding
	text      textState
}

// Options say what a report holds besides the findings.
type Options struct {
	// Version is prodready's version, which the SARIF log names.
	Version string
	// Config names the config the run used, on the first line of the
	// text report ("config: .prodready.yaml"); "" writes no such line.
	Config string
	// StepSummary, in the github format, receives a Markdown summary of
	// every finding, for GitHub's job summary ($GITHUB_STEP_SUMMARY,
	// which shows what the annotations' cap leaves out); nil writes none.
	StepSummary io.Writer
	// Color colours the text formats (a terminal; NO_COLOR and --no-color
	// say otherwise).
	Color bool
	// Verbose, in the text format, names each file not checked under its
	// reason (otherwise they are counted by reason).
	Verbose bool
	// UnannotatedIn, in the github format, says where the findings over
	// GitHub's cap on annotations are listed when the caller lists them
	// itself ("the job summary"); "" says the job summary when StepSummary
	// is set, else prodready check -o text.
	UnannotatedIn string
}

// ListsObjects reports whether format names the objects without findings
// too, and so needs the run's checks.Result.Checked (checks.Options.ListObjects).
func ListsObjects(format string) bool { return format == "junit" }

// NewStream starts a report in format on w; Add then writes the findings
// and Close the rest. It fails only on an unknown format.
func NewStream(w io.Writer, format string, opts Options) (*Stream, error) {
	s := &Stream{w: bufio.NewWriterSize(w, 64<<10), format: format, opts: opts}
	switch format {
	case "", "text", "wide":
		if opts.Config != "" {
			s.w.WriteString(painter{opts.Color}.paint(ansiDim, "config: "+opts.Config) + "\n")
			s.text.started = true
		}
	case "compact", "github", "codequality", "junit":
	case "json":
		s.w.WriteString("{\n  \"findings\": ")
		s.array.depth = 1
	case "sarif":
		head, tail, depth, err := sarifFrame(opts.Version)
		if err != nil {
			return nil, err
		}
		s.w.Write(head)
		s.sarifTail, s.array.depth = tail, depth
		s.ruleIndex = map[string]int{}
		for i, r := range catalog.Default().Rules() {
			s.ruleIndex[r.ID] = i
		}
	default:
		return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	return s, nil
}

// Add writes the next findings.
func (s *Stream) Add(fs []checks.Finding) error {
	s.counts.add(fs)
	switch s.format {
	case "", "text":
		s.text.add(s.w, fs, painter{s.opts.Color})
	case "wide":
		writeText(s.w, fs)
	case "compact":
		writeCompact(s.w, fs)
	case "github":
		s.github.add(s.w, fs, s.opts.StepSummary != nil)
	case "junit":
		for _, f := range fs {
			s.junit = append(s.junit, holdForJUnit(f))
		}
	case "json":
		return s.array.add(s.w, len(fs), func(i int) any { return fs[i] })
	case "sarif":
		return s.array.add(s.w, len(fs), func(i int) any { return sarifResultOf(fs[i], s.ruleIndex) })
	case "codequality":
		return s.array.add(s.w, len(fs), func(i int) any { return codeQualityIssueOf(fs[i]) })
	}
	return nil
}

// NotChecked is a file a run read but did not check, and why: a chart's
// template when the chart was not rendered, a file over the size limit…
type NotChecked struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// NoObjectReason is why a file that holds no Kubernetes object was not
// checked.
const NoObjectReason = "holds no Kubernetes object (no document has a kind), so no rule checked it"

// NotCheckedOf lists the files of res that were not checked.
func NotCheckedOf(res *checks.Result) []NotChecked {
	var out []NotChecked
	for _, f := range res.Files {
		if f.Skipped != "" {
			out = append(out, NotChecked{Path: f.Path, Reason: f.Skipped})
		}
	}
	for _, p := range res.NoObject {
		out = append(out, NotChecked{Path: p, Reason: NoObjectReason})
	}
	return append(out, uncheckedOf(res.Unchecked)...)
}

// uncheckedOf lists what the rules could not check (a policy not evaluated,
// custom resources with no CRD) by file, one entry a file in first-seen
// order, its reasons each with its line and joined with "; ", so that a
// reader that keeps one entry a path loses none.
func uncheckedOf(us []checks.Unchecked) []NotChecked {
	var out []NotChecked
	at := map[string]int{}
	for _, u := range us {
		reason := u.Reason
		if u.At.Line > 0 {
			reason = fmt.Sprintf("line %d: %s", u.At.Line, reason)
		}
		if i, ok := at[u.At.File]; ok {
			out[i].Reason += "; " + reason
			continue
		}
		at[u.At.File] = len(out)
		out = append(out, NotChecked{Path: u.At.File, Reason: reason})
	}
	return out
}

// Close writes what follows the findings — the files not checked with
// their reasons (in every format), the text summary line, the JSON summary
// of files, objects and counts, the end of the SARIF log — and flushes the
// report. res gives the files and objects (its findings are not read);
// also are files not checked that res does not hold (a chart's template
// that rendered to nothing).
func (s *Stream) Close(res *checks.Result, also ...NotChecked) error {
	return s.close(res, len(res.Files), res.Kubernetes, uniquePaths(append(NotCheckedOf(res), also...)))
}

// CloseCounted is Close for a caller that holds no run's result, only its
// counts (a review): files and objects read and checked, and the files not
// checked with why.
func (s *Stream) CloseCounted(files, objects int, notChecked []NotChecked) error {
	return s.close(&checks.Result{}, files, objects, uniquePaths(slices.Clone(notChecked)))
}

// close writes the report's end for Close and CloseCounted: res gives what
// only a run has (exempted findings, JUnit's checked objects).
func (s *Stream) close(res *checks.Result, files, objects int, skipped []NotChecked) error {
	c := s.counts
	switch s.format {
	case "", "text":
		s.text.close(s.w, skipped, res.Exempted, summaryLine(files, objects, len(skipped), c), c, s.opts.Verbose, painter{s.opts.Color})
	case "wide", "compact":
		writeNotCheckedLines(s.w, skipped)
		writeExemptedLines(s.w, res.Exempted)
		s.w.WriteString(summaryLine(files, objects, len(skipped), c) + "\n")
	case "github":
		s.github.close(s.w, skipped, s.unannotatedIn())
		if s.opts.StepSummary != nil {
			if err := writeStepSummary(s.opts.StepSummary, s.github.summary, skipped, summaryLine(files, objects, len(skipped), c), s.opts.Config); err != nil {
				return fmt.Errorf("writing the step summary: %w", err)
			}
		}
	case "junit":
		if err := writeJUnit(s.w, s.junit, res, skipped); err != nil {
			return err
		}
	case "json":
		s.array.close(s.w)
		summary, err := json.MarshalIndent(jsonSummary{Files: files, Objects: objects, Counts: c, NotChecked: skipped, Exempted: exemptedOf(res)}, jsonIndent, jsonIndent)
		if err != nil {
			return err
		}
		s.w.WriteString(",\n  \"summary\": ")
		s.w.Write(summary)
		s.w.WriteString("\n}\n")
	case "sarif":
		s.array.close(s.w)
		if len(skipped) > 0 {
			inv, err := sarifInvocation(skipped, s.array.depth)
			if err != nil {
				return err
			}
			s.w.Write(inv)
		}
		s.w.Write(s.sarifTail)
		s.w.WriteByte('\n')
	case "codequality":
		for _, n := range skipped {
			if err := s.array.add(s.w, 1, func(int) any { return codeQualityNotChecked(n) }); err != nil {
				return err
			}
		}
		s.array.close(s.w)
		s.w.WriteByte('\n')
	}
	return s.w.Flush()
}

// Counts are the findings' counts so far.
func (s *Stream) Counts() Counts { return s.counts }

// SummaryOf is the text report's summary line for res with counts c:
// "2 files (1 not checked), 3 objects: 1 error, 2 warnings, 0 info".
func SummaryOf(res *checks.Result, c Counts) string {
	return summaryLine(len(res.Files), res.Kubernetes, len(uniquePaths(NotCheckedOf(res))), c)
}

// unannotatedIn is where the github format says the findings it does not
// annotate are listed.
func (s *Stream) unannotatedIn() string {
	switch {
	case s.opts.UnannotatedIn != "":
		return s.opts.UnannotatedIn
	case s.opts.StepSummary != nil:
		return "the job summary"
	}
	return "prodready check -o text"
}

// summaryLine is the text report's last line: "2 files (1 not checked),
// 3 objects: 1 error, 2 warnings, 0 info".
func summaryLine(files, objects, notChecked int, c Counts) string {
	skipped := ""
	if notChecked > 0 {
		skipped = fmt.Sprintf(" (%d not checked)", notChecked)
	}
	return fmt.Sprintf("%s%s, %s: %s, %s, %d info", plural.Count(files, "file", "files"), skipped, plural.Count(objects, "object", "objects"),
		plural.Count(c.Errors, "error", "errors"), plural.Count(c.Warnings, "warning", "warnings"), c.Infos)
}

// uniquePaths keeps the first entry of each path.
func uniquePaths(ns []NotChecked) []NotChecked {
	seen := map[string]bool{}
	out := ns[:0]
	for _, n := range ns {
		if !seen[n.Path] {
			seen[n.Path] = true
			out = append(out, n)
		}
	}
	return out
}
