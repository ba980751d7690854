package rendered

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// Prepared is a run's inputs with the charts and overlays under its folders
// rendered: the rendered objects are checked in place of the templates,
// bases and patches they come from, and their findings are mapped back to
// the lines the author edits.
type Prepared struct {
	// Inputs are the inputs to check: the plain ones, less the files a
	// render stands for, plus one input per render.
	Inputs []checks.Input
	// Problems are the render-failed findings (the config's severity not yet
	// applied).
	Problems []checks.Finding
	// Covered counts the input files checked through a render instead of
	// on their own (templates, kustomize bases and patches).
	Covered int
	// Renders counts the renders whose objects are checked.
	Renders int
	// Skipped are the files of the renders that became no checked object
	// (a template that renders to nothing with these values, NOTES.txt, a
	// helm test hook), with why; paths as the inputs spell them.
	Skipped []Skipped

	renders map[string]*placed // by the path of its input
	// sets are the charts rendered with more than one values set, by the
	// path of their values.yaml render's input (see CheckValuesSets).
	sets map[string]*valuesSets
	// only says, by chart (chartKey) and a finding's key (see key), which
	// values sets of the chart have it when not all do. A finding's key is
	// not enough: a chart's objects and those of a chart that depends on it
	// map to the same template lines.
	only map[string]string
	// ignoreLines are the lines of the folders' files that hold an ignore
	// comment, by path as the inputs spell it: findings mapped to a
	// template, values or patch line are silenced there as a plain file's.
	ignoreLines map[string][][]byte
	// readBy counts, by path as the inputs spell it, the checked renders
	// (not a chart's other values sets) that read each file (Shared).
	readBy map[string]int
	// touched are the files, by path as the inputs spell it, that a
	// render (any values set) read or that a render problem is reported
	// on (Touched).
	touched map[string]bool
	// silenced are the findings dropIgnored dropped, with their ignores.
	silenced []checks.Silenced
	// unmatchedSeen are the base patches and replacements that select
	// nothing said so far (file, line and words), each said once for all
	// the overlays that build on the base.
	unmatchedSeen map[string]bool
	// given are the paths of the inputs Prepare was given (cleaned): the
	// files a fix may edit (see outsideRun).
	given map[string]bool
	// renderer and opts are Prepare's, for VerifyFixes, which sets verify.
	renderer Renderer
	opts     Options
	verify   *verifier
	// claims renders a chart with the fixes whose follow-ups it reports
	// (see VerifyClaims); nil when claims are not checked.
	claims *verifier
}

// placed is one render whose objects a run checks.
type placed struct {
	render *Render
	dir    string // the folder its paths are relative to, as inputs name it
	about  string // what the messages name: "chart charts/web", "overlay overlays/prod"
	input  checks.Input

	// What VerifyFixes reads and spends: what the render was made from
	// (a chart's values.yaml render only), the parsed rendered documents
	// and values files, the keys of the render checked alone, the
	// renders made to verify fixes, the template lines rendered as
	// written.
	src       *source
	docs      map[int]*yaml.Node
	values    map[string]*yaml.Node
	old       findingKeys
	rerenders int
	combines  int                     // renders spent by combineTemplateLines
	lits      []literalLines          // by document, see literalOf
	located   []literalLines          // by document, see locatedOf
	texts     map[string][]byte       // the chart's own templates' texts, see chartTexts
	chart     map[string][][]byte     // the same, split into lines, see chartLines
	calls     map[string][]helperCall // their includes by helper, see chartCalls
	cols      map[string]Columns      // by file, the column each line writes at, see columnAt
	// claimCands are the fixes the last render of VerifyClaims was made
	// with (those of every batch of the render's findings so far), and
	// claimKeys the keys of its findings; claimFailed says a render with
	// them failed, and no other is made; claimRenders counts the renders
	// made (see MaxClaimRenders).
	claimCands   []candidate
	claimKeys    findingKeys
	claimFailed  bool
	claimRenders int
	// claimRefused says, by aloneKey, why the chart cannot be rendered
	// with a fix that names follow-ups: the render with it alone failed.
	// Its claims are not reported, and its fix is withheld with that
	// reason, as prodready fix withholds it.
	claimRefused map[string]string

	// alone are the findings of the render checked on its own, made once
	// for CheckValuesSets and VerifyFixes (see aloneFindings).
	alone []checks.Finding
}

// aloneFindings returns the findings of the render checked on its own
// (its objects only), running the check once.
func (pl *placed) aloneFindings(cfg *checks.Config) []checks.Finding {
	if pl.alone == nil {
		pl.alone = checks.Run([]checks.Input{pl.input}, cfg, checks.Options{}).Findings
		if pl.alone == nil {
			pl.alone = []checks.Finding{}
		}
	}
	return pl.alone
}

// add places render r (number i of its folder's run): its problems become
// render-failed findings, its objects one input (a values.yaml render or an
// overlay) or one more values set of its chart, and its templates, bases
// and patches are dropped from the plain inputs.
func (p *Prepared) add(dir string, i int, r *Render, drop map[string]bool, sk *skips) {
	about := rootAbout(dir, r)
	variant := r.Kind == Helm && len(r.ValuesFiles) > 0
	if variant {
		about += " with values " + strings.Join(r.ValuesFiles, ", ")
	} else if r.Kind == Helm {
		p.chartSets(dir, r.Root).base = r
	}
	for _, pr := range r.Problems {
		if variant && p.baseHas(dir, r, pr) {
			continue // said once, for the values.yaml render
		}
		partial := len(r.Documents) > 0
		var sp *setProblem
		if variant {
			sp = p.chartSets(dir, r.Root).problemAt(pr, partial)
			if p.sayAgain(sp, dir, r, pr, partial) {
				continue // said once, naming every values set that has it
			}
		}
		f := problemFinding(dir, pr, about, partial)
		if r.Kind == Helm && p.chartIgnores(f, joinDir(dir, path.Join(r.Root, "Chart.yaml"))) {
			continue
		}
		if sp != nil {
			sp.index = len(p.Problems)
		}
		p.Problems = append(p.Problems, f)
	}
	for _, u := range r.Unmatched {
		// Placed as a render problem is, at its line, with its own rule
		// and words: the build is whole. A base's patch or replacement is
		// said once, however many overlays build on it.
		f := failed(dir, u.Problem, about)
		f.RuleID, f.Severity = u.RuleID, checks.Warning
		f.Message = fmt.Sprintf("%s (overlay %s)", u.Message, joinDir(dir, path.Dir(r.Root)))
		if u.Kustomization != r.Root {
			seen := fmt.Sprintf("%s\x00%d\x00%s", f.File, f.Line, u.Message)
			if p.unmatchedSeen[seen] {
				continue
			}
			if p.unmatchedSeen == nil {
				p.unmatchedSeen = map[string]bool{}
			}
			p.unmatchedSeen[seen] = true
			f.Message = fmt.Sprintf("%s (a base of the overlay %s)", u.Message, joinDir(dir, path.Dir(r.Root)))
		}
		p.Problems = append(p.Problems, f)
	}
	for _, f := range r.Inputs {
		p.touched[joinDir(dir, f)] = true
	}
	if len(r.Documents) == 0 {
		return
	}
	root := r.Root
	if r.Kind == Kustomize {
		root = path.Dir(root)
	}
	in := renderInput(joinDir(dir, path.Join(root, fmt.Sprintf(".prodready-render-%d.yaml", i))), dir, r)
	pl := &placed{render: r, dir: dir, about: about, input: in}
	p.renders[in.Path] = pl
	if variant {
		cs := p.chartSets(dir, r.Root)
		cs.variants = append(cs.variants, pl)
	} else {
		if r.Kind == Helm {
			p.chartSets(dir, r.Root).checked = pl
		}
		p.Inputs = append(p.Inputs, in)
		p.Renders++
		for _, f := range r.Inputs {
			p.readBy[joinDir(dir, f)]++
		}
	}
	for _, f := range standsFor(r) {
		drop[joinDir(dir, f)] = true
	}
	sk.add(dir, r, about)
}

// renderInput is the input the objects of render r, of folder dir, are
// checked as, named file: its stream (read again there for a CRD's text,
// streamReader), and its chart's templates that render nothing and write
// objects with, when there are any, the template each document was
// rendered from (checks.Input.Dormant and Sources).
func renderInput(file, dir string, r *Render) checks.Input {
	in := checks.Input{Path: file, Data: r.Stream, ReadAt: streamReader(r.Stream)}
	for _, s := range r.Skipped {
		if len(s.Writes) > 0 {
			in.Dormant = append(in.Dormant, checks.Dormant{File: joinDir(dir, s.File), Kinds: s.Writes, Guard: s.Guard})
		}
	}
	if len(in.Dormant) > 0 {
		in.Sources = make([]string, len(r.Documents))
		for i, d := range r.Documents {
			in.Sources[i] = joinDir(dir, d.Source)
		}
	}
	return in
}

// streamReader reads a rendered CRD's text again from the render's stream,
// which the render keeps (for its documents and the maps made on use): a
// lean run then holds no copy of it (checks.Input.ReadAt). The 12 MB of
// CRD text copies of the charts of the corpus were a sixth of the rules'
// live heap.
func streamReader(stream []byte) func(off, n int) ([]byte, error) {
	return func(off, n int) ([]byte, error) {
		if off < 0 || n < 0 || off > len(stream)-n {
			return nil, fmt.Errorf("bytes %d to %d are past the render's %d", off, off+n, len(stream))
		}
		return stream[off : off+n : off+n], nil
	}
}

// rootAbout names what a render is of, as messages say it: "chart
// charts/web", "overlay overlays/prod".
func rootAbout(dir string, r *Render) string {
	if r.Kind == Helm {
		return "chart " + joinDir(dir, r.Root)
	}
	return "overlay " + joinDir(dir, path.Dir(r.Root))
}

// RenderedFrom begins the note a mapped finding's message ends with:
// " (rendered from the chart charts/web)", or with the values sets that
// have it: " (rendered from the chart charts/web; with values-ha.yaml)".
const RenderedFrom = " (rendered from the "

// renderedNote is the note a finding of the render named about ends
// with; label, when not empty, says which values sets have it.
func renderedNote(about, label string) string {
	if label != "" {
		return RenderedFrom + about + "; " + label + ")"
	}
	return RenderedFrom + about + ")"
}

// skips gathers the files of one folder's renders that became no checked
// object. A file is named only when every render that read it skipped it:
// a chart's template that renders nothing with values.yaml but something
// with another values set, or nothing as another chart's dependency but
// something in its own chart, was checked.
type skips struct {
	read   map[string]int      // renders with objects that read the file, by file
	files  map[string]*skipped // by file
	values map[string]bool     // files read as a values set (not "not checked")
}

type skipped struct {
	file, reason string
	own          bool // the reason is of the file's own chart or overlay
	renders      int  // renders that skipped the file
}

func newSkips() *skips {
	return &skips{read: map[string]int{}, files: map[string]*skipped{}, values: map[string]bool{}}
}

// add counts render r, whose messages name about.
func (sk *skips) add(dir string, r *Render, about string) {
	for _, f := range r.Inputs {
		sk.read[f]++
	}
	for _, v := range r.ValuesFiles {
		sk.values[v] = true
	}
	root := r.Root
	if r.Kind == Kustomize {
		root = path.Dir(root)
	}
	for _, s := range r.Skipped {
		own := root == "." || root == "" || strings.HasPrefix(s.File, root+"/")
		e, ok := sk.files[s.File]
		if !ok {
			e = &skipped{file: joinDir(dir, s.File)}
			sk.files[s.File] = e
		}
		e.renders++
		if e.reason == "" || own && !e.own {
			// The first render's reason, or the file's own chart's.
			e.reason, e.own = s.Reason+" ("+about+")", own
		}
	}
}

// all returns the files every render that read them skipped, sorted.
func (sk *skips) all() []Skipped {
	var out []Skipped
	for f, e := range sk.files {
		if e.renders >= sk.read[f] && !sk.values[f] {
			out = append(out, Skipped{File: e.file, Reason: e.reason})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// HasRoots reports whether inputs hold a chart (a Chart.yaml) or a
// kustomization, the files that make Prepare render anything.
func HasRoots(inputs []checks.Input) bool {
	for _, in := range inputs {
		base := path.Base(in.Path)
		if base == "Chart.yaml" || IsKustomizationName(base) {
			return true
		}
	}
	return false
}

// Folder is one folder of a run with its files, as a renderer reads them.
type Folder struct {
	// Dir is the folder as the inputs' paths spell it ("." for the current
	// one); finding paths are Dir joined with the render's paths.
	Dir string
	// Files are the folder's files, paths relative to Dir.
	Files Files
	// Err says why the folder could not be read; its charts and overlays
	// then get a render-failed finding.
	Err error
	// Roots, when set, are the folders (relative to Dir) whose charts and
	// root kustomizations are rendered (Options.Roots); the other files
	// are read by those renders.
	Roots []string
	// Read reads the files Files lists with no contents (ListDir); nil
	// when Files holds every file's.
	Read Reader
}

// ReadFolders reads from disk (ReadDir) each folder of dirs whose inputs
// hold a chart or a kustomization; the others need no render.
func ReadFolders(inputs []checks.Input, dirs []string) []Folder {
	return readFolders(inputs, dirs, false)
}

// ListFolders is ReadFolders with each folder listed (ListDir): a file's
// contents are read when a render, or a fix's check, reads it, and held
// no longer. It suits a run that renders each chart once (values.yaml
// alone): on the corpus's 50 charts the run's anonymous memory at the
// peak fell from about 130 to 90 MiB. A run that renders every values set
// reads its folders whole: read on use, it took 1.07 to 1.17 times the
// CPU (the collector runs more often without the files on its heap).
func ListFolders(inputs []checks.Input, dirs []string) []Folder {
	return readFolders(inputs, dirs, true)
}

func readFolders(inputs []checks.Input, dirs []string, list bool) []Folder {
	var out []Folder
	for _, dir := range dirs {
		dir = path.Clean(dir)
		if !HasRoots(under(inputs, dir)) {
			continue
		}
		files, read, err := LoadDir(dir, list)
		out = append(out, Folder{Dir: dir, Files: files, Err: err, Read: read})
	}
	return out
}

// hasRootFile reports whether files hold a Chart.yaml or a kustomization.
func hasRootFile(files Files) bool {
	for p := range files {
		if base := path.Base(p); base == "Chart.yaml" || IsKustomizationName(base) {
			return true
		}
	}
	return false
}

// Prepare renders, with render, the charts and root kustomizations of each
// folder and returns the inputs to check. A folder that could not be read,
// or a renderer that fails, makes render-failed findings; the rest of the
// run goes on. Each chart is rendered with its values.yaml, whose objects
// are among Inputs, and with each other values set (ci/*-values.yaml,
// values-*.yaml, opts.ExtraValues): those hold objects of the same names,
// so they are checked apart, by CheckValuesSets.
func Prepare(ctx context.Context, inputs []checks.Input, folders []Folder, render Renderer, opts Options) *Prepared {
	p := &Prepared{renders: map[string]*placed{}, readBy: map[string]int{}, touched: map[string]bool{}, renderer: render, opts: opts, given: make(map[string]bool, len(inputs))}
	for _, in := range inputs {
		p.given[path.Clean(in.Path)] = true
	}
	drop := map[string]bool{}
	for _, folder := range folders {
		dir, files := path.Clean(folder.Dir), folder.Files
		if folder.Err != nil {
			p.Problems = append(p.Problems, failed(dir, Problem{Message: folder.Err.Error()}, "folder "+dir))
			continue
		}
		if !hasRootFile(files) {
			continue
		}
		p.keepIgnores(dir, files)
		roots := DiscoverUnder(files, folder.Roots)
		for _, c := range roots.Components {
			p.Skipped = append(p.Skipped, Skipped{File: joinDir(dir, c), Reason: UnusedComponent})
		}
		o := opts
		o.Roots, o.Read = folder.Roots, p.readKeepingIgnores(dir, folder.Read)
		res, err := render(ctx, files, o)
		if err != nil {
			// The renderer itself failed (or is not installed): no fault of
			// the charts', so a warning; their files are checked as written.
			for _, c := range roots.Charts {
				f := failed(dir, Problem{File: path.Join(c, "Chart.yaml"), Line: 1, Message: err.Error()}, "chart "+joinDir(dir, c))
				f.Severity = checks.Warning
				p.Problems = append(p.Problems, f)
			}
			for _, k := range roots.Kustomizations {
				f := failed(dir, Problem{File: k, Line: 1, Message: err.Error()}, "overlay "+joinDir(dir, path.Dir(k)))
				f.Severity = checks.Warning
				p.Problems = append(p.Problems, f)
			}
			continue
		}
		for _, pr := range res.Problems {
			f := failed(dir, pr, "")
			f.Message = "rendering stopped early: " + pr.Message
			p.Problems = append(p.Problems, f)
		}
		for _, s := range res.NotRendered {
			about := "overlay " + joinDir(dir, path.Dir(s.File))
			if path.Base(s.File) == "Chart.yaml" {
				about = "chart " + joinDir(dir, path.Dir(s.File))
			}
			f := failed(dir, Problem{File: s.File, Line: 1}, about)
			f.Message = fmt.Sprintf("the %s is not rendered in full, so what is left out is not checked: %s", about, s.Reason)
			p.Problems = append(p.Problems, f)
		}
		sk := newSkips()
		for i, r := range res.Renders {
			p.add(dir, i, r, drop, sk)
		}
		p.Skipped = append(p.Skipped, sk.all()...)
	}
	p.Problems = p.dropIgnored(p.Problems, nil)
	for _, f := range p.Problems {
		p.touched[f.File] = true
	}
	var plain []checks.Input
	for _, in := range inputs {
		if drop[path.Clean(in.Path)] {
			p.Covered++
			continue
		}
		plain = append(plain, in)
	}
	p.Inputs = append(plain, p.Inputs...)
	return p
}

// UnusedComponent is why a kustomize Component that no overlay of the run
// names is not checked.
const UnusedComponent = "a kustomize Component that no overlay checked here names in its components: kustomize builds it only as part of such an overlay, so its patches and resources are not checked (check an overlay that uses it)"

// standsFor returns the input files a render's objects are checked in
// place of: a chart's templates (also when a dependency is missing: what
// rendered is checked), an overlay's resources and patches (its
// kustomizations stay: rules read their namespace and images).
func standsFor(r *Render) []string {
	if r.Kind == Kustomize && len(r.Problems) > 0 {
		return nil // a partial build: its files are still checked as written
	}
	var out []string
	for _, f := range r.Inputs {
		switch {
		case r.Kind == Helm && (strings.HasPrefix(f, "templates/") || strings.Contains(f, "/templates/")):
			// The chart's templates and its subcharts' (inputs are the
			// render's own files).
			out = append(out, f)
		case r.Kind == Kustomize && !IsKustomizationName(path.Base(f)) && (strings.HasSuffix(f, ".yaml") || strings.HasSuffix(f, ".yml")):
			out = append(out, f)
		}
	}
	return out
}

// under returns the inputs in folder dir.
func under(inputs []checks.Input, dir string) []checks.Input {
	if dir == "." {
		return inputs
	}
	prefix := dir + "/"
	var out []checks.Input
	for _, in := range inputs {
		if p := path.Clean(in.Path); p == dir || strings.HasPrefix(p, prefix) {
			out = append(out, in)
		}
	}
	return out
}

// problemFinding is the finding of problem pr of a render of folder dir
// that about names ("chart web with values ci/ha-values.yaml"); partial
// says the render made some objects, which are checked.
func problemFinding(dir string, pr Problem, about string, partial bool) checks.Finding {
	f := failed(dir, pr, about)
	switch {
	case pr.Bound:
		// A render cut at a bound cannot pass: what lies past it (a
		// privileged Pod after 2,000 padding ConfigMaps) is not
		// checked.
		f.Message = fmt.Sprintf("the %s is rendered only in part: %s; the objects past the bound are not checked", about, pr.Message)
	case pr.Values:
		f.Message = fmt.Sprintf("%s (%s)", pr.Message, about)
	case pr.Refused && partial:
		// What rendered is checked; helm refuses the chart all the same.
		f.Message = fmt.Sprintf("the %s is rendered only in part, and helm template and helm install refuse it: %s", about, pr.Message)
	case pr.Refused:
		// Nothing rendered: failed's words, an error.
	case pr.Missing:
		// A dependency prodready cannot fetch: the chart is checked
		// without it (its values too), and an install would fetch it.
		f.Message = fmt.Sprintf("the %s is rendered only in part: %s", about, pr.Message)
		f.Severity = checks.Warning
	case partial:
		// What rendered is checked; what is missing (a dependency not
		// vendored, a refused remote base) is prodready's to fetch, not
		// certain to fail an install: a warning.
		f.Message = fmt.Sprintf("the %s is rendered only in part: %s", about, pr.Message)
		f.Severity = checks.Warning
	}
	return f
}

// failed is the render-failed finding of a problem, its file under dir.
func failed(dir string, pr Problem, about string) checks.Finding {
	file := dir
	if pr.File != "" {
		file = joinDir(dir, pr.File)
	}
	line, col := max(pr.Line, 1), 1
	if pr.Line > 0 {
		col = max(pr.Column, 1)
	}
	return checks.Finding{
		RuleID: checks.RenderFailed, Severity: checks.Error, File: file, Line: line, EndLine: line, Column: col,
		Message: fmt.Sprintf("the %s cannot be rendered, so its objects are not checked as rendered: %s", about, pr.Message),
		Object:  checks.ObjectRef{Doc: -1},
	}
}

// Map turns the findings on rendered objects into findings at the lines
// their authors edit (the template or values line, the patch or base line)
// and leaves the others as they are. A mapped finding keeps its fix's
// description but not its edits, which apply to the rendered text: the
// author makes the change in the source. After VerifyFixes, a fix that is
// an edit of a values file (or of a template that is plain YAML), verified
// by rendering again, is kept as that edit, and its finding is on the line
// it edits. A finding that
// only some of its chart's values sets have names them, and the findings
// that only its other values sets have come beside its own (see
// CheckValuesSets).
func (p *Prepared) Map(fs []checks.Finding) []checks.Finding {
	if len(p.renders) == 0 {
		return fs // a plain run: every batch passes as it is
	}
	fs = p.dropDisproved(fs)
	fixed, withheld := p.verified(fs)
	mapped := false
	var more []checks.Finding
	from := make([]*placed, len(fs)) // the render each finding is of (nil: a plain file's)
	for i := range fs {
		pl, ok := p.renders[fs[i].File]
		if !ok {
			continue
		}
		mapped = true
		from[i] = pl
		f := &fs[i]
		pl.relocate(f)
		if why := pl.unmapped(f.Object.Doc); why != "" {
			f.Message += UnmappedNote + why + ")"
		}
		f.Message += renderedNote(pl.about, p.only[onlyKey(pl, *f)])
		if pc, ok := fixed[i]; ok {
			pc = pc.primary()
			home := checks.Place{File: f.File, Line: f.Line, Column: f.Column, Home: true}
			pc.place(pl.dir, pl.columnAt(pc.file, pc.line), f) // after the key above, which CheckValuesSets made without it
			if f.File != home.File || f.Line != home.Line {
				f.Parts = append(f.Parts, home)
			}
		} else if why, ok := withheld[i]; ok && f.Fix != nil {
			fx := *f.Fix
			fx.Withheld = why
			f.Fix = &fx
		} else if len(pl.claimRefused) > 0 && f.Fix != nil {
			// found by the claims' renders, in a run that verifies no fix
			if why, ok := pl.claimRefused[aloneKey(*f)]; ok {
				fx := *f.Fix
				fx.Withheld = why
				f.Fix = &fx
			}
		}
		more = append(more, p.reportWith(pl)...)
	}
	fs = p.dropIgnored(append(fs, more...), from)
	if mapped {
		checks.SortFindings(fs) // mapped findings moved to other files and lines
	}
	return fs
}

// MapUnchecked moves what the rules could not check about a rendered
// object (checks.Unchecked) to the template, values or patch line it comes
// from, as Map moves findings, naming the render it is about.
func (p *Prepared) MapUnchecked(us []checks.Unchecked) []checks.Unchecked {
	out := make([]checks.Unchecked, len(us))
	for i, u := range us {
		if pl, ok := p.renders[u.At.File]; ok {
			pl.relocate(&u.At)
			u.Reason += " (" + pl.about + ")"
		}
		out[i] = u
	}
	return append(out, p.unmappedNotes()...)
}

// unmappedNotes says, once per template, which templates of the renders
// have keys whose line could not be traced (Render.Unmapped), so that
// every output lists them on a line of their own with why, beside the
// note in the messages of their findings; and, once per kustomization,
// whose targeted patches were not judged for selecting nothing
// (Render.Unjudged).
func (p *Prepared) unmappedNotes() []checks.Unchecked {
	seen := map[string]bool{}
	var out []checks.Unchecked
	for _, pl := range p.renders {
		for _, u := range pl.render.Unmapped {
			file := joinDir(pl.dir, u.File)
			if seen[file] {
				continue
			}
			seen[file] = true
			out = append(out, checks.Unchecked{At: checks.Finding{File: file},
				Reason: fmt.Sprintf("its findings are checked, but some of its keys' lines could not be traced and sit at the nearest line known: %s (%s)", u.Reason, pl.about)})
		}
		for _, u := range pl.render.Unjudged {
			// A base or component several overlays build: said once.
			file := joinDir(pl.dir, u.File)
			if seen["unjudged\x00"+file] {
				continue
			}
			seen["unjudged\x00"+file] = true
			out = append(out, checks.Unchecked{At: checks.Finding{File: file}, Reason: fmt.Sprintf("%s (%s)", u.Reason, pl.about)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.File < out[j].At.File })
	return out
}

// MapExempted moves the exempted findings of rendered objects, and the
// exceptions a render wrote, to the template, values or patch line they
// come from, as Map moves findings.
func (p *Prepared) MapExempted(es []checks.Exempted) []checks.Exempted {
	out := make([]checks.Exempted, len(es))
	for i, e := range es {
		if pl, ok := p.renders[e.Finding.File]; ok {
			pl.relocate(&e.Finding)
		}
		if pl, ok := p.renders[e.Exception.File]; ok {
			pl.relocate(&e.Exception)
		}
		out[i] = e
	}
	return out
}

// keepIgnores keeps the lines of the files of a folder that hold an ignore
// comment, of those whose contents it holds (see readKeepingIgnores for
// the others).
func (p *Prepared) keepIgnores(dir string, files Files) {
	for name, data := range files {
		p.keepIgnoresOf(dir, name, data)
	}
}

// keepIgnoresOf keeps the lines of file name of folder dir when they hold
// an ignore comment.
func (p *Prepared) keepIgnoresOf(dir, name string, data []byte) {
	if !bytes.Contains(data, []byte(checks.IgnoreComment)) {
		return
	}
	if p.ignoreLines == nil {
		p.ignoreLines = map[string][][]byte{}
	}
	p.ignoreLines[joinDir(dir, name)] = bytes.Split(data, []byte("\n"))
}

// readKeepingIgnores is read, keeping the lines of what it reads that hold
// an ignore comment: the renders of the folder read with it, so that each
// file a finding can be mapped to (a file a render read) is read once,
// not once more to look for ignores. Renders run on every CPU: the lines
// are kept under a lock, and read only once the renders are done. nil for
// a nil read.
func (p *Prepared) readKeepingIgnores(dir string, read Reader) Reader {
	if read == nil {
		return nil
	}
	var mu sync.Mutex
	return func(name string) ([]byte, error) {
		data, err := read(name)
		if err == nil {
			mu.Lock()
			p.keepIgnoresOf(dir, name, data)
			mu.Unlock()
		}
		return data, err
	}
}

// dropIgnored drops, in place, the findings an ignore comment silences at
// the line they were moved to, and with them those that anticipate their
// fixes (Finding.AfterFixOf) in the same render: from gives, by index
// into fs, the render a finding is of (nil, or past its end, for none).
func (p *Prepared) dropIgnored(fs []checks.Finding, from []*placed) []checks.Finding {
	if len(p.ignoreLines) == 0 {
		return fs
	}
	type fixOf struct {
		render *placed
		rule   string
		object checks.ObjectRef
	}
	renderOf := func(i int) *placed {
		if i < len(from) {
			return from[i]
		}
		return nil
	}
	ignored := make([]bool, len(fs))
	var gone map[fixOf]checks.Silenced // the silenced findings of renders, with their ignores
	for i, f := range fs {
		if !p.ignored(f, checks.Place{File: f.File, Line: f.Line}) && !slices.ContainsFunc(f.Parts, func(at checks.Place) bool { return p.ignored(f, at) }) {
			continue
		}
		ignored[i] = true
		if pl := renderOf(i); pl != nil {
			if gone == nil {
				gone = map[fixOf]checks.Silenced{}
			}
			o := f.Object
			o.Doc = 0 // a fix moves the finding to its source document
			// ignored kept f silenced last
			gone[fixOf{pl, f.RuleID, o}] = p.silenced[len(p.silenced)-1]
		}
	}
	out := fs[:0]
	for i, f := range fs {
		if ignored[i] {
			continue
		}
		if a := f.AfterFixOf; a != nil && renderOf(i) != nil {
			o := a.Object
			o.Doc = 0
			if s, ok := gone[fixOf{renderOf(i), a.Rule, o}]; ok {
				// The fix it awaits is not to be made: silenced by the
				// same ignore, so that a review that does not trust the
				// ignore (one its pull request adds) reports both.
				p.silenced = append(p.silenced, checks.Silenced{Finding: f, File: s.File, Line: s.Line, By: s.By})
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// ignored reports whether an ignore comment at place at, or on the line
// above it, silences f, and keeps it silenced if so. A finding is
// silenced at its line and at each of its Parts: a review comments at
// the values line of its image's tag, and its ignore goes there.
func (p *Prepared) ignored(f checks.Finding, at checks.Place) bool {
	ls := p.ignoreLines[at.File]
	if ls == nil {
		return false
	}
	line, by, ok := checks.CommentIgnoring(ls, at.Line, f.RuleID)
	if ok {
		p.silenced = append(p.silenced, checks.Silenced{Finding: f, File: at.File, Line: line, By: by})
	}
	return ok
}

// chartIgnores reports whether an ignore comment on the first line of
// chart file chartFile silences render-failed finding f of the chart,
// wherever f is (the template line the engine's error names, a values or
// dependency line), and keeps it silenced if so: the first line of
// Chart.yaml is where a chart's render problems with no line of their own
// are reported, and an ignore there holds for all of them. Call it once
// the folder's renders are done (their reads keep the ignore lines).
func (p *Prepared) chartIgnores(f checks.Finding, chartFile string) bool {
	return p.ignored(f, checks.Place{File: chartFile, Line: 1})
}

// MapSilenced moves the findings an ignore silenced in a render's output
// (a template's ignore comment is rendered with the line it is on) to the
// template, values, base or patch line they come from, as Map moves
// findings; the ignore is then the comment at that line, or the line
// above, when one is there. Entries of plain files are returned as they
// are.
func (p *Prepared) MapSilenced(ss []checks.Silenced) []checks.Silenced {
	out := make([]checks.Silenced, 0, len(ss))
	for _, s := range ss {
		pl, ok := p.renders[s.File]
		if !ok {
			out = append(out, s)
			continue
		}
		f := s.Finding
		pl.relocate(&f)
		s.Finding, s.File, s.Line = f, f.File, f.Line
		if ls := p.ignoreLines[f.File]; ls != nil {
			if line, by, ok := checks.CommentIgnoring(ls, f.Line, f.RuleID); ok {
				s.Line, s.By = line, by
			}
		}
		out = append(out, s)
	}
	return out
}

// Silenced returns the findings of renders that an ignore comment silenced
// at the template, values, base or patch line they were moved to (as
// checks.Result.Silenced lists those of plain files), so that a review can
// disclose the ignores a pull request adds.
func (p *Prepared) Silenced() []checks.Silenced { return p.silenced }

// UnmappedNote begins the note a finding's message gets when the template
// of its object is one of its render's Unmapped: its line may be the
// nearest one traced rather than its own, and the note says why.
const UnmappedNote = " (its line may be the nearest one traced, not its own: "

// unmapped returns why the template of document doc is among the render's
// Unmapped, or "".
func (pl *placed) unmapped(doc int) string {
	r := pl.render
	if doc < 0 || doc >= len(r.Documents) {
		return ""
	}
	for _, u := range r.Unmapped {
		if u.File == r.Documents[doc].Source {
			return u.Reason
		}
	}
	return ""
}

// containerLine is the line of file that writes the container at path c
// of document doc: where its name is written (the "- name:" line a
// review anchors the container's thread on), else where the container
// starts, 0 when file writes neither. A container's first line in the
// rendered text can be another key's (a pod template passed through
// fromYaml | toYaml comes out with its keys sorted), and its name can come
// from a values file, so each place the key has is tried.
func (pl *placed) containerLine(doc int, c, file string) int {
	for _, p := range []string{c + ".name", c} {
		for _, loc := range pl.render.Origins(doc, p) {
			if !loc.Inherited && loc.Kind != ValuesPart && loc.File == file && loc.Line > 0 {
				return loc.Line
			}
		}
	}
	return 0
}

// causeLine is the line that writes cause, a path of document doc (a
// Finding's Cause), when that is not the finding's own (line of file):
// where a values file or an overlay sets what brings the finding about
// (replicas: {{ .Values.replicaCount }}, a replicas: entry), or the
// object's own replicas: line.
func (pl *placed) causeLine(doc int, cause, file string, line int) (checks.Place, bool) {
	if cause == "" {
		return checks.Place{}, false
	}
	locs := pl.render.Origins(doc, cause)
	if len(locs) == 0 || locs[0].Inherited || locs[0].Line <= 0 || locs[0].File == file && locs[0].Line == line {
		return checks.Place{}, false
	}
	return checks.Place{File: joinDir(pl.dir, locs[0].File), Line: locs[0].Line, Column: max(locs[0].Column, 1), Cause: true}, true
}

// writerFirst returns locs, the origins of f's path, with the template line
// that writes the field first when f is a value the Kubernetes schema
// refuses (schema-invalid) and its value comes from a values line: the
// template makes the value's YAML (a number quoted into a string by
// "| quote", a mapping written where a scalar goes), and the values line
// comes second, as a part (where a review comments when a pull request
// changes that line); moved says so. Other findings keep the values line
// first: their value is what the author changes.
func writerFirst(f *checks.Finding, locs []Location) (out []Location, moved bool) {
	if f.RuleID != manifest.ProblemSchema || locs[0].Kind != Values || locs[0].Inherited {
		return locs, false
	}
	i := slices.IndexFunc(locs, func(l Location) bool { return l.Kind == Template && !l.Inherited && l.Line > 0 })
	if i < 0 {
		return locs, false
	}
	values := locs[0]
	values.Kind = ValuesPart
	out = []Location{locs[i], values}
	for j, l := range locs {
		if j != 0 && j != i {
			out = append(out, l)
		}
	}
	return out, true
}

// relocate moves f, a finding on the render's input, to the line its
// author edits (at the column Location.Column says), and its container's
// line (which a review anchors the container's thread on) to where that
// container is written in the same file, or to none (a review then
// gathers the container's findings at the line they share:
// bot.atOneLine); and drops its fix's edits (they apply to the rendered
// text).
func (pl *placed) relocate(f *checks.Finding) {
	doc := f.Object.Doc
	file, line, col, container := "", 1, 1, 0
	var parts []checks.Place
	if doc >= 0 && doc < len(pl.render.Documents) {
		file = pl.render.Documents[doc].Source
		if locs := pl.render.Origins(doc, f.Path); len(locs) > 0 {
			var moved bool
			if locs, moved = writerFirst(f, locs); moved {
				f.Message += fmt.Sprintf(" (the value is set at line %d of %s)", locs[1].Line, joinDir(pl.dir, locs[1].File))
			}
			loc := locs[0]
			file = loc.File
			line = max(loc.Line, 1)
			if loc.Line > 0 {
				col = max(loc.Column, 1)
			}
			for _, l := range locs[1:] {
				if l.Kind == ValuesPart && !l.Inherited && l.Line > 0 {
					parts = append(parts, checks.Place{File: joinDir(pl.dir, l.File), Line: l.Line, Column: max(l.Column, 1)})
				}
			}
		}
		if c := f.ContainerPath(); c != "" && f.ContainerLine > 0 {
			container = pl.containerLine(doc, c, file)
		}
		if at, ok := pl.causeLine(doc, f.Cause, file, line); ok {
			parts = append(parts, at)
		}
	}
	if file == "" {
		file = pl.render.Root
	}
	f.File = joinDir(pl.dir, file)
	f.Line, f.EndLine, f.Column = line, line, col
	f.ContainerLine = container
	f.Parts = parts
	if f.Fix != nil {
		fx := *f.Fix
		fx.Edits = nil
		f.Fix = &fx
	}
}
