package fix

import (
	"bytes"
	"errors"
	"maps"
	"path"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/internal/parallel"
)

// MaxRounds bounds Converge. Fix chains of plain files are two or three
// long; a chart's fixes are verified by rendering it again within a bound
// of renders per round (rendered.MaxVerifyRenders), so a chart with many
// findings is fixed over more rounds (four for fixtures/render/helm-fix).
const MaxRounds = 8

// Outcome is what Converge did.
type Outcome struct {
	// Fixed are the findings whose fixes were applied, over all rounds,
	// at the lines of the inputs as given (a fix of a later round is
	// made on the text the earlier rounds left: its line is moved back).
	Fixed []checks.Finding
	// Failed are fixes that could not be applied, with why, at the lines
	// of the inputs as given, as Fixed.
	Failed []FailedFix
	// Remaining are the findings left after the last round (those without
	// an automatic fix, and those that failed), at the lines of the
	// texts the rounds left (the new contents); InputLine moves them to
	// the inputs' lines.
	Remaining []checks.Finding
	// Rounds is the number of rounds that changed something.
	Rounds int
	// Converged is false when MaxRounds ran out while fixes still changed
	// the text (a bug in a rule's fix, worth a report).
	Converged bool

	origins origins // the lines of the inputs the rounds changed, by path
}

// InputLine returns the line of file as given to the fix that line of its
// new contents comes from: the same line, moved by the lines fixes added
// or removed above it; for a line a fix wrote, the line it was written at
// (an inserted line, the line it follows). For a report on files the run
// does not write (a dry run, a diff), whose lines are those of the files
// as they are.
func (o *Outcome) InputLine(file string, line int) int {
	return o.origins.line(file, line)
}

// FailedFix is a finding whose fix did not apply.
type FailedFix struct {
	Finding checks.Finding
	Err     error
}

// Converge checks inputs, applies every fix that keep accepts, and checks
// again, until a round changes nothing. Some fixes are offered only once
// another is in place (a zone spread constraint after the node one), so one
// round is not always enough for a file that checks clean of fixable findings.
// It returns the new contents in input order.
func Converge(inputs []checks.Input, cfg *checks.Config, keep func(checks.Finding) bool) ([]checks.Input, Outcome) {
	return ConvergeWith(inputs, func(cur []checks.Input) []checks.Finding {
		// Only the findings are needed: the lean run holds every tree
		// packed (a lean run consumes its inputs, so it gets a copy).
		return checks.Run(append([]checks.Input(nil), cur...), cfg, checks.Options{Memory: checks.Lean}).Findings
	}, keep)
}

// ConvergeWith is Converge with the findings of each round given by check,
// which must not keep or change the inputs it is given: for a run that
// renders charts, whose findings are on the template and values files
// among the inputs (a fix of a values key edits the values file). A
// finding applies to the input whose path is its file, both cleaned; a
// fix made in several files (Fix.Also) is applied to each, whole, after
// the round's other fixes (applyAcross).
func ConvergeWith(inputs []checks.Input, check func([]checks.Input) []checks.Finding, keep func(checks.Finding) bool) ([]checks.Input, Outcome) {
	cur := append([]checks.Input(nil), inputs...)
	out := Outcome{origins: origins{}}
	failedBefore := map[string]bool{}
	for round := 0; round < MaxRounds; round++ {
		byFile := map[string][]checks.Finding{}
		var multi []checks.Finding // fixes made in several files, applied after the others
		for _, f := range check(cur) {
			switch {
			case keep != nil && !keep(f):
			case across(f):
				multi = append(multi, f)
			default:
				byFile[path.Clean(f.File)] = append(byFile[path.Clean(f.File)], f)
			}
		}
		out.Remaining = nil
		changed := false
		// Files are fixed on every CPU, then their outcomes taken in input
		// order, so the outcome does not depend on which finished first.
		type fileFix struct {
			next    []byte
			applied []int
			failed  []Failure
		}
		fixes := make([]fileFix, len(cur))
		parallel.For(len(cur), func(i int) {
			f := &fixes[i]
			f.next, f.applied, f.failed = Apply(cur[i].Data, byFile[path.Clean(cur[i].Path)])
		})
		touched := map[string][]edit.Change{} // the changes of the files the round changed
		for i, in := range cur {
			fs := byFile[path.Clean(in.Path)]
			delete(byFile, path.Clean(in.Path))
			next, applied, failed := fixes[i].next, fixes[i].applied, fixes[i].failed
			done := map[int]bool{}
			for _, k := range applied {
				done[k] = true
			}
			for _, fl := range failed {
				f := fs[fl.Finding]
				if key := f.Fingerprint(); !failedBefore[key] {
					failedBefore[key] = true
					out.Failed = append(out.Failed, FailedFix{Finding: out.origins.onInput(f), Err: fl.Err})
				}
			}
			for k, f := range fs {
				if !done[k] {
					out.Remaining = append(out.Remaining, f)
				}
			}
			if !bytes.Equal(next, in.Data) {
				changed = true
				cs := edit.Changes(in.Data, next)
				if len(multi) > 0 {
					touched[path.Clean(in.Path)] = cs
				}
				for _, k := range applied {
					out.Fixed = append(out.Fixed, out.origins.onInput(fs[k]))
					out.appliedLater(fs[k].Fingerprint(), failedBefore)
				}
				out.origins.follow(in.Path, originsOf(cs, next))
				cur[i] = checks.Input{Path: in.Path, Data: next}
			}
		}
		if len(multi) > 0 {
			index := map[string]int{}
			for i := len(cur) - 1; i >= 0; i-- {
				index[path.Clean(cur[i].Path)] = i
			}
			a := applyAcross(multi, touched, func(p string) ([]byte, error) {
				if i, ok := index[p]; ok {
					return cur[i].Data, nil
				}
				return nil, errNotInRun
			})
			if out.acrossDone(a, failedBefore, func(f checks.Finding) checks.Finding { return f }) {
				changed = true
				for _, file := range slices.Sorted(maps.Keys(a.next)) {
					i := index[file]
					out.origins.moved(cur[i].Path, a.old[file], a.next[file])
					cur[i] = checks.Input{Path: cur[i].Path, Data: a.next[file]}
				}
			}
		}
		// Findings on no input (a values file the config excludes) are
		// left as they are.
		rest := make([]string, 0, len(byFile))
		for file := range byFile {
			rest = append(rest, file)
		}
		sort.Strings(rest)
		for _, file := range rest {
			out.Remaining = append(out.Remaining, byFile[file]...)
		}
		if !changed {
			out.Converged = true
			return cur, out
		}
		out.Rounds++
	}
	return cur, out
}

// ConvergeStream is ConvergeWith for a check that hands each round's
// findings over as a streaming run does (checks.Options.Emit): a file's
// findings together, files in path order. Each file is fixed as soon as its
// findings are in, on every CPU, and its findings let go, so a round never
// holds every file's findings and edits at once. An input whose Data is
// nil is read (Input.Read) when it has findings to fix, and holds its text
// only once a fix changed it (the old text is let go as soon as the new
// one is made: every input is parsed before a finding is handed over).
// Outcome.Fixed holds of each fixed finding its rule, severity, place,
// object and fix's description and kind (fixedSummary), not its message
// or edits: for a summary, not to apply it again. The outcome is in input
// order, as ConvergeWith's. Findings of a path handed over again after
// another path's are left for the next round.
func ConvergeStream(inputs []checks.Input, check func(cur []checks.Input, emit func([]checks.Finding)), keep func(checks.Finding) bool) ([]checks.Input, Outcome) {
	cur := append([]checks.Input(nil), inputs...)
	byPath := map[string][]int{}
	for i, in := range cur {
		byPath[path.Clean(in.Path)] = append(byPath[path.Clean(in.Path)], i)
	}
	out := Outcome{origins: origins{}}
	failedBefore := map[string]bool{}
	for round := 0; round < MaxRounds; round++ {
		r := newStreamRound(cur, byPath)
		var current string
		var fs []checks.Finding
		flush := func() {
			if len(fs) > 0 || current != "" {
				r.fix(current, fs)
			}
			current, fs = "", nil
		}
		var multi []checks.Finding // fixes made in several files, applied after the others
		check(cur, func(batch []checks.Finding) {
			for _, f := range batch {
				if keep != nil && !keep(f) {
					continue
				}
				if across(f) {
					multi = append(multi, f)
					continue
				}
				p := path.Clean(f.File)
				if p != current {
					flush()
					current = p
				}
				fs = append(fs, f)
			}
		})
		flush()
		changed := r.finish(&out, failedBefore)
		if len(multi) > 0 && r.across(&out, multi, failedBefore) {
			changed = true
		}
		if !changed {
			out.Converged = true
			return cur, out
		}
		out.Rounds++
	}
	return cur, out
}

// streamRound is one round of ConvergeStream: files fixed by workers as
// their findings come, and what each fixing found, by input.
type streamRound struct {
	cur    []checks.Input
	byPath map[string][]int
	done   map[string]bool // paths whose findings were taken
	slots  chan struct{}   // bounds the files being fixed at once
	wg     sync.WaitGroup
	mu     sync.Mutex
	files  map[int]*streamFile // by input index
	// late are findings on no input, or of a path handed over again.
	late []checks.Finding
}

// streamFile is what fixing one input found.
type streamFile struct {
	next    []byte
	changed bool
	// lines maps the lines of next to those of the text fixed
	// (lineOrigins), when it changed, and changes are the line changes
	// that made next (edit.Changes), for a fix of several files made
	// after them (rebase).
	lines            []int32
	changes          []edit.Change
	fixed, remaining []checks.Finding
	failed           []FailedFix
	// fixedKeys are the fingerprints of the findings fixed.
	fixedKeys []string
}

func newStreamRound(cur []checks.Input, byPath map[string][]int) *streamRound {
	return &streamRound{cur: cur, byPath: byPath, done: map[string]bool{}, slots: make(chan struct{}, runtime.GOMAXPROCS(0)), files: map[int]*streamFile{}}
}

// fix fixes the inputs at p with fs, on a worker of its own.
func (r *streamRound) fix(p string, fs []checks.Finding) {
	idx := r.byPath[p]
	if len(idx) == 0 || r.done[p] {
		r.late = append(r.late, fs...)
		return
	}
	r.done[p] = true
	for _, i := range idx {
		r.slots <- struct{}{}
		r.wg.Add(1)
		go func() {
			defer func() { <-r.slots; r.wg.Done() }()
			sf := fixOne(r.cur[i], fs)
			r.mu.Lock()
			if sf.changed {
				// The check parsed every input before it handed over a
				// finding: the old text is let go now, not at the
				// round's end.
				r.cur[i] = checks.Input{Path: r.cur[i].Path, Data: sf.next}
				sf.next = nil
			}
			r.files[i] = sf
			r.mu.Unlock()
		}()
	}
}

// fixOne applies fs to one input.
func fixOne(in checks.Input, fs []checks.Finding) *streamFile {
	sf := &streamFile{}
	data := in.Data
	if data == nil && in.Read != nil && len(fixable(fs)) > 0 {
		var err error
		if data, err = in.Read(nil); err != nil {
			sf.remaining = fs
			for k := range fixable(fs) {
				sf.failed = append(sf.failed, FailedFix{Finding: fs[fixable(fs)[k]], Err: err})
			}
			return sf
		}
	}
	next, applied, failed := Apply(data, fs)
	done := map[int]bool{}
	for _, k := range applied {
		done[k] = true
	}
	for _, fl := range failed {
		sf.failed = append(sf.failed, FailedFix{Finding: fs[fl.Finding], Err: fl.Err})
	}
	for k, f := range fs {
		if !done[k] {
			sf.remaining = append(sf.remaining, f)
		}
	}
	if data != nil && !bytes.Equal(next, data) {
		sf.changes = edit.Changes(data, next)
		sf.changed, sf.next, sf.lines = true, next, originsOf(sf.changes, next)
		for _, k := range applied {
			sf.fixed = append(sf.fixed, fixedSummary(fs[k]))
			sf.fixedKeys = append(sf.fixedKeys, fs[k].Fingerprint())
		}
	}
	return sf
}

// finish waits for the round's files and takes their outcomes into out in
// input order; it reports whether any file changed.
func (r *streamRound) finish(out *Outcome, failedBefore map[string]bool) bool {
	r.wg.Wait()
	out.Remaining = nil
	changed := false
	for i := range r.cur {
		sf := r.files[i]
		if sf == nil {
			continue
		}
		for _, fl := range sf.failed {
			if key := fl.Finding.Fingerprint(); !failedBefore[key] {
				failedBefore[key] = true
				fl.Finding = out.origins.onInput(fl.Finding)
				out.Failed = append(out.Failed, fl)
			}
		}
		out.Remaining = append(out.Remaining, sf.remaining...)
		if sf.changed {
			changed = true
			for _, f := range sf.fixed {
				out.Fixed = append(out.Fixed, out.origins.onInput(f))
			}
			for _, key := range sf.fixedKeys {
				out.appliedLater(key, failedBefore)
			}
			out.origins.follow(r.cur[i].Path, sf.lines)
		}
	}
	sort.SliceStable(r.late, func(a, b int) bool { return path.Clean(r.late[a].File) < path.Clean(r.late[b].File) })
	out.Remaining = append(out.Remaining, r.late...)
	return changed
}

// errNotInRun is why a fix made in several files is not applied when one
// of them is not among the inputs (a values file the config excludes).
var errNotInRun = errors.New("not among the files fixed")

// across applies, at the end of a round, the fixes of multi made in
// several files (see applyAcross), to the inputs as the round left them,
// and takes what it did into out: it reports whether an input changed.
func (r *streamRound) across(out *Outcome, multi []checks.Finding, failedBefore map[string]bool) bool {
	touched := map[string][]edit.Change{}
	for i, sf := range r.files {
		if sf != nil && sf.changed {
			touched[path.Clean(r.cur[i].Path)] = sf.changes
		}
	}
	a := applyAcross(multi, touched, func(p string) ([]byte, error) {
		idx := r.byPath[p]
		if len(idx) == 0 {
			return nil, errNotInRun
		}
		in := r.cur[idx[0]]
		if in.Data == nil && in.Read != nil {
			return in.Read(nil)
		}
		return in.Data, nil
	})
	if !out.acrossDone(a, failedBefore, fixedSummary) {
		return false
	}
	for _, file := range slices.Sorted(maps.Keys(a.next)) {
		i := r.byPath[file][0]
		out.origins.moved(r.cur[i].Path, a.old[file], a.next[file])
		r.cur[i] = checks.Input{Path: r.cur[i].Path, Data: a.next[file]}
	}
	return true
}

// acrossDone takes into o what applyAcross did: the fixes
// applied, as fixed keeps them (ConvergeStream keeps a summary), at the
// inputs' lines (before the texts they changed are followed), the
// failures (each once over the rounds), and the findings left. It reports
// whether a text changed.
func (o *Outcome) acrossDone(a acrossResult, failedBefore map[string]bool, fixed func(checks.Finding) checks.Finding) bool {
	multi := a.fs
	for _, fl := range a.failed {
		f := multi[fl.Finding]
		o.Remaining = append(o.Remaining, f)
		if key := f.Fingerprint(); !failedBefore[key] {
			failedBefore[key] = true
			o.Failed = append(o.Failed, FailedFix{Finding: o.origins.onInput(f), Err: fl.Err})
		}
	}
	for _, i := range a.deferred {
		o.Remaining = append(o.Remaining, multi[i])
	}
	if len(a.next) == 0 {
		return false
	}
	for _, i := range a.applied {
		o.Fixed = append(o.Fixed, o.origins.onInput(fixed(multi[i])))
		o.appliedLater(multi[i].Fingerprint(), failedBefore)
	}
	return true
}

// appliedLater takes out of o.Failed the fix of the finding whose
// fingerprint is key, now applied: one that overlapped another fix's
// lines in one round (two template fixes inserting after one line) is
// applied in the next, and is not a fix that could not be applied.
func (o *Outcome) appliedLater(key string, failedBefore map[string]bool) {
	if !failedBefore[key] {
		return
	}
	delete(failedBefore, key)
	o.Failed = slices.DeleteFunc(o.Failed, func(fl FailedFix) bool { return fl.Finding.Fingerprint() == key })
}

// fixedSummary is what Outcome.Fixed keeps of a fixed finding in
// ConvergeStream: its rule, severity, place and object, and its fix's
// description and kind.
func fixedSummary(f checks.Finding) checks.Finding {
	s := checks.Finding{RuleID: f.RuleID, Severity: f.Severity, File: f.File, Line: f.Line, Column: f.Column, EndLine: f.EndLine, Object: f.Object}
	if f.Fix != nil {
		s.Fix = &checks.Fix{Description: f.Fix.Description, Kind: f.Fix.Kind}
	}
	return s
}
