package rendered

import (
	"fmt"
	"path"
	"strings"

	"github.com/prodready/prodready/checks"
)

// valuesSets are the renders of one chart: with its values.yaml, and with
// each other values set of the repository (ci/*-values.yaml, values-*.yaml
// beside the chart, the config's sets).
type valuesSets struct {
	base     *Render   // the values.yaml render, with objects or not
	checked  *placed   // base, when it has objects to check
	variants []*placed // the other sets' renders that have objects
	// only are the findings that only values sets other than values.yaml
	// have, mapped; Map reports them with the chart's other findings, and
	// Unreported returns the ones it did not meet.
	only     []checks.Finding
	reported bool
	// problems are the render problems of the other sets' renders, by
	// problem and whether the render made objects (problemAt), each said
	// once (Prepared.sayAgain).
	problems map[string]*setProblem
}

// setProblem is a render problem that renders of one chart with values
// sets other than values.yaml have.
type setProblem struct {
	index int      // of its finding in Prepared.Problems; -1 while it has none
	sets  []string // the values sets that have it, each its files joined by " + "
}

// problemAt returns the entry of problem pr (of a render that made
// objects when partial), making it on first use.
func (cs *valuesSets) problemAt(pr Problem, partial bool) *setProblem {
	k := fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%t %t %t %t %t", pr.File, pr.Line, pr.Column, pr.Message, pr.Bound, pr.Values, pr.Missing, pr.Refused, partial)
	if cs.problems == nil {
		cs.problems = map[string]*setProblem{}
	}
	sp := cs.problems[k]
	if sp == nil {
		sp = &setProblem{index: -1}
		cs.problems[k] = sp
	}
	return sp
}

// chartKey names a chart of a folder.
func chartKey(dir, root string) string { return dir + "\x00" + root }

// onlyKey is the key of p.only for finding f of render pl.
func onlyKey(pl *placed, f checks.Finding) string {
	return chartKey(pl.dir, pl.render.Root) + "\x00" + key(f)
}

// chartSets returns the renders of the chart in folder dir at root,
// making the entry on first use.
func (p *Prepared) chartSets(dir, root string) *valuesSets {
	if p.sets == nil {
		p.sets = map[string]*valuesSets{}
	}
	k := chartKey(dir, root)
	cs := p.sets[k]
	if cs == nil {
		cs = &valuesSets{}
		p.sets[k] = cs
	}
	return cs
}

// sayAgain records that r, the render of a values set of its chart other
// than values.yaml, has problem pr (its entry sp), and reports whether
// another set's render had it already; if so, that problem's finding
// names r's set too (two CI sets that turn on one dependency that is not
// vendored are one finding, not two alike).
func (p *Prepared) sayAgain(sp *setProblem, dir string, r *Render, pr Problem, partial bool) bool {
	sp.sets = append(sp.sets, strings.Join(r.ValuesFiles, " + "))
	if sp.index < 0 {
		return false
	}
	p.Problems[sp.index] = problemFinding(dir, pr, rootAbout(dir, r)+" with values "+list(sp.sets), partial)
	return true
}

// baseHas reports whether the values.yaml render of r's chart has the
// problem pr already (a missing dependency, a broken template), so that a
// values set's render does not say it again.
func (p *Prepared) baseHas(dir string, r *Render, pr Problem) bool {
	cs := p.sets[chartKey(dir, r.Root)]
	if cs == nil || cs.base == nil {
		return false
	}
	for _, b := range cs.base.Problems {
		if b.File == pr.File && b.Message == pr.Message {
			return true
		}
	}
	return false
}

// CheckValuesSets compares the renders of each chart that has more than
// one values set; call it before the run of Inputs. Each render is checked
// on its own (the chart's objects only, so that what differs is what the
// values change), and each finding is keyed by rule, source line, kind and
// key path. A finding every render has is reported once, by the run of
// Inputs. One that only some renders have names them: Map adds the names
// to the values.yaml render's findings, and reports the findings that only
// other values sets have beside them (Unreported returns those of charts
// whose values.yaml render had no finding to meet).
func (p *Prepared) CheckValuesSets(cfg *checks.Config) {
	for _, cs := range p.sets {
		if len(cs.variants) > 0 {
			cs.only = p.compare(cs, cfg)
		}
	}
}

// Unreported returns the findings of CheckValuesSets that Map has not
// reported: those of charts whose values.yaml render had no finding, or no
// object. Call it once the run of Inputs is over.
func (p *Prepared) Unreported() []checks.Finding {
	var out []checks.Finding
	for _, cs := range p.sets {
		if !cs.reported {
			out = append(out, cs.only...)
			cs.reported = true
		}
	}
	checks.SortFindings(out)
	return p.dropIgnored(out, nil)
}

// reportWith returns the findings only other values sets of pl's chart
// have, the first time it is asked (nil after, and for overlays).
func (p *Prepared) reportWith(pl *placed) []checks.Finding {
	if pl.render.Kind != Helm {
		return nil
	}
	cs := p.sets[chartKey(pl.dir, pl.render.Root)]
	if cs == nil || cs.reported {
		return nil
	}
	cs.reported = true
	return cs.only
}

// compare checks each render of one chart on its own; see CheckValuesSets.
func (p *Prepared) compare(cs *valuesSets, cfg *checks.Config) []checks.Finding {
	renders := append([]*placed{cs.checked}, cs.variants...)
	names := make([]string, len(renders))
	names[0] = "values.yaml"
	for j, pl := range renders[1:] {
		names[j+1] = setName(pl)
	}
	has := map[string][]int{}
	first := map[string]checks.Finding{}
	var order []string
	total := 0
	for j, pl := range renders {
		if pl == nil {
			continue // values.yaml rendered no object
		}
		total++
		for _, f := range pl.aloneFindings(cfg) {
			pl.relocate(&f)
			k := key(f)
			if js := has[k]; len(js) > 0 && js[len(js)-1] == j {
				continue
			}
			if _, ok := first[k]; !ok {
				first[k] = f
				order = append(order, k)
			}
			has[k] = append(has[k], j)
		}
	}
	var out []checks.Finding
	for _, k := range order {
		js := has[k]
		if len(js) == total && cs.checked != nil {
			continue // every render has it: the run of Inputs reports it once
		}
		label := setsLabel(names, js, renders)
		if js[0] == 0 {
			if p.only == nil {
				p.only = map[string]string{}
			}
			p.only[onlyKey(cs.checked, first[k])] = label // the run of Inputs reports it; Map names the sets
			continue
		}
		f := first[k]
		f.Message += renderedNote(rootAbout(renders[js[0]].dir, renders[js[0]].render), label)
		out = append(out, f)
	}
	return out
}

// setName names a values set by its files, relative to the chart's folder
// when they are inside it.
func setName(pl *placed) string {
	var names []string
	for _, v := range pl.render.ValuesFiles {
		if rel, ok := strings.CutPrefix(v, pl.render.Root+"/"); ok && pl.render.Root != "" {
			v = rel
		}
		names = append(names, v)
	}
	return strings.Join(names, " + ")
}

// setsLabel says which values sets have a finding (js, indexes into names)
// and which do not, at most a few names each.
func setsLabel(names []string, js []int, renders []*placed) string {
	in := map[int]bool{}
	for _, j := range js {
		in[j] = true
	}
	var with, without []string
	for j, n := range names {
		switch {
		case in[j]:
			with = append(with, n)
		case renders[j] != nil:
			without = append(without, n)
		}
	}
	if len(without) == 0 {
		return "with " + list(with)
	}
	return "with " + list(with) + ", not with " + list(without)
}

// list joins names, naming at most four.
func list(names []string) string {
	const most = 4
	if len(names) > most {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
	}
	return strings.Join(names, ", ")
}

// key identifies a mapped finding across the renders of one chart: its
// rule, source line, object kind and key path (the object's name and the
// message may change with the values).
func key(f checks.Finding) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s", f.RuleID, path.Clean(f.File), f.Line, f.Object.Kind, f.Path)
}
