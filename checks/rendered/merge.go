package rendered

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks"
)

// sameLine is what findings at one line say: their file, line, rule and
// message (or the part of it before the render it names).
type sameLine struct {
	file       string
	line       int
	rule, text string
}

// MergeRenders makes one finding of the findings several renders make at
// the same line for the same reason (a base line every overlay built on it
// renders): one finding, or review comment, naming the renders, not one
// per overlay. The merged finding is where the first of them is in fs,
// with the objects of the others that are not its own (Merged). It
// names at most named renders ("and 3 more"), or all of them when named is
// 0. Findings one render makes at one line for the same reason are of
// different objects (a chart's mutating and validating webhooks, both set
// from one values line): they stay apart, the nth of one render merged
// with the nth of another.
func MergeRenders(fs []checks.Finding, named int) []checks.Finding {
	type ofRender struct {
		sameLine
		about string
	}
	type nthKey struct {
		sameLine
		nth int // how many findings of its render came before it
	}
	index := map[nthKey]int{}
	seen := map[ofRender]int{}
	var out []checks.Finding
	var abouts [][]string
	for _, f := range fs {
		i := strings.LastIndex(f.Message, RenderedFrom)
		if i < 0 || !strings.HasSuffix(f.Message, ")") {
			out = append(out, f)
			abouts = append(abouts, nil)
			continue
		}
		about := f.Message[i+len(RenderedFrom) : len(f.Message)-1]
		same := sameLine{f.File, f.Line, f.RuleID, f.Message[:i]}
		k := nthKey{same, seen[ofRender{same, about}]}
		seen[ofRender{same, about}]++
		if j, ok := index[k]; ok {
			abouts[j] = append(abouts[j], about)
			if o := f.Object.Object(); o != out[j].Object.Object() && !slices.ContainsFunc(out[j].Merged, func(m checks.ObjectRef) bool { return m.Object() == o }) {
				out[j].Merged = append(out[j].Merged, f.Object)
			}
			if !out[j].Fixable() && f.Fixable() {
				// A fix verified as an edit of this file (a values line)
				// makes the comment's suggestion, whichever render came
				// first.
				out[j].Fix, out[j].Object.Doc = f.Fix, f.Object.Doc
			}
			continue
		}
		index[k] = len(out)
		out = append(out, f)
		abouts = append(abouts, []string{about})
	}
	for j := range out {
		if len(abouts[j]) < 2 {
			continue
		}
		i := strings.LastIndex(out[j].Message, RenderedFrom)
		out[j].Message = out[j].Message[:i] + RenderedFrom + nameRenders(abouts[j], named) + ")"
	}
	return out
}

// NameObjects starts with its object's kind and name the message of each
// finding of fs that findings of other objects share their file, line,
// rule and message with (a chart's mutating and validating webhooks, both
// set from one values line), as Finding.WithObject does: each output then
// tells them apart.
func NameObjects(fs []checks.Finding) {
	first := map[sameLine]checks.ObjectRef{}
	several := map[sameLine]bool{}
	for _, f := range fs {
		k := sameLine{f.File, f.Line, f.RuleID, f.Message}
		o, ok := first[k]
		switch {
		case !ok:
			first[k] = f.Object
		case o.Object() != f.Object.Object():
			several[k] = true
		}
	}
	if len(several) == 0 {
		return
	}
	for i, f := range fs {
		if several[sameLine{f.File, f.Line, f.RuleID, f.Message}] {
			fs[i].Message = f.WithObject(f.Message)
		}
	}
}

// nameRenders lists renders by what they are about ("overlay prod"),
// sorted (in place) and joined with ", the ": at most named of them and
// how many more ("and 3 more"), or all of them when named is 0.
func nameRenders(abouts []string, named int) string {
	sort.Strings(abouts)
	more := ""
	if named > 0 && len(abouts) > named {
		more = fmt.Sprintf(" and %d more", len(abouts)-named)
		abouts = abouts[:named]
	}
	return strings.Join(abouts, ", the ") + more
}

// Shared reports whether more than one checked render read file (a path
// as the inputs spell it): a base several overlays build on, a chart
// several charts depend on. Their findings there are the ones
// MergeRenders may make one of.
func (p *Prepared) Shared(file string) bool {
	return p != nil && p.readBy[file] > 1
}

// Touched reports whether a render read file (a path as the inputs spell
// it), whatever its values set, or a render problem is reported on it:
// findings on such a file may come from the renders, from the end of the
// run (Unreported, and those MergeRenders makes one of) and from the
// file's own check, not from its own check alone.
func (p *Prepared) Touched(file string) bool {
	return p != nil && p.touched[file]
}
