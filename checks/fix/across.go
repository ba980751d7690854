package fix

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// across reports whether f's fix is made in more than one file
// (Fix.Also): such a fix is applied whole, by applyAcross, never with
// its finding's file alone.
func across(f checks.Finding) bool {
	return f.Fixable() && len(f.Fix.Also) > 0
}

// parts returns f's fix as one finding per file it edits, each with the
// part made in that file: f itself first, then a finding for each part of
// Fix.Also.
func parts(f checks.Finding) []checks.Finding {
	out := []checks.Finding{f}
	for _, p := range f.Fix.Also {
		out = append(out, checks.Finding{RuleID: f.RuleID, File: p.File, Object: checks.ObjectRef{Doc: p.Doc},
			Fix: &checks.Fix{Description: f.Fix.Description, Kind: f.Fix.Kind, Edits: p.Edits, Lines: p.Lines}})
	}
	return out
}

// acrossResult is what applyAcross did.
type acrossResult struct {
	fs       []checks.Finding  // the findings given, on the texts the round's other fixes left (rebased)
	next     map[string][]byte // the new texts, by clean path
	old      map[string][]byte // the texts they were made from, by clean path
	applied  []int             // indexes of the findings whose fixes were applied
	deferred []int             // indexes left for the next round
	failed   []Failure
}

// applyAcross applies the fixes of fs that are made in several files
// (across), after a round's other fixes, to the texts those left (read
// with text, by clean path): a fix's line changes in a file the round
// changed (touched, with the line changes it made there) are moved past
// them (rebased), and a fix whose lines they changed too waits for the
// next round. The others are applied together, each whole or not at all:
// when a part of one does not apply, it is taken out of every file and
// the rest applied again, so no file ever holds half a fix.
func applyAcross(fs []checks.Finding, touched map[string][]edit.Change, text func(string) ([]byte, error)) acrossResult {
	res := acrossResult{fs: slices.Clone(fs)}
	var active []int
	for i, f := range fs {
		g, ok := rebased(f, touched)
		if !ok {
			res.deferred = append(res.deferred, i)
			continue
		}
		res.fs[i] = g
		active = append(active, i)
	}
	fs = res.fs
	texts := map[string][]byte{}
	read := func(p string) ([]byte, error) {
		if t, ok := texts[p]; ok {
			return t, nil
		}
		t, err := text(p)
		if err == nil {
			texts[p] = t
		}
		return t, err
	}
	// Each pass applies the active fixes file by file; a fix with a part
	// that did not apply leaves the set, so at most one pass per fix.
	for len(active) > 0 {
		type part struct {
			finding int // index into fs
			f       checks.Finding
		}
		byFile := map[string][]part{}
		var files []string
		for _, i := range active {
			for _, p := range parts(fs[i]) {
				k := path.Clean(p.File)
				if _, ok := byFile[k]; !ok {
					files = append(files, k)
				}
				byFile[k] = append(byFile[k], part{i, p})
			}
		}
		next := map[string][]byte{}
		done := map[int]int{} // parts applied, by finding
		why := map[int]error{}
		for _, file := range files {
			src, err := read(file)
			if err != nil {
				for _, p := range byFile[file] {
					why[p.finding] = fmt.Errorf("%s, which its fix also edits: %w", file, err)
				}
				continue
			}
			ps := byFile[file]
			batch := make([]checks.Finding, len(ps))
			for j, p := range ps {
				batch[j] = p.f
			}
			out, applied, failed := Apply(src, batch)
			for _, j := range applied {
				done[ps[j].finding]++
			}
			for _, fl := range failed {
				if _, ok := why[ps[fl.Finding].finding]; !ok {
					why[ps[fl.Finding].finding] = fmt.Errorf("its part in %s does not apply: %w", file, fl.Err)
				}
			}
			next[file] = out
		}
		var whole []int
		for _, i := range active {
			if done[i] == len(parts(fs[i])) {
				whole = append(whole, i)
				continue
			}
			err := why[i]
			if err == nil {
				err = errors.New("a part of its fix does not apply")
			}
			res.failed = append(res.failed, Failure{Finding: i, Err: err})
		}
		if len(whole) == len(active) {
			res.applied, res.old = whole, texts
			res.next = map[string][]byte{}
			for file, out := range next {
				if !bytes.Equal(out, texts[file]) {
					res.next[file] = out
				}
			}
			return res
		}
		active = whole
	}
	return res
}

// rebased is f, found on the texts a round's check saw, moved to those
// the round's other fixes left (touched: the line changes they made, by
// clean path): the line changes of its fix's parts, and its own line,
// moved by the lines those added or removed above them; false when they
// changed a line a part changes too. A part of structured edits is made
// on the file as it is, by its paths.
func rebased(f checks.Finding, touched map[string][]edit.Change) (checks.Finding, bool) {
	fx := *f.Fix
	if cs, ok := touched[path.Clean(f.File)]; ok {
		lines, ok := rebase(fx.Lines, cs)
		if !ok {
			return f, false
		}
		fx.Lines = lines
		f.Line, f.EndLine = movedLine(f.Line, cs), movedLine(f.EndLine, cs)
	}
	fx.Also = slices.Clone(fx.Also)
	for k, p := range fx.Also {
		cs, ok := touched[path.Clean(p.File)]
		if !ok {
			continue
		}
		lines, ok := rebase(p.Lines, cs)
		if !ok {
			return f, false
		}
		fx.Also[k].Lines, fx.Also[k].Line = lines, movedLine(p.Line, cs)
	}
	f.Fix = &fx
	return f, true
}

// rebase moves line changes made on a text to the text that changes cs
// (edit.Changes of the two) made of it, each by the lines cs added or
// removed above it (movedLine of its first line); false when one of cs
// changes a line it changes.
func rebase(lines, cs []edit.Change) ([]edit.Change, bool) {
	out := make([]edit.Change, len(lines))
	for i, l := range lines {
		if slices.ContainsFunc(cs, func(c edit.Change) bool { return c.StartLine <= l.EndLine && l.StartLine <= c.EndLine }) {
			return nil, false
		}
		delta := movedLine(l.StartLine, cs) - l.StartLine
		out[i] = edit.Change{StartLine: l.StartLine + delta, EndLine: l.EndLine + delta, Text: l.Text}
	}
	return out, true
}

// movedLine is line of a text, on the text changes cs made of it: moved
// by the lines they added or removed above it, and the first line of a
// change that changed it.
func movedLine(line int, cs []edit.Change) int {
	delta := 0
	for _, c := range cs {
		switch {
		case c.EndLine < line:
			delta += countLines([]byte(c.Text)) - (c.EndLine - c.StartLine + 1)
		case c.StartLine <= line:
			return c.StartLine + delta
		}
	}
	return line + delta
}
