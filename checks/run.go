package checks

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"path"
	"runtime"
	"runtime/debug"
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
	// ReadAt reads n bytes of the content from off again (a file's with
	// Read; a render's from the stream it keeps, with Data): a lean run
	// keeps no copy of a CRD's text once the file is parsed and reads it
	// there when a rule needs it (manifest.File.DropCRDTexts).
	ReadAt func(off, n int) ([]byte, error)
	// Parsed, when set, is the input already parsed (a cache's copy, made
	// with the same limits): the run takes it as it is.
	Parsed *manifest.File
	// Context marks a file read for what its objects tell the rules about
	// the others (the CRDs the config's crds names), never checked: the run
	// reports nothing in it and does not count it.
	Context bool
	// Dormant are, for a chart's render, the chart's templates that
	// render nothing with its values (Context.DormantTemplate), and
	// Sources, when there are any, the template each document (by its
	// index, ObjectRef.Doc) was rendered from.
	Dormant []Dormant
	Sources []string
}

// Dormant is a template of a rendered chart that renders nothing with the
// values it was rendered with: what the chart has, that its values leave
// out (a PodDisruptionBudget written under `{{- if .Values.pdb.enabled }}`).
type Dormant struct {
	// File is the template's path, as the run's findings name files.
	File string
	// Kinds are the kinds of object its text writes.
	Kinds []string
	// Guard is the action it opens with when that may leave it empty,
	// or "".
	Guard string
}

// Says is what a message says of d, for an object it writes that the
// rendered chart lacks: "the chart's templates/pdb.yaml writes one, but
// renders nothing with these values (it is written under `{{- if
// .Values.pdb.enabled }}`)".
func (d Dormant) Says() string {
	s := "the chart's " + d.File + " writes one, but renders nothing with these values"
	if d.Guard != "" {
		s += " (it is written under `" + d.Guard + "`)"
	}
	return s
}

// parseInput parses one input, reading it first when it is lazy; a file
// that cannot be read becomes a finding for that file.
func parseInput(in Input, lim manifest.Limits) *manifest.File {
	if in.Parsed != nil {
		return in.Parsed
	}
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
	// Kubernetes counts the checked documents that are Kubernetes objects
	// (they have a kind); Objects less Kubernetes are mappings such as a
	// chart's values.
	Kubernetes int
	// NoObject are the files that parsed but hold no Kubernetes object and
	// are not read as anything else (a chart's Chart.yaml or values, a
	// kustomization): no rule checked them.
	NoObject []string
	// ValuesFiles counts the files that hold no Kubernetes object but that
	// the config's helmValues names: the rules that read chart values
	// checked them, so a run of them alone checked something.
	ValuesFiles int
	// Checked lists, by file path, the Kubernetes objects checked, in file
	// order, when Options.ListObjects asks for them: for a report that
	// names the objects without findings too (JUnit).
	Checked map[string][]ObjectRef
	// Unchecked are what the rules could not check, with why (Rule.Unchecked),
	// in catalog order.
	Unchecked []Unchecked
	// Exempted are the findings an exception of the repository exempts
	// (Rule.Exempted), in catalog order: the cluster admits those objects.
	Exempted []Exempted
	// Silenced are the findings an ignore comment or annotation silenced,
	// with the ignore (sorted like Findings; numbered apart from them).
	// Only a run that keeps its findings (not Options.Emit, not Lean)
	// lists them.
	Silenced []Silenced
	// Lean holds the findings of a run with Options.LeanFindings, in
	// Findings' order, instead of Findings; nil in any other run.
	Lean *LeanFindings
}

// Silenced is one finding an ignore silenced, and the ignore.
type Silenced struct {
	Finding Finding
	// File and Line are where the ignore is (1-based): the comment's line,
	// or the line of the object's or pod template's annotation.
	File string
	Line int
	// By is the ignore as written: "# prodready:ignore rule reason" or
	// "prodready.dev/ignore: rule".
	By string
}

// Memory says what a run keeps of the files it parses.
type Memory int

const (
	// KeepTrees keeps every file's node trees, text and typed values in
	// Result.Files, for callers that use them after the run (fix, tests).
	KeepTrees Memory = iota
	// PackTrees packs each document's node tree as soon as it is parsed:
	// the same findings and Result.Files in about half the memory, a tree
	// inflated only while its rules run. For callers that keep the parsed
	// files (the bot's parse cache).
	PackTrees
	// Lean is for callers that need only the findings (check): it holds
	// far less memory on large runs. Each input's bytes are let go once it
	// is parsed, and so is its file's text unless an ignore comment needs
	// it; trees are packed and typed values decoded only once every file
	// is parsed; once the rules have run, Result.Files keep only their
	// paths and counts.
	Lean
)

// Options say how a run holds its work and hands over its findings. The
// zero value keeps everything and returns every finding in Result.
type Options struct {
	// Memory is what the run keeps of the parsed files.
	Memory Memory
	// Emit, when set, receives the findings as they are done, in the order
	// Result.Findings would list them, on the calling goroutine: a path's
	// findings (several paths' files with one path together), or a share
	// of a large file's (a rendered chart), as soon as they and every
	// finding before them are done. They are let go after Emit returns:
	// Result.Findings is empty, and Result.Files keep only paths and counts.
	Emit func([]Finding)
	// ListObjects fills Result.Checked.
	ListObjects bool
	// PaceGC paces the garbage collector to each phase of the run (unless
	// GOGC is set in the environment), and restores it after. It sets a
	// process-wide setting: for a process that runs one check at a time
	// (the CLI), never for a server running several.
	PaceGC bool
	// Memo, when set, keeps the findings of rules that read only their
	// object across runs, and recalls them for an object it has seen
	// (see Memo): a server's reviews of one repository, push after push.
	Memo Memo
	// NoFixes leaves every finding without its fix (Finding.Fix nil), in
	// Result.Findings, Result.Silenced and what Emit receives, each let go
	// as soon as its object's rules have run: for a run whose findings are
	// only compared by identity (a review's base, which a review lists
	// only as fixed, without a fix). A memo still learns them with their
	// fixes. The findings are otherwise the same.
	NoFixes bool
	// LeanFindings hands the findings over in Result.Lean, each held
	// where the run found it (see LeanFindings), not copied into
	// Result.Findings, which is empty: for a review's head, which makes a
	// Finding of only those it reports. Only a run that keeps its
	// findings whole does (not Emit, not Memory Lean, not NoFixes); the
	// others ignore it.
	LeanFindings bool
}

// The collector's percentages per phase when Options.PaceGC is set.
// Parsing makes much short-lived garbage (node trees, packed as soon as
// built) around a small, pointer-free live heap: collecting at 150% growth
// spends less CPU there. Decoding turns the packed trees into typed values
// while the parse's garbage is still on the heap: 60% keeps the two from
// adding up to the run's peak. Evaluating holds every object, and each
// file's findings only until they are handed over: 40%. On the corpus,
// parsing at 120% takes 3 MiB more off the peak but costs 3% more time;
// lower percentages trade more CPU for little.
const (
	parseGCPercent    = 150
	decodeGCPercent   = 60
	evaluateGCPercent = 40
)

// A file of largeParseBytes or more (the output of kustomize build or
// helm template piped in one stream) is held whole while its documents
// are parsed on every CPU, and its packed trees pile up with it: from the
// first such file the parse collects at largeParseGCPercent, as 150% of a
// live heap that large is more memory than the garbage it saves collecting
// is worth, and once parsed the run hands the parse's free pages back to
// the system (debug.FreeOSMemory) before the rules fill the heap again.
// On 50,000 generated objects in one 24 MB stream the parse set the run's
// peak (the heap at 2.5 times a live heap of about 100 MB) and the rules
// ran on top of the pages it left: bench-scale's JSON one stream took
// 291.8 MiB at the peak against 304.6, for 1.07 times the CPU (paging the
// heap in again; medians of 4 pairs, load 6 to 7). The corpus's largest
// file is 3.8 MB.
const (
	largeParseBytes     = 8 << 20
	largeParseGCPercent = 100
)

// Run parses every input (in parallel; an input with Parsed set is taken as
// it is), evaluates every rule cfg enables on every object with all objects
// of the run as context, and returns the findings. Unreadable documents
// become findings; nothing stops the run. cfg must not be nil.
func Run(inputs []Input, cfg *Config, opts Options) *Result {
	// GOGC in the environment is the user's pacing: the run then neither
	// changes the percentage nor hands pages back.
	paced := opts.PaceGC && os.Getenv("GOGC") == ""
	pace := func(int) {}
	if paced {
		defer debug.SetGCPercent(debug.SetGCPercent(parseGCPercent))
		pace = func(p int) { debug.SetGCPercent(p) }
	}
	var files []*manifest.File
	switch opts.Memory {
	case Lean:
		var once sync.Once
		large := false
		files = parseLean(inputs, cfg, func() { once.Do(func() { large = true; pace(largeParseGCPercent) }) })
		if large && paced {
			debug.FreeOSMemory()
		}
	case PackTrees:
		files = parseAllPacked(inputs, cfg.ParseLimits())
	default:
		files = parseAll(inputs, cfg.ParseLimits())
	}
	files, extra := splitContext(inputs, files)
	pace(decodeGCPercent)
	dropTyped := dropsTyped(inputs, files, opts)
	holdTyped := holdsTyped(files, opts)
	if holdTyped {
		manifest.DecodePendingFilesDropping(files, indexedByContext)
	} else {
		decodeLean(files, dropTyped)
	}
	decodeLean(extra, false)
	pace(evaluateGCPercent)
	var checked map[string][]ObjectRef
	if opts.ListObjects {
		checked = CheckedObjects(files) // before a lean run lets the objects go
	}
	dormant := templatesByInput(inputs)
	var res *Result
	switch {
	case opts.Emit != nil:
		emit := opts.Emit
		if opts.NoFixes {
			emit = func(fs []Finding) { emit(withoutFixes(fs)) }
		}
		res = evaluateStream(files, extra, cfg, dormant, opts.Memo, dropTyped, emit)
	case opts.Memory == Lean:
		var findings []Finding
		res = evaluateStream(files, extra, cfg, dormant, opts.Memo, dropTyped, func(fs []Finding) { findings = append(findings, fs...) })
		res.Findings = findings
	default:
		res = evaluate(files, extra, cfg, dormant, opts.Memo, opts.NoFixes, holdTyped, opts.LeanFindings && !opts.NoFixes)
	}
	if opts.NoFixes {
		withoutFixes(res.Findings)
		for i := range res.Silenced {
			res.Silenced[i].Finding.Fix = nil
		}
	}
	res.Checked = checked
	return res
}

// templatesByInput returns, by path, what the inputs that have dormant
// templates say of them, nil when none has any.
func templatesByInput(inputs []Input) map[string]*templates {
	var out map[string]*templates
	for _, in := range inputs {
		if len(in.Dormant) > 0 {
			if out == nil {
				out = map[string]*templates{}
			}
			out[in.Path] = &templates{dormant: in.Dormant, sources: in.Sources}
		}
	}
	return out
}

// withoutFixes sets every finding of fs without its fix (Options.NoFixes)
// and returns fs.
func withoutFixes(fs []Finding) []Finding {
	for i := range fs {
		fs[i].Fix = nil
	}
	return fs
}

// dropTypedFrom is the number of checked objects from which a run lets
// typed values go (dropsTyped). Held, typed values cost about 1.7 KiB an
// object: under 17 MiB below this, while decoding them again costs a run of
// the plain corpus (3,421 objects) 8% more CPU and, with the garbage it
// makes, a few MiB more at the peak than holding them.
var dropTypedFrom = 10_000

// dropsTyped says whether a run holds each object's typed value only
// while the rules of the unit it is in run (evaluateStream): a run that
// streams (Emit) or is lean, parsed every object itself, so no other run
// shares them (a cache's parses, Input.Parsed), and keeps no memo, which
// recalls findings by object across runs; and only from dropTypedFrom
// objects on, since decoding a let-go value again costs CPU that a smaller
// run need not pay for memory it can afford.
func dropsTyped(inputs []Input, files []*manifest.File, opts Options) bool {
	if opts.Memo != nil || (opts.Emit == nil && opts.Memory != Lean) {
		return false
	}
	n := 0
	for _, f := range files {
		n += len(f.Objects)
	}
	if n < dropTypedFrom {
		return false
	}
	for _, in := range inputs {
		if in.Parsed != nil {
			return false
		}
	}
	return true
}

// holdsTyped says whether a run that keeps its files packed (PackTrees: the
// bot's parse cache) holds the typed values that its Context does not index
// (all but Services, PDBs and HPAs: indexedByContext) only while the rules
// of their file run (evaluate), from dropTypedFrom objects on: each is let
// go once decoded, decoded again when its file's rules run and let go
// after, as the cache lets them go after the run anyway
// (DropTypedValues). At 50,000 objects a review's base run held every
// Deployment's typed value, some 50 MiB, until it ended.
func holdsTyped(files []*manifest.File, opts Options) bool {
	if opts.Memory != PackTrees || opts.Emit != nil {
		return false
	}
	n := 0
	for _, f := range files {
		n += len(f.Objects)
	}
	return n >= dropTypedFrom
}

// splitContext splits the parsed files of inputs into those the run
// checks and those it only reads (Input.Context).
func splitContext(inputs []Input, files []*manifest.File) (checked, context []*manifest.File) {
	for i, f := range files {
		if i < len(inputs) && inputs[i].Context {
			context = append(context, f)
		} else {
			checked = append(checked, f)
		}
	}
	if context == nil {
		return files, nil
	}
	return checked, context
}

// objectsOf lists the objects of files, in order.
func objectsOf(files []*manifest.File) []*manifest.Object {
	var out []*manifest.Object
	for _, f := range files {
		out = append(out, f.Objects...)
	}
	return out
}

// CheckedObjects lists the Kubernetes objects of files by path, in file
// order: those Result.Kubernetes counts.
func CheckedObjects(files []*manifest.File) map[string][]ObjectRef {
	out := map[string][]ObjectRef{}
	for _, f := range files {
		for _, o := range f.Objects {
			if o.Kind != "" && !IsKustomization(o) {
				out[f.Path] = append(out[f.Path], RefOf(o))
			}
		}
	}
	return out
}

// runLean is Run for callers that need only the findings (the check
// command): it holds far less memory on large runs. It consumes inputs:
// each input's bytes are let go once parsed, and so is the file's Source,
// unless a rule may read it (an ignore comment); node trees are packed
// (manifest.ParsePacked) and typed values decoded only once every file is
// parsed; once the rules have run, Result.Files keep only their paths and
// counts. It is parseLean, then evaluateStream (which runs decodeLean) with
// the findings collected.
func runLean(inputs []Input, cfg *Config) *Result {
	files, extra := splitContext(inputs, parseLean(inputs, cfg, func() {}))
	var findings []Finding
	res := evaluateStream(files, extra, cfg, templatesByInput(inputs), nil, dropsTyped(inputs, files, Options{Memory: Lean}), func(fs []Finding) { findings = append(findings, fs...) })
	res.Findings = findings
	return res
}

// parseLean is runLean's first step: it parses (and reads, when lazy) every
// input on every CPU, packing each document's tree as it is parsed, and
// leaves the typed decodes pending (manifest.ParsePacked), so what it
// holds is the packed trees, pointer-free, and little else. The steps are
// apart so a caller can tune the garbage collector to each: parsing makes
// much short-lived garbage around a small live heap, decoding grows the
// heap, evaluating holds the most. onLarge is called when a file of
// largeParseBytes or more is read, before it is parsed.
func parseLean(inputs []Input, cfg *Config, onLarge func()) []*manifest.File {
	lim := cfg.ParseLimits()
	files := make([]*manifest.File, len(inputs))
	// large holds the buffers of files over maxPooledRead for the rest of
	// this parse only: the next large file is read into one of them, not
	// into new memory (each new page a fault, and garbage at the parse's
	// 150%), and none outlives the parse.
	var large sync.Pool
	parallel.For(len(inputs), func(i int) {
		if inputs[i].Parsed != nil {
			files[i] = inputs[i].Parsed
			return
		}
		buf := readBuffers.Get().(*[]byte)
		big, _ := large.Get().(*[]byte)
		into := *buf
		if big != nil {
			into = *big
		}
		lazy := inputs[i].Data == nil
		data, f := readInput(inputs[i], into)
		if len(data) >= largeParseBytes {
			onLarge()
		}
		// A lazy file's text is in buf, which the next file reuses: only
		// the copy kept for ignore comments may outlive this step. The
		// packed trees and typed values hold copies of their strings, and
		// a CRD's text is read again (from the file, or from the render's
		// stream) when it is needed.
		switch {
		case f != nil:
		case inputs[i].ReadAt != nil:
			f = manifest.ParsePackedDroppingCRDTexts(inputs[i].Path, data, lim, inputs[i].ReadAt)
		default:
			f = manifest.ParsePacked(inputs[i].Path, data, lim)
		}
		inputs[i].Data = nil
		switch {
		case !needsSource(f):
			f.Source = nil
		case lazy:
			f.Source = bytes.Clone(f.Source)
		}
		switch {
		case lazy && cap(data) > maxPooledRead:
			if big == nil {
				big = new([]byte)
			}
			if cap(data) > cap(*big) {
				*big = data[:0]
			}
		case lazy && cap(data) > cap(*buf):
			*buf = data[:0] // a larger buffer, kept for the next file
		}
		if big != nil {
			large.Put(big)
		}
		readBuffers.Put(buf)
		files[i] = f
	})
	return files
}

// readBuffers hold the buffers parseLean reads files into, one per worker
// in use: the corpus's 17 MB of text would otherwise be 17 MB of garbage,
// each buffer zeroed before it is read into.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledRead bounds a pooled read buffer: a larger file (a CRD bundle
// or a rendered chart, mostly) gets a buffer of its own that is let go
// after it is parsed, so the pool holds little for the rest of the run
// (most manifests are a few kilobytes).
const maxPooledRead = 64 << 10

// decodeLean is runLean's second step: it finishes the typed decodes
// parseLean left pending, on every CPU; with dropTyped it lets each value
// go once decoded, as evaluateStream with dropTyped reads them.
func decodeLean(files []*manifest.File, dropTyped bool) {
	if dropTyped {
		manifest.DecodePendingFilesDropping(files, indexedByContext)
		return
	}
	manifest.DecodePendingFiles(files)
}

// evaluateStream is runLean's last step, for a report written as the run
// goes: it runs the rules over the files parseLean returned (decoding what
// decodeLean has not) and hands findings to emit in the order evaluate
// sorts them (by path, then line, column and rule), each file's with its
// ignores applied and its occurrences numbered, as soon as they and every
// finding before them are done; then it lets them go. A batch holds the
// findings of one path (files that share a path are handed over together);
// a file of many objects (a rendered chart) comes in several batches, so it
// is neither evaluated on one CPU nor held whole. With dropTyped (files
// decoded by decodeLean with it), each object's typed value is decoded
// again from its packed tree while its unit's rules run and let go after;
// a rule reading another object's decodes it for that read. The run never
// holds every object's typed value at once. emit is called on the calling goroutine, one batch at a time. The returned Result has no
// Findings, and its Files keep only their paths and counts.
func evaluateStream(files, extra []*manifest.File, cfg *Config, dormant map[string]*templates, memo Memo, dropTyped bool, emit func([]Finding)) *Result {
	decodeLean(files, dropTyped)
	decodeLean(extra, false)
	objects := objectsOf(files)
	ctx := NewContext(cfg, append(objectsOf(files), objectsOf(extra)...))
	ctx.memo, ctx.dormant = memo, dormant
	rules := enabledRules(cfg)
	units := evaluationUnits(groupByPath(files))
	findings := make([][]Finding, len(units))
	done := make(chan int, len(units))
	ahead := newWindow(unitsAhead * runtime.GOMAXPROCS(0))
	go func() {
		parallel.For(len(units), func(u int) {
			ahead.wait(u)
			if dropTyped {
				for _, o := range units[u].objects {
					o.HoldTyped()
				}
			}
			findings[u] = units[u].evaluate(ctx, rules)
			if dropTyped {
				for _, o := range units[u].objects {
					o.ReleaseTyped()
				}
			}
			done <- u
		})
		close(done)
	}()
	// Findings are handed over in order: a unit done early waits in
	// findings until every unit before it is handed over. Within a file,
	// a unit's findings on or after the line where the next unit starts
	// wait for it (only a YAML error can fall there).
	ready := make([]bool, len(units))
	next := 0
	var carried []Finding
	occurrences := streamOccurrences{path: occurrenceCounter{}, batch: occurrenceCounter{}}
	for u := range done {
		ready[u] = true
		for ; next < len(units) && ready[next]; next++ {
			batch := mergeSorted(carried, findings[next])
			findings[next] = nil
			cut := len(batch)
			if below := units[next].nextLine; below > 0 {
				cut = sort.Search(len(batch), func(i int) bool { return batch[i].Line >= below })
			}
			batch, carried = batch[:cut], slices.Clone(batch[cut:])
			occurrences.unique = units[next].unique
			occurrences.number(batch)
			emit(batch)
			if units[next].nextLine == 0 { // the path's last unit
				clear(occurrences.path)
			}
		}
		ahead.handedOver(next)
	}
	lean := make([]*manifest.File, len(files))
	for i, f := range files {
		lean[i] = &manifest.File{Path: f.Path, Docs: f.Docs, Skipped: f.Skipped}
	}
	res := &Result{Files: lean, Objects: len(objects), Unchecked: unchecked(ctx, rules), Exempted: exempted(ctx, rules)}
	res.Kubernetes, res.NoObject, res.ValuesFiles = countKubernetes(files, cfg)
	return res
}

// unitsAhead is how many units per CPU the rules may run ahead of the
// report: a report slower than the rules (JSON and SARIF encode every
// finding) would otherwise leave every finding done early waiting in
// memory for it, the run's findings all held by its end.
const unitsAhead = 4

// window lets unit u start only once every unit before u less its size is
// handed over. Units are taken in order, so the next unit to hand over
// never waits, whatever the others hold.
type window struct {
	mu     sync.Mutex
	cond   *sync.Cond
	size   int
	handed int // units handed over so far
}

func newWindow(size int) *window {
	w := &window{size: size}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// wait blocks until unit u may start.
func (w *window) wait(u int) {
	w.mu.Lock()
	for u >= w.handed+w.size {
		w.cond.Wait()
	}
	w.mu.Unlock()
}

// handedOver records that the units before n are handed over.
func (w *window) handedOver(n int) {
	w.mu.Lock()
	w.handed = n
	w.mu.Unlock()
	w.cond.Broadcast()
}

// unchecked gathers what rules could not check in ctx's run. A rule that
// panics is a bug in prodready: it is said as something not checked.
func unchecked(ctx *Context, rules []*Rule) []Unchecked {
	var out []Unchecked
	for _, r := range rules {
		if r.Unchecked == nil {
			continue
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					out = append(out, Unchecked{At: Finding{RuleID: r.ID, Line: 1, Column: 1, EndLine: 1, Object: ObjectRef{Doc: -1}}, Reason: fmt.Sprintf("internal error in rule %s (please report it): %v", r.ID, p)})
				}
			}()
			out = append(out, r.Unchecked(ctx)...)
		}()
	}
	return out
}

// exempted asks each rule that can say so which of its findings an
// exception in the repository exempts.
func exempted(ctx *Context, rules []*Rule) []Exempted {
	var out []Exempted
	for _, r := range rules {
		if r.Exempted != nil {
			out = append(out, r.Exempted(ctx)...)
		}
	}
	return out
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

// evaluationUnit is one share of evaluateStream's work: the objects of a
// group of files that share a path, or a run of the objects of one file
// that has many.
type evaluationUnit struct {
	files   []*manifest.File   // the group's files
	objects []*manifest.Object // the objects this unit evaluates
	ignores *ignores           // the group's, shared by its units
	// unique holds the identities of the group's objects that no other of
	// its objects has (see streamOccurrences), shared by its units.
	unique map[objectIdentity]bool
	// The unit reports the problems of documents firstDoc ≤ Doc < endDoc.
	firstDoc, endDoc int
	// nextLine is the line the next unit of the same file starts on (its
	// first object's first line), 0 for a path's last unit: every finding
	// of the next units is on that line or after it.
	nextLine int
}

// unitObjects is how many objects of one file a unit evaluates: a file
// with more is split, so that its objects are spread over every CPU and
// its findings handed over as they are done.
const unitObjects = 32

// evaluationUnits turns groups of files into units of work, in the order
// their findings are handed over.
func evaluationUnits(groups [][]*manifest.File) []evaluationUnit {
	var units []evaluationUnit
	for _, files := range groups {
		var objects []*manifest.Object
		for _, f := range files {
			objects = append(objects, f.Objects...)
		}
		ig := newIgnores(files, objects)
		if len(files) > 1 || len(objects) <= 2*unitObjects {
			units = append(units, evaluationUnit{files: files, objects: objects, ignores: ig, firstDoc: math.MinInt, endDoc: math.MaxInt})
			continue
		}
		unique := uniqueIdentities(objects)
		for start := 0; start < len(objects); start += unitObjects {
			end := min(start+unitObjects, len(objects))
			u := evaluationUnit{files: files, objects: objects[start:end], ignores: ig, unique: unique, firstDoc: math.MinInt, endDoc: math.MaxInt}
			if start > 0 {
				u.firstDoc = objects[start].Doc
			}
			if end < len(objects) {
				u.endDoc, u.nextLine = objects[end].Doc, objects[end].StartLine
			}
			units = append(units, u)
		}
	}
	return units
}

// evaluate runs the rules on the unit's objects and returns their findings
// and the problems of its documents, with ignores applied and severities
// set, sorted (evaluateStream numbers occurrences as it hands them over).
func (u *evaluationUnit) evaluate(ctx *Context, rules []*Rule) []Finding {
	var findings []Finding
	for _, f := range u.files {
		for _, p := range f.Problems {
			if p.Doc >= u.firstDoc && p.Doc < u.endDoc && problemReported(ctx.Config, p) {
				findings = append(findings, problemFinding(f, p))
			}
		}
		if u.firstDoc == math.MinInt { // a file's first unit: its comments
			findings = append(findings, ignoreCommentFindings(f, ctx.Config)...)
		}
	}
	for _, o := range u.objects {
		if ctx.memo != nil {
			findings = evaluateMemo(findings, ctx, rules, o)
			continue
		}
		o.Hold() // a packed object's tree, inflated while its rules run
		findings = evaluateObject(findings, ctx, rules, o)
		o.Release()
	}
	findings = u.ignores.apply(findings)
	setSeverities(findings, ctx.Config)
	SortFindings(findings)
	return findings
}

// mergeSorted merges two runs sorted by SortFindings into one, a's first
// among equals: what SortFindings makes of a followed by b.
func mergeSorted(a, b []Finding) []Finding {
	if len(a) == 0 {
		return b
	}
	out := make([]Finding, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if findingLess(&b[0], &a[0]) {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// needsSource reports whether the rules read a file's text besides its
// node trees: only for ignore comments (ignores).
func needsSource(f *manifest.File) bool {
	return bytes.Contains(f.Source, []byte(IgnoreComment))
}

// parseAll parses inputs on every CPU and returns the files in input order.
func parseAll(inputs []Input, lim manifest.Limits) []*manifest.File {
	files := make([]*manifest.File, len(inputs))
	parallel.For(len(inputs), func(i int) {
		files[i] = parseInput(inputs[i], lim)
	})
	return files
}

// parseAllPacked is parseAll with every document's node tree packed as
// soon as it is parsed (manifest.ParsePacked) and the typed values decoded
// after, on every CPU: files as a cache keeps them, made without ever
// holding a large file's unpacked trees all at once.
func parseAllPacked(inputs []Input, lim manifest.Limits) []*manifest.File {
	files := make([]*manifest.File, len(inputs))
	parallel.For(len(inputs), func(i int) {
		if inputs[i].Parsed != nil {
			files[i] = inputs[i].Parsed
			return
		}
		data, unreadable := readInput(inputs[i], nil)
		if unreadable != nil {
			files[i] = unreadable
			return
		}
		files[i] = manifest.ParsePacked(inputs[i].Path, data, lim)
	})
	manifest.DecodePendingFiles(files)
	return files
}

// evaluate runs the enabled rules over already-parsed files, with the
// objects of extra (Input.Context) in their context.
func evaluate(files, extra []*manifest.File, cfg *Config, dormant map[string]*templates, memo Memo, noFixes, holdTyped, lean bool) *Result {
	n := 0
	for _, f := range files {
		n += len(f.Objects)
	}
	// Sized once: grown, the list was 1.7 MB of a push at 50,000 objects.
	objects := make([]*manifest.Object, 0, n)
	for _, f := range files {
		objects = append(objects, f.Objects...)
	}
	// The files' problems and ignore comments, and the ignores the run's
	// findings are split by at its end, are read on another core while
	// NewContext builds its indexes: on one core after each other they
	// were some 40 ms of a push's wall time at 50,000 objects. Both only
	// read the files and objects; so does the count of the files'
	// Kubernetes objects (5-10 ms after the rules).
	var findings []Finding
	var ig *ignores
	res := &Result{Files: files, Objects: len(objects)}
	read := parallel.Go(func() {
		res.Kubernetes, res.NoObject, res.ValuesFiles = countKubernetes(files, cfg)
		for _, f := range files {
			for _, p := range f.Problems {
				if problemReported(cfg, p) {
					findings = append(findings, problemFinding(f, p))
				}
			}
			findings = append(findings, ignoreCommentFindings(f, cfg)...)
		}
		ig = newIgnores(files, objects)
	})
	ctx := NewContext(cfg, append(slices.Clone(objects), objectsOf(extra)...))
	read()
	ctx.memo, ctx.dormant = memo, dormant
	rules := enabledRules(cfg)
	prebuild(ctx, rules)
	// An object whose findings are all recalled hands over the memo's
	// slices, copied once, into findings: on a push nearly every object's
	// are, and copying each into a slice of its own first was 67 MB of the
	// 477 MB a push allocated at 50,000 objects.
	perObject := make([][]Finding, len(objects))
	recalled := make([]*Remembered, len(objects))
	one := func(i int) {
		if noFixes {
			// Its fixes are let go now, not when the run ends: at 50,000
			// objects a review's base held some 100 MB of edits until then.
			defer func() { withoutFixes(perObject[i]) }()
		}
		if memo != nil {
			if recalled[i], perObject[i] = recallAll(nil, ctx, rules, objects[i]); recalled[i] != nil {
				return
			}
			if noFixes {
				// Its findings are read from what the memo keeps (lean,
				// their strings held once), as a recalled object's are,
				// and only those of the rules that read more are held
				// apart: Run drops every fix at the end.
				recalled[i], perObject[i] = evaluateMemoKept(nil, ctx, rules, objects[i], false)
				return
			}
			perObject[i] = evaluateMemo(nil, ctx, rules, objects[i])
			return
		}
		objects[i].Hold() // a packed object's tree, inflated while its rules run
		perObject[i] = evaluateObject(nil, ctx, rules, objects[i])
		objects[i].Release()
	}
	if holdTyped {
		// A share of one file's objects at a time, their typed values
		// held while their rules run (holdsTyped): the rules of a file's
		// objects read each other's (a PDB's rules, its Deployment's).
		shares := typedShares(objects)
		parallel.For(len(shares)-1, func(s int) {
			held := objects[shares[s]:shares[s+1]]
			for _, o := range held {
				if !indexedByContext(o) {
					o.HoldTyped()
				}
			}
			for i := shares[s]; i < shares[s+1]; i++ {
				one(i)
			}
			for _, o := range held {
				if !indexedByContext(o) {
					o.ReleaseTyped()
				}
			}
		})
	} else {
		parallel.For(len(objects), one)
	}
	res.Unchecked, res.Exempted = unchecked(ctx, rules), exempted(ctx, rules)
	if lean {
		res.Lean, res.Silenced = finishLean(leanRefs(findings, recalled, perObject), ig, cfg)
		return res
	}
	// Each object's findings go to their place, found by counting first,
	// on every CPU: on a push this copy of 150,000 findings (30 MB) ran on
	// one core for about a tenth of the review's wall time.
	at := findingPlaces(len(findings), recalled, perObject)
	findings = slices.Grow(findings, at[len(perObject)]-len(findings))[:at[len(perObject)]]
	parallel.For(len(perObject), func(i int) {
		out := findings[at[i]:at[i]:at[i+1]] // appends stay in the object's place
		if recalled[i] != nil {
			out = recalled[i].appendTo(out)
		}
		_ = append(out, perObject[i]...)
	})
	res.Findings, res.Silenced = finishFindings(findings, ig, cfg)
	return res
}

// findingPlaces returns where each object's findings start in a run's
// order, after first findings that come before any object's, and their
// end last: object i's are those recalled[i] recalls, then perObject[i].
func findingPlaces(first int, recalled []*Remembered, perObject [][]Finding) []int {
	at := make([]int, len(perObject)+1)
	at[0] = first
	for i, fs := range perObject {
		at[i+1] = at[i] + len(fs)
		if recalled[i] != nil {
			at[i+1] += recalled[i].count()
		}
	}
	return at
}

// leanRefs refers to the findings of a run in evaluate's order: first,
// then each object's recalled and then its others, in their places, found
// by counting first (findingPlaces), on every CPU.
func leanRefs(first []Finding, recalled []*Remembered, perObject [][]Finding) []leanRef {
	at := findingPlaces(len(first), recalled, perObject)
	refs := make([]leanRef, at[len(perObject)])
	for i := range first {
		refs[i] = refOfFull(&first[i])
	}
	parallel.For(len(perObject), func(i int) {
		out := refs[at[i]:at[i]]
		if r := recalled[i]; r != nil {
			out = r.findings.appendRefs(out)
		}
		for j := range perObject[i] {
			out = append(out, refOfFull(&perObject[i][j]))
		}
	})
	return refs
}

// typedShares cuts objects into runs of one file's objects, at most
// unitObjects each (as evaluationUnits does), and returns where each
// starts, and len(objects) last.
func typedShares(objects []*manifest.Object) []int {
	starts := []int{0}
	for i := 1; i < len(objects); i++ {
		if objects[i].File != objects[i-1].File || i-starts[len(starts)-1] >= unitObjects {
			starts = append(starts, i)
		}
	}
	return append(starts, len(objects))
}

// countKubernetes counts the Kubernetes objects of files (documents with a
// kind) and lists the files that parsed, hold none, and are not read as a
// chart's Chart.yaml or values file (a name with "values" in it) or as a
// kustomization.
func countKubernetes(files []*manifest.File, cfg *Config) (n int, none []string, values int) {
	for _, f := range files {
		kube := 0
		other := len(f.Problems) > 0 || f.Skipped != "" || len(f.Objects) == 0
		for _, o := range f.Objects {
			switch {
			case IsKustomization(o):
				other = true
			case o.Kind != "":
				kube++
			}
		}
		n += kube
		base := strings.ToLower(path.Base(f.Path))
		named := kube == 0 && len(f.Objects) > 0 && cfg.NamesValues(f.Path)
		if named {
			values++
		}
		if kube == 0 && !other && !named && !strings.HasPrefix(base, "chart.") && !strings.Contains(base, "values") {
			none = append(none, f.Path)
		}
	}
	return n, none, values
}

// enabledRules returns the rules cfg turns on.
func enabledRules(cfg *Config) []*Rule {
	var rules []*Rule
	for _, r := range cfg.catalog.Rules() {
		if cfg.Enabled(r) {
			rules = append(rules, r)
		}
	}
	return rules
}

// finishFindings splits off the findings of fs that ig, the ignore
// comments and annotations of the run's files and objects, silences, then
// sets the config's severities on both, sorts them (SortFindings) and
// numbers their occurrences, each apart.
func finishFindings(fs []Finding, ig *ignores, cfg *Config) ([]Finding, []Silenced) {
	fs, silenced := ig.split(fs)
	setSeverities(fs, cfg)
	SortFindings(fs)
	numberOccurrences(fs)
	finishSilenced(silenced, cfg)
	return fs, silenced
}

// finishSilenced sets the config's severities on the findings ignores
// silenced and numbers their occurrences, apart from the run's other
// findings, in the order they were silenced (the run's).
func finishSilenced(silenced []Silenced, cfg *Config) {
	sf := make([]Finding, len(silenced))
	for i := range silenced {
		sf[i] = silenced[i].Finding
	}
	setSeverities(sf, cfg)
	numberOccurrences(sf)
	for i := range silenced {
		silenced[i].Finding = sf[i]
	}
}

// setSeverities applies the config's severity overrides.
func setSeverities(fs []Finding, cfg *Config) {
	for i := range fs {
		if s := cfg.SeverityOf(fs[i].RuleID); s != 0 {
			fs[i].Severity = s
		}
	}
}

// evaluateObject appends to out the findings of every rule on one object
// (so a unit's findings grow in one slice). A rule that panics is a bug in
// prodready, not in the input: it becomes a finding that says so, and the
// run goes on.
func evaluateObject(out []Finding, ctx *Context, rules []*Rule, obj *manifest.Object) []Finding {
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
		if !r.Family || !strings.HasPrefix(out[i].RuleID, r.ID+"/") {
			out[i].RuleID = r.ID
		}
		if out[i].Severity == 0 {
			out[i].Severity = r.Severity
		}
		if out[i].Fix != nil && fixCrossesAlias(obj, out[i].Fix) {
			// The edit would change an anchor shared with other places
			// (or cannot be made through an alias): report, do not fix.
			out[i].Fix = nil
		}
		if out[i].Fix != nil {
			if field, flag, refused := refusedByController(obj, out[i].Fix); refused {
				// The fix would write a field the workload's controller
				// rejects: report, do not fix, and say why.
				out[i].Fix = nil
				out[i].Message += refusedNote(field, flag)
			}
		}
		identify(&out[i], obj) // paths still relative to a List's item
		causePart(&out[i], obj)
		if obj.ListItem != nil {
			inListItem(&out[i], obj.ListItem)
		}
	}
	return out
}

// causePart adds to f's Parts the line of obj that writes f's Cause, when
// that is not f's own line: the replicas: 3 a review comments on when the
// pull request adds it and not the line the finding is on. A render maps
// its findings' causes again (package rendered).
func causePart(f *Finding, obj *manifest.Object) {
	if f.Cause == "" || obj.File == nil {
		return
	}
	line, col, exact := obj.Pos(splitPath(f.Cause)...)
	if !exact || line == f.Line {
		return
	}
	f.Parts = append(f.Parts, Place{File: obj.File.Path, Line: line, Column: col, Cause: true})
}

// inListItem turns a finding about a List's item, whose paths start at the
// item, into one whose paths start at the document, as edits apply them.
func inListItem(f *Finding, item manifest.Path) {
	if f.Path == "" {
		f.Path = item.String()
	} else {
		f.Path = item.String() + "." + f.Path
	}
	if f.IdentityPath != "" {
		f.IdentityPath = item.String() + "." + f.IdentityPath
	}
	if f.Fix == nil {
		return
	}
	fx := *f.Fix
	fx.Edits = slices.Clone(fx.Edits)
	for i := range fx.Edits {
		fx.Edits[i].Path = slices.Concat(item, fx.Edits[i].Path)
	}
	f.Fix = &fx
}

// ignoreCommentFindings are the IgnoreInvalid findings of f's ignore
// comments, when cfg runs that rule.
func ignoreCommentFindings(f *manifest.File, cfg *Config) []Finding {
	r := cfg.Catalog().Lookup(IgnoreInvalid)
	if r == nil || !cfg.Enabled(r) {
		return nil
	}
	fs := invalidIgnoreComments(f, cfg.Catalog())
	for i := range fs {
		fs[i].Severity = r.Severity
	}
	return fs
}

// problemReported says whether parse problem p is reported under cfg: a
// yaml-invalid one always (the rule is always on), a schema-invalid one
// unless the config switches the rule off.
func problemReported(cfg *Config, p manifest.Problem) bool {
	r := cfg.Catalog().Lookup(p.RuleID)
	return r == nil || cfg.Enabled(r)
}

func problemFinding(f *manifest.File, p manifest.Problem) Finding {
	fd := Finding{
		RuleID: p.RuleID, Severity: Error, File: f.Path,
		Line: p.Line, Column: p.Column, EndLine: p.Line,
		Message: p.Message, Object: ObjectRef{Doc: p.Doc}, Path: p.Path.String(),
	}
	if p.Object != nil {
		fd.Object = RefOf(p.Object)
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
	less := func(i, j int) bool { return findingLess(&fs[i], &fs[j]) }
	if sort.SliceIsSorted(fs, less) {
		return
	}
	// A Finding is too big to move at every swap of a sort: the order is
	// sorted as indexes, and each finding moved once.
	order := make([]int32, len(fs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return CompareFindings(&fs[a], &fs[b]) })
	// Each finding moved once, in place, cycle by cycle of the order: a
	// sorted copy of every finding was 64 MB of the 477 MB a review's push
	// allocated at 50,000 objects.
	for i := range order {
		if order[i] == int32(i) {
			continue
		}
		held := fs[i]
		j := i
		for {
			k := int(order[j])
			order[j] = int32(j) // placed
			if k == i {
				fs[j] = held
				break
			}
			fs[j] = fs[k]
			j = k
		}
	}
}

// findingLess is SortFindings' order (findingOrder).
func findingLess(a, b *Finding) bool { return CompareFindings(a, b) < 0 }

// CompareFindings orders findings as SortFindings does, by file, line,
// column and rule: -1, 0 or 1 as a comes before, level with or after b.
func CompareFindings(a, b *Finding) int { return orderOf(a).compare(orderOf(b)) }

// findingOrder is what orders findings: file, then line, column and
// rule. A Finding's is orderOf; a lean reference's, leanRef.order.
type findingOrder struct {
	file         string
	line, column int
	rule         string
}

// orderOf is f's findingOrder.
func orderOf(f *Finding) findingOrder {
	return findingOrder{f.File, f.Line, f.Column, f.RuleID}
}

// compare returns -1, 0 or 1 as a comes before, level with or after b.
func (a findingOrder) compare(b findingOrder) int {
	if c := strings.Compare(a.file, b.file); c != 0 {
		return c
	}
	if c := cmp.Compare(a.line, b.line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.column, b.column); c != 0 {
		return c
	}
	return strings.Compare(a.rule, b.rule)
}

// Failed reports whether any finding is at or above the config's failOn.
func (r *Result) Failed(cfg *Config) bool { return cfg.Fails(r.Findings) }

// numberOccurrences sets Occurrence on findings that share a fingerprint,
// in file order, so every finding's fingerprint is unique within its file.
// fs is sorted by file (SortFindings); each file's findings are numbered
// apart, with a map of that file's only (NumberOccurrences numbers across
// files).
func numberOccurrences(fs []Finding) {
	numberWithinFiles(len(fs), func(i int) string { return fs[i].File }, func(i int) occurrenceKey { return fs[i].identity() }, func(i, n int) { fs[i].Occurrence = n })
}

// numberWithinFiles is numberOccurrences of n findings sorted by file:
// finding i's file is file(i), its key identity(i), and set(i, n) gives
// it its occurrence. finishLean numbers a run's lean references so.
//
// Each file's findings (each run of findings of one file) are numbered
// apart, so the files are numbered on every CPU: the findings are cut in
// shares of numberShare, and a share numbers the files that begin in it,
// each to its end. A push's 150,000 references at 50,000 objects took some
// 45 ms of its wall time on one core.
func numberWithinFiles(n int, file func(int) string, identity func(int) occurrenceKey, set func(i, occurrence int)) {
	parallel.For((n+numberShare-1)/numberShare, func(s int) {
		start, end := s*numberShare, min(n, (s+1)*numberShare)
		for start > 0 && start < end && file(start) == file(start-1) {
			start++ // a file begun in an earlier share is that share's
		}
		numberFilesFrom(start, end, n, file, identity, set)
	})
}

// numberShare is how many findings numberWithinFiles' shares begin with.
const numberShare = 4096

// numberFilesFrom numbers, as numberWithinFiles, the findings of each file
// that begins at start or after it and before end (of n), to its end.
func numberFilesFrom(start, end, n int, file func(int) string, identity func(int) occurrenceKey, set func(i, occurrence int)) {
	counter := occurrenceCounter{}
	for start < end {
		next := start + 1
		for next < n && file(next) == file(start) {
			next++
		}
		clear(counter)
		for i := start; i < next; i++ {
			k := identity(i)
			set(i, counter[k])
			counter[k]++
		}
		start = next
	}
}

// occurrenceCounter counts the findings of one file seen so far by key.
type occurrenceCounter map[occurrenceKey]int

// objectIdentity is the part of an occurrence key that names the object.
type objectIdentity struct{ kind, namespace, name string }

// streamOccurrences numbers the findings of one path handed over in
// batches as numberOccurrences numbers them all at once, without keeping
// a key for every finding of a large file: findings about an object no
// other object of the path shares a kind, namespace and name with can only
// repeat within that object, whose findings all come in one batch, so
// their keys are let go after each batch.
type streamOccurrences struct {
	unique map[objectIdentity]bool // identities of exactly one object of the path
	path   occurrenceCounter       // every other key, for the whole path
	batch  occurrenceCounter       // keys of unique objects, for one batch
}

// uniqueIdentities returns the identities that exactly one of objects has.
func uniqueIdentities(objects []*manifest.Object) map[objectIdentity]bool {
	unique := make(map[objectIdentity]bool, len(objects))
	for _, o := range objects {
		id := objectIdentity{o.Kind, o.Namespace, o.Name}
		_, seen := unique[id]
		unique[id] = !seen
	}
	return unique
}

// number sets Occurrence on fs, the next batch of the path's findings.
func (c *streamOccurrences) number(fs []Finding) {
	for i := range fs {
		f := &fs[i]
		k := f.identity()
		counter := c.path
		if c.unique[objectIdentity{k.kind, k.namespace, k.name}] {
			counter = c.batch
		}
		f.Occurrence = counter[k]
		counter[k]++
	}
	clear(c.batch)
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
