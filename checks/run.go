package checks

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/parallel"
)

// Input is one file to check: its path as it should appear in findings
// (slash-separated, relative to the checked root) and its content.
type Input struct {
	Path string
	Data []byte
	// Read, when Data is nil, reads the content when the file is parsed
	// (see List), into buf when buf is large enough (nil: a new buffer).
	Read func(buf []byte) ([]byte, error)
}

// parseInput parses one input, reading it first when it is lazy; a file
// that cannot be read becomes a finding for that file.
func parseInput(in Input, lim manifest.Limits) *manifest.File {
	data, unreadable := readInput(in, nil)
	if unreadable != nil {
		return unreadable
	}
	return manifest.Parse(in.Path, data, lim)
}

// readInput returns an input's content, reading a lazy input into buf when
// it is large enough; a file that cannot be read is returned as a file
// whose one problem says so.
func readInput(in Input, buf []byte) ([]byte, *manifest.File) {
	if in.Data != nil || in.Read == nil {
		return in.Data, nil
	}
	data, err := in.Read(buf)
	if err != nil {
		return nil, &manifest.File{Path: in.Path, Problems: []manifest.Problem{{
			RuleID: manifest.ProblemYAML, Doc: -1, Line: 1, Column: 1, Message: "file cannot be read: " + err.Error(),
		}}}
	}
	return data, nil
}

// Result is the outcome of one run.
type Result struct {
	// Files are the parsed files, in input order.
	Files []*manifest.File
	// Findings are sorted by file, line, column and rule.
	Findings []Finding
	// Objects counts the documents that were checked.
	Objects int
}

// Run parses every input (in parallel), evaluates every enabled rule on
// every object with all objects of the run as context, and returns the
// findings. Unreadable documents become findings; nothing stops the run.
func Run(inputs []Input, cfg *Config) *Result {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	files := ParseAll(inputs, cfg.ParseLimits())
	return Evaluate(files, cfg)
}

// RunLean is Run for callers that need only the findings (the check
// command): it holds far less memory on large runs. It consumes inputs:
// each input's bytes are let go once parsed, and so is the file's Source,
// unless a rule may read it (an ignore comment); node trees are packed
// (manifest.File.Pack) and typed values decoded only once every file is
// parsed; once the rules have run, Result.Files keep only their paths and
// counts. It is ParseLean, then EvaluateStream (which runs DecodeLean) with
// the findings collected.
func RunLean(inputs []Input, cfg *Config) *Result {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	files := ParseLean(inputs, cfg)
	var findings []Finding
	res := EvaluateStream(files, cfg, func(fs []Finding) { findings = append(findings, fs...) })
	res.Findings = findings
	return res
}

// ParseLean is RunLean's first step: it parses (and reads, when lazy) every
// input on every CPU, packs each file's trees and leaves the typed decodes
// pending (manifest.ParseDeferred), so what it holds is pointer-free and
// about half the size: the JSON of each object, not its typed value. The
// steps are apart so a caller can tune the garbage collector to each:
// parsing makes much short-lived garbage around a small live heap,
// decoding grows the heap, evaluating holds the most.
func ParseLean(inputs []Input, cfg *Config) []*manifest.File {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	lim := cfg.ParseLimits()
	files := make([]*manifest.File, len(inputs))
	parallel.For(len(inputs), func(i int) {
		buf := readBuffers.Get().(*[]byte)
		data, f := readInput(inputs[i], *buf)
		if f == nil {
			f = manifest.ParsePacked(inputs[i].Path, data, lim)
		}
		// A lazy file's text is in buf, which the next file reuses: only
		// the copy kept for ignore comments may outlive this step. The
		// packed trees and typed values hold copies of their strings.
		lazy := inputs[i].Data == nil
		inputs[i].Data = nil
		switch {
		case !needsSource(f):
			f.Source = nil
		case lazy:
			f.Source = bytes.Clone(f.Source)
		}
		if lazy && cap(data) > cap(*buf) && cap(data) <= maxPooledRead {
			*buf = data[:0] // a larger buffer, kept for the next file
		}
		readBuffers.Put(buf)
		files[i] = f
	})
	return files
}

// readBuffers hold the buffers ParseLean reads files into, one per worker
// in use: the corpus's 17 MB of text would otherwise be 17 MB of garbage,
// each buffer zeroed before it is read into.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledRead bounds a pooled read buffer: a larger file (a CRD bundle,
// mostly) gets a buffer of its own that is let go after it is parsed, so
// the pool never holds megabytes for the rest of the run.
const maxPooledRead = 256 << 10

// DecodeLean is RunLean's second step: it finishes the typed decodes
// ParseLean left pending, on every CPU.
func DecodeLean(files []*manifest.File) {
	manifest.DecodePendingFiles(files)
}

// EvaluateStream is RunLean's last step, for a report written as the run
// goes: it runs the rules over the files ParseLean returned (decoding what
// DecodeLean has not) and hands each file's findings to emit as soon as that
// file and every file before it are done, then lets them go. Findings come
// in the order Evaluate sorts them (by path, then line, column and rule),
// each file's with its ignores applied and its occurrences numbered; files
// that share a path are handed over together. emit is called on the
// calling goroutine, one file at a time. The returned Result has no
// Findings, and its Files keep only their paths and counts.
func EvaluateStream(files []*manifest.File, cfg *Config, emit func([]Finding)) *Result {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	DecodeLean(files)
	var objects []*manifest.Object
	for _, f := range files {
		objects = append(objects, f.Objects...)
	}
	ctx := NewContext(cfg, objects)
	rules := enabledRules(cfg)
	groups := groupByPath(files)
	findings := make([][]Finding, len(groups))
	done := make(chan int, len(groups))
	go func() {
		parallel.For(len(groups), func(g int) {
			findings[g] = evaluateFiles(ctx, rules, groups[g])
			done <- g
		})
		close(done)
	}()
	// Findings are handed over in path order: a file done early waits in
	// findings until every file before it is handed over.
	ready := make([]bool, len(groups))
	next := 0
	for g := range done {
		ready[g] = true
		for ; next < len(groups) && ready[next]; next++ {
			emit(findings[next])
			findings[next] = nil
		}
	}
	lean := make([]*manifest.File, len(files))
	for i, f := range files {
		lean[i] = &manifest.File{Path: f.Path, Docs: f.Docs, Skipped: f.Skipped}
	}
	return &Result{Files: lean, Objects: len(objects)}
}

// groupByPath returns the files ordered by path (input order among equal
// paths), files with the same path in one group: the order in which
// SortFindings lists their findings.
func groupByPath(files []*manifest.File) [][]*manifest.File {
	sorted := slices.Clone(files)
	slices.SortStableFunc(sorted, func(a, b *manifest.File) int { return strings.Compare(a.Path, b.Path) })
	var groups [][]*manifest.File
	for start := 0; start < len(sorted); {
		end := start + 1
		for end < len(sorted) && sorted[end].Path == sorted[start].Path {
			end++
		}
		groups = append(groups, sorted[start:end:end])
		start = end
	}
	return groups
}

// evaluateFiles runs the rules on every object of files (which share one
// path) and returns their findings, finished as Evaluate finishes them.
func evaluateFiles(ctx *Context, rules []*Rule, files []*manifest.File) []Finding {
	var findings []Finding
	var objects []*manifest.Object
	for _, f := range files {
		for _, p := range f.Problems {
			findings = append(findings, problemFinding(f, p))
		}
		objects = append(objects, f.Objects...)
	}
	for _, o := range objects {
		o.Hold() // a packed object's tree, inflated while its rules run
		findings = append(findings, evaluateObject(ctx, rules, o)...)
		o.Release()
	}
	return finishFindings(findings, files, objects, ctx.Config)
}

// needsSource reports whether the rules read a file's text besides its
// node trees: only for ignore comments (applyIgnores).
func needsSource(f *manifest.File) bool {
	return bytes.Contains(f.Source, []byte(IgnoreComment))
}

// ParseAll parses inputs on every CPU and returns the files in input order.
func ParseAll(inputs []Input, lim manifest.Limits) []*manifest.File {
	files := make([]*manifest.File, len(inputs))
	parallel.For(len(inputs), func(i int) {
		files[i] = parseInput(inputs[i], lim)
	})
	return files
}

// Evaluate runs the enabled rules over already-parsed files.
func Evaluate(files []*manifest.File, cfg *Config) *Result {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	var objects []*manifest.Object
	var findings []Finding
	for _, f := range files {
		objects = append(objects, f.Objects...)
		for _, p := range f.Problems {
			findings = append(findings, problemFinding(f, p))
		}
	}
	ctx := NewContext(cfg, objects)
	rules := enabledRules(cfg)
	perObject := make([][]Finding, len(objects))
	parallel.For(len(objects), func(i int) {
		objects[i].Hold() // a packed object's tree, inflated while its rules run
		perObject[i] = evaluateObject(ctx, rules, objects[i])
		objects[i].Release()
	})
	total := len(findings)
	for _, fs := range perObject {
		total += len(fs)
	}
	findings = slices.Grow(findings, total-len(findings))
	for _, fs := range perObject {
		findings = append(findings, fs...)
	}
	return &Result{Files: files, Findings: finishFindings(findings, files, objects, cfg), Objects: len(objects)}
}

// enabledRules returns the rules cfg turns on.
func enabledRules(cfg *Config) []*Rule {
	var rules []*Rule
	for _, r := range Rules() {
		if cfg.Enabled(r) {
			rules = append(rules, r)
		}
	}
	return rules
}

// finishFindings applies the ignore comments and annotations of files and
// objects to fs, then the config's severities, sorts the rest
// (SortFindings) and numbers their occurrences.
func finishFindings(fs []Finding, files []*manifest.File, objects []*manifest.Object, cfg *Config) []Finding {
	fs = applyIgnores(fs, files, objects)
	for i := range fs {
		if s := cfg.SeverityOf(fs[i].RuleID); s != 0 {
			fs[i].Severity = s
		}
	}
	SortFindings(fs)
	numberOccurrences(fs)
	return fs
}

// evaluateObject runs every rule on one object. A rule that panics is a bug
// in prodready, not in the input: it becomes a finding that says so, and the
// run goes on.
func evaluateObject(ctx *Context, rules []*Rule, obj *manifest.Object) (out []Finding) {
	for _, r := range rules {
		out = append(out, checkOne(ctx, r, obj)...)
	}
	return out
}

func checkOne(ctx *Context, r *Rule, obj *manifest.Object) (out []Finding) {
	defer func() {
		if p := recover(); p != nil {
			f := At(obj, nil, fmt.Sprintf("internal error in rule %s (please report it): %v", r.ID, p))
			f.RuleID, f.Severity = r.ID, Info
			out = []Finding{f}
		}
	}()
	out = r.Check(ctx, obj)
	for i := range out {
		out[i].RuleID = r.ID
		if out[i].Severity == 0 {
			out[i].Severity = r.Severity
		}
		if out[i].Fix != nil && fixCrossesAlias(obj, out[i].Fix) {
			// The edit would change an anchor shared with other places
			// (or cannot be made through an alias): report, do not fix.
			out[i].Fix = nil
		}
	}
	return out
}

func problemFinding(f *manifest.File, p manifest.Problem) Finding {
	fd := Finding{
		RuleID: p.RuleID, Severity: Error, File: f.Path,
		Line: p.Line, Column: p.Column, EndLine: p.Line,
		Message: p.Message, Object: ObjectRef{Doc: p.Doc},
	}
	if p.Object != nil {
		fd.Object = refOf(p.Object)
	}
	if fd.Line == 0 {
		fd.Line, fd.EndLine = 1, 1
	}
	if fd.Column == 0 {
		fd.Column = 1
	}
	return fd
}

// SortFindings orders findings by file, line, column, then rule.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j] // pointers: a Finding is too big to copy per comparison
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.RuleID < b.RuleID
	})
}

// Failed reports whether any finding is at or above the config's failOn.
func (r *Result) Failed(cfg *Config) bool { return cfg.Fails(r.Findings) }

// numberOccurrences sets Occurrence on findings that share a fingerprint,
// in file order, so every finding's fingerprint is unique. fs is sorted by
// file (SortFindings) and the file is part of the fingerprint, so each
// file's findings are numbered apart, with a map of that file's only.
func numberOccurrences(fs []Finding) {
	// Keyed by what Fingerprint hashes besides the file, without hashing:
	// equal keys are equal fingerprints.
	type key struct{ rule, kind, namespace, name, path, message string }
	seen := map[key]int{}
	for start := 0; start < len(fs); {
		end := start + 1
		for end < len(fs) && fs[end].File == fs[start].File {
			end++
		}
		clear(seen)
		for i := start; i < end; i++ {
			f := &fs[i]
			k := key{f.RuleID, f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Path, f.Message}
			f.Occurrence = seen[k]
			seen[k]++
		}
		start = end
	}
}

// fixCrossesAlias reports whether any edit's path passes through a YAML
// alias or merge key in obj, where a text edit would change what other
// places share.
func fixCrossesAlias(obj *manifest.Object, fx *Fix) bool {
	for _, op := range fx.Edits {
		if obj.PathCrossesAlias(op.Path...) {
			return true
		}
	}
	return false
}
