package rendered

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks"
)

// MergeRenders makes one finding of the findings several renders make at
// the same line for the same reason (a base line every overlay built on it
// renders): one finding, or review comment, naming the renders, not one
// per overlay. The merged finding is where the first of them is in fs. It
// names at most named renders ("and 3 more"), or all of them when named is
// 0.
func MergeRenders(fs []checks.Finding, named int) []checks.Finding {
	type key struct {
		file       string
		line       int
		rule, text string
	}
	index := map[key]int{}
	var out []checks.Finding
	var abouts [][]string
	for _, f := range fs {
		i := strings.LastIndex(f.Message, RenderedFrom)
		if i < 0 || !strings.HasSuffix(f.Message, ")") {
			out = append(out, f)
			abouts = append(abouts, nil)
			continue
		}
		k := key{f.File, f.Line, f.RuleID, f.Message[:i]}
		about := f.Message[i+len(RenderedFrom) : len(f.Message)-1]
		if j, ok := index[k]; ok {
			abouts[j] = append(abouts[j], about)
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
