package rendered

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// MaxVerifyRenders bounds the renders VerifyFixes spends on one chart: one
// for all of its candidate fixes together, and, when that one adds a
// finding, one for each half, and so on, until the bound. Candidates left
// are not verified, so their findings keep no edits.
const MaxVerifyRenders = 10

// VerifyFixes makes Map keep, as edits of the values file, the fixes of the
// findings whose keys a chart's values.yaml render takes from a values
// file (and, as edits of the template, those of a template with no
// template action): each fix's edits are translated to the values keys
// that feed them, the chart is rendered again with them (through the
// renderer Prepare was given, with ctx), and a fix is kept only when that
// render, checked on its own with cfg, no longer has its finding and has
// no finding the old one did not. Its finding then moves to the line it
// edits. The other findings of renders keep their fix's description only,
// as without VerifyFixes. folders are the ones Prepare was given: the
// charts' own files are kept from them (Prepare keeps none, so a run that
// does not verify holds no file). Call it before Map; each chart then
// costs up to MaxVerifyRenders more renders. memo, when not nil, carries
// what was learnt from one Prepare to the next of the same charts (see
// FixMemo).
func (p *Prepared) VerifyFixes(ctx context.Context, cfg *checks.Config, folders []Folder, memo *FixMemo) {
	if ctx == nil {
		ctx = context.Background()
	}
	p.verify = &verifier{ctx: ctx, cfg: cfg, memo: memo}
	p.VerifyClaims(ctx, cfg, folders)
}

// FixMemo carries, across the Prepares of one prodready fix (each round
// renders the charts again from the text fixed so far), the fixes that
// rendering again with them alone showed wrong (their finding stayed, or
// another came), so that a later round spends no render on them and its
// renders go to the fixes not verified yet. The zero value is ready.
type FixMemo struct {
	wrong map[string]string // why, by candidate id
	// Builds, when set, keeps the overlays each round builds, so that a
	// round builds again only those whose files the last one's fixes
	// changed (the Options.Builds of scan.FixRound's renders).
	Builds BuildCache
	// Want, when set, says which findings' fixes the caller applies (as
	// the rules check them, before they are mapped to their source):
	// only those are verified, so that the renders that verify one
	// chart's fixes are not spent on fixes it will not apply (fix --rule
	// readiness-probe-missing withheld both readiness fixes of a chart
	// as not verified, the renders spent on other rules' fixes).
	Want func(checks.Finding) bool
}

// verifier holds what VerifyFixes needs to render again.
type verifier struct {
	ctx  context.Context
	cfg  *checks.Config
	memo *FixMemo
	// withheld says, by candidate id, why a fix rendered alone was
	// found wrong.
	withheld map[string]string
}

// id names a candidate fix of pl for a FixMemo: its chart, finding and
// edits.
func (pl *placed) id(c candidate) string {
	id := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d\x00%v\x00%v", pl.dir, pl.render.Root, c.key, c.place.file, c.place.doc, c.place.edits, c.place.lines)
	if a := c.place.also; a != nil {
		id += fmt.Sprintf("\x00%s\x00%d\x00%v", a.file, a.doc, a.edits)
	}
	return id
}

// known reports whether memo holds c as wrong, and keeps why as this
// run's reason to withhold it.
func (v *verifier) known(pl *placed, c candidate) bool {
	if v.memo == nil {
		return false
	}
	why, ok := v.memo.wrong[pl.id(c)]
	if ok {
		v.unverified(pl, c, why)
	}
	return ok
}

// unverified records why c is withheld without recording it as wrong in
// the memo: it was not rendered alone (the bound of renders was spent, or
// a render of the chart alone cannot tell its finding gone), so a later
// round of fix may still verify it; or the memo holds it as wrong already
// (known).
func (v *verifier) unverified(pl *placed, c candidate, why string) {
	if v.withheld == nil {
		v.withheld = map[string]string{}
	}
	v.withheld[pl.id(c)] = why
}

// learn records c, rendered alone, as wrong, and why: withheld in this
// run (as unverified records it) and in the memo, for later rounds.
func (v *verifier) learn(pl *placed, c candidate, why string) {
	v.unverified(pl, c, why)
	if v.memo == nil {
		return
	}
	if v.memo.wrong == nil {
		v.memo.wrong = map[string]string{}
	}
	v.memo.wrong[pl.id(c)] = why
}

// source is what a chart's values.yaml render was made from, for
// VerifyFixes: the files it read (not the whole folder's), the renderer
// and its options. Files listed with no contents (a folder listed with
// ListDir) are read again when a fix is translated or rendered
// (opts.Read), so that the run does not hold them while its rules run.
type source struct {
	files  Files
	render Renderer
	opts   Options
}

// fileSet is where a fix's translation reads a render's files: a Files
// set, or a render's source, which reads those it lists with no contents.
type fileSet interface {
	// file returns the contents of file p, false when there is none.
	file(p string) ([]byte, bool)
	// paths returns the paths of the files, in no order.
	paths() []string
}

func (f Files) file(p string) ([]byte, bool) {
	data, ok := f[p]
	return data, ok
}

func (f Files) paths() []string { return slices.Collect(maps.Keys(f)) }

func (s *source) file(p string) ([]byte, bool) {
	data, ok, _ := s.files.Read(p, s.opts.Read) // one that cannot be read is none: no fix is made from it
	return data, ok
}

func (s *source) paths() []string { return s.files.paths() }

// contents returns the contents of file p of files, nil when there is
// none.
func contents(files fileSet, p string) []byte {
	data, _ := files.file(p)
	return data
}

// keepSources records, for each values.yaml render of a chart of folder
// dir, what it was made from; read reads the files the folder lists with
// no contents.
func (p *Prepared) keepSources(dir string, files Files, read Reader, render Renderer, opts Options) {
	opts.Read = read
	for _, pl := range p.renders {
		if pl.dir != dir || pl.src != nil || len(pl.render.ValuesFiles) > 0 {
			continue
		}
		own := make(Files, len(pl.render.Inputs))
		for _, in := range pl.render.Inputs {
			if data, ok := files[in]; ok {
				own[in] = data
			}
		}
		pl.src = &source{files: own, render: render, opts: opts}
	}
}

// placement is where a verified fix puts its finding: a values file (or a
// template that is plain YAML), the line of the key it edits first, and
// the edits of that file's document doc; or a template, the first line it
// changes, and its line changes.
type placement struct {
	file  string // relative to the render's folder
	doc   int
	line  int
	edits []edit.Op
	lines []edit.Change
	// keys are the values keys the edits set, for the fix's description
	// (which names the rendered field); none for a template's edits.
	keys []string
	// from are the rendered paths of the edits of a kustomize patch or
	// base (kustomizeEdits), and note what the description adds.
	from [][]string
	note string
	// patch says whether the edits append a patch to the overlay's
	// kustomization file (overlayPatch), and which; inline, whether they
	// write again a patch a kustomization writes in its own text
	// (inlinePatchEdit).
	patch  patchKind
	inline bool
	// also, for a fix made in two files (split), is its part in a
	// values file, this placement being its template lines: ops are the
	// fix's edits those lines make, and atAlso says the finding belongs
	// at also's line (its fix's first edit is made there).
	also   *placement
	ops    []edit.Op
	atAlso bool
}

// primary is pc as Map places its finding: for a fix made in two files
// whose first edit is in the values file, that part, with the template
// lines as its other part.
func (pc placement) primary() placement {
	if pc.also == nil || !pc.atAlso {
		return pc
	}
	lines := pc
	lines.also, lines.atAlso = nil, false
	values := *pc.also
	values.also = &lines
	return values
}

// columnAt returns the column at which line (1-based) of file, a path of
// the render's folder, writes its first key or value (WrittenColumn), as
// the file is in the sources the fixes were made from; 1 when that is not
// known. Each file is read once.
func (pl *placed) columnAt(file string, line int) int {
	if pl.src == nil || line < 1 {
		return 1
	}
	cols, ok := pl.cols[file]
	if !ok {
		cols = NewColumns(contents(pl.src, file))
		if pl.cols == nil {
			pl.cols = map[string]Columns{}
		}
		pl.cols[file] = cols
	}
	return max(cols.At(line), 1)
}

// patchKind is the kind of patch a placement appends to an overlay's
// kustomization file, if any.
type patchKind uint8

const (
	noPatch patchKind = iota
	strategicMerge
	json6902
)

// candidate is a finding whose fix was translated to values edits.
type candidate struct {
	finding int    // index into the findings Map was given
	key     string // the finding's key in a check of the render alone
	place   placement
	// followUps are the rule-and-object keys (followUpKey) of the findings
	// the fix brings on by design, which do not count against it.
	followUps map[string]bool
	// doc is the rendered document of the finding.
	doc int
	// edits are the fix's edits of that document, from which a batch
	// places its template line fixes of one document together
	// (batchLines), and reads the paths its edits write again
	// (Fix.Reads).
	edits []edit.Op
	reads []manifest.Path
	// turnsOn says the fix turns a template of the chart on
	// (Fix.TurnOn): it is verified alone first (turnedOn).
	turnsOn bool
}

// chartPlacement places the fix of finding f of a chart's render: in a
// values file, on a template's literal lines, on the template lines
// around them, or by a wider include, the first of these that takes it
// and keeps what the chart computes computed; a fix that turns on a
// template of the chart (Fix.TurnOn), in values.yaml only. When some took it but none
// keeps that, why says what the first would have written as rendered (a
// release's or the chart's name, a value a helper computes), and the fix
// is withheld.
func (pl *placed) chartPlacement(src *source, f checks.Finding) (placement, bool, string) {
	tries := []func(fileSet, checks.Finding) (placement, bool){pl.inValues, pl.literal, pl.templateLines, pl.widerInclude, pl.split}
	if f.Fix.TurnOn != nil {
		tries = []func(fileSet, checks.Finding) (placement, bool){pl.turnOn}
	}
	first := ""
	for _, try := range tries {
		pc, ok := try(src, f)
		if !ok {
			continue
		}
		why := pl.writesRendered(src, f, pc)
		if why == "" && pc.also != nil {
			why = pl.writesRendered(src, f, *pc.also)
		}
		if why == "" {
			return pc, true, ""
		}
		if first == "" {
			first = why
		}
	}
	return placement{}, false, first
}

// writesRendered says why placement pc of f's fix would write as
// rendered what the chart computes: the release's name, the chart's
// name, a value a template computes, or a value the fix reads where the
// chart may not write it; "" when it writes none.
func (pl *placed) writesRendered(src *source, f checks.Finding, pc placement) string {
	// On template lines, what they write: a copy of an include is no
	// longer the release's name.
	release := src.opts.WithDefaults().ReleaseName
	var why string
	if len(pc.lines) > 0 {
		why = releaseBoundLines(pc.lines, contents(src, pc.file), release)
	} else {
		why = releaseBound(pc.edits, release)
	}
	if why == "" && len(pc.keys) > 0 {
		why = chartNameBound(pc.edits, readChartDeps(contents(src, path.Join(pl.render.Root, "Chart.yaml"))).Name)
	}
	if why == "" {
		copies := pl.computedCopies(pl.chartLines(src), f.Object.Doc, f.Fix.Edits, f.Fix.Reads)
		if len(pc.lines) > 0 {
			why = computedBoundLines(pc.lines, contents(src, pc.file), copies)
		} else if len(pc.keys) > 0 {
			why = computedBound(pc.edits, copies)
		}
	}
	if why == "" {
		why = pl.readsWritten(src, f)
	}
	return why
}

// followUpObject is the object f's fix's follow-ups are found on: its
// own, or the one the fix names (an HPA's scale target).
func followUpObject(f checks.Finding) checks.ObjectRef {
	if f.Fix != nil && f.Fix.FollowUpsOn != nil {
		return *f.Fix.FollowUpsOn
	}
	return f.Object
}

// followUpKey is a finding's rule and object: the part of its aloneKey a
// fix's follow-ups name.
func followUpKey(rule string, obj checks.ObjectRef) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00", rule, obj.Kind, obj.Namespace, obj.Name)
}

// verified returns, by index into fs, where the verified fixes of fs put
// their findings, and why the fixes rendering again showed wrong are
// withheld.
func (p *Prepared) verified(fs []checks.Finding) (map[int]placement, map[int]string) {
	withheld := map[int]string{}
	if p.verify == nil {
		return nil, withheld
	}
	want := func(checks.Finding) bool { return true }
	if m := p.verify.memo; m != nil && m.Want != nil {
		want = m.Want
	}
	order, byRender := p.byRender(fs, func(_ *placed, f checks.Finding) bool {
		return f.Fix != nil && (len(f.Fix.Edits) > 0 || f.Fix.TurnOn != nil) && want(f)
	})
	shared := p.sharedEdits(order, byRender, fs)
	candsOf := map[*placed][]candidate{}
	for _, pl := range order {
		src := pl.src
		if src == nil {
			continue
		}
		var cands []candidate
		for _, i := range byRender[pl] {
			var pc placement
			var ok bool
			if pl.render.Kind == Kustomize {
				// A replicas: entry's count, or a patch the kustomization
				// writes in its own text, is edited where it is, when the
				// run was given that kustomization: a base or patch file
				// edit would not change what the build applies.
				if pc, ok = pl.replicasCountEdit(src, fs[i]); !ok {
					pc, ok = pl.inlinePatchEdit(src, fs[i])
				}
				if ok && !p.given[path.Clean(joinDir(pl.dir, pc.file))] {
					pc, ok = placement{}, false
				}
				if !ok && !shared[i] && !p.outsideRun(pl, fs[i]) {
					pc, ok = pl.kustomizeEdits(src, fs[i])
				}
				if !ok {
					pc, ok = pl.overlayPatch(src, fs[i])
				}
			} else {
				var why string
				pc, ok, why = pl.chartPlacement(src, fs[i])
				if why != "" {
					withheld[i] = why
					continue
				}
			}
			if ok {
				c := candidate{finding: i, key: aloneKey(fs[i]), place: pc, doc: fs[i].Object.Doc, edits: fs[i].Fix.Edits, reads: fs[i].Fix.Reads, turnsOn: fs[i].Fix.TurnOn != nil}
				if pc.also != nil {
					c.edits = pc.ops // the template lines' own: batchLines makes them again with others'
				}
				for _, rule := range fs[i].Fix.FollowUps {
					if c.followUps == nil {
						c.followUps = map[string]bool{}
					}
					c.followUps[followUpKey(rule, followUpObject(fs[i]))] = true
				}
				cands = append(cands, c)
			}
		}
		candsOf[pl] = cands
	}
	disagree(order, candsOf, fs, withheld)
	out := map[int]placement{}
	for _, pl := range order {
		src, cands := pl.src, candsOf[pl]
		if src == nil {
			continue
		}
		kept := pl.verify(p.verify, src, cands)
		pl.combineTemplateLines(p.verify, src, fs, kept)
		pl.combineOverlayPatches(src, fs, kept)
		pl.combineInlinePatches(src, kept)
		for _, c := range kept {
			out[c.finding] = c.place
		}
		for _, c := range cands {
			if _, ok := out[c.finding]; ok {
				continue
			}
			if why := p.verify.withheld[pl.id(c)]; why != "" {
				withheld[c.finding] = why
			}
		}
	}
	return out, withheld
}

// outsideRun reports whether f's fix, as an edit of its patch or base
// line, would edit a file the run was not given: a base beside the overlay
// named (fix overlays/prod, whose base is ../../base). Fix writes only the
// files it is given, and overlays the run does not build may build on
// that base, so the fix is a patch of the overlay instead, as it is when
// another overlay of the run builds the line (sharedEdits).
func (p *Prepared) outsideRun(pl *placed, f checks.Finding) bool {
	loc := pl.baseTarget(f)
	return loc != nil && !p.given[path.Clean(joinDir(pl.dir, loc.File))]
}

// disagree takes out of candsOf the fixes that several overlays make of
// one finding at one line of a file they all build on (a base) with
// different edits, and says why in withheld: each overlay's build gives
// the object its own labels, names or values (commonLabels, a
// namePrefix), which a fix copied from it (a spread constraint's
// labelSelector) carries, so the edit one overlay verifies is wrong for
// the others. Written into the shared file, it would be there once per
// overlay, each selecting the pods of one.
func disagree(order []*placed, candsOf map[*placed][]candidate, fs []checks.Finding, withheld map[int]string) {
	type at struct {
		file, rule, path string
		doc              int
	}
	// A patch appended to the overlay's own kustomization is its alone.
	own := func(pl *placed, c candidate) bool { return c.place.file == pl.render.Root }
	keyOf := func(pl *placed, c candidate) at {
		return at{joinDir(pl.dir, c.place.file), fs[c.finding].RuleID, fs[c.finding].Path, c.place.doc}
	}
	edits := map[at]map[string][]string{} // the overlays making each edit
	for _, pl := range order {
		if pl.render.Kind != Kustomize {
			continue
		}
		for _, c := range candsOf[pl] {
			if own(pl, c) {
				continue
			}
			k := keyOf(pl, c)
			e := fmt.Sprint(c.place.edits, c.place.lines)
			if edits[k] == nil {
				edits[k] = map[string][]string{}
			}
			edits[k][e] = append(edits[k][e], pl.about)
		}
	}
	for _, pl := range order {
		if pl.render.Kind != Kustomize {
			continue
		}
		var kept []candidate
		for _, c := range candsOf[pl] {
			k := keyOf(pl, c)
			if own(pl, c) || len(edits[k]) < 2 {
				kept = append(kept, c)
				continue
			}
			var abouts []string
			for _, as := range edits[k] {
				abouts = append(abouts, as...)
			}
			slices.Sort(abouts)
			if abouts = slices.Compact(abouts); len(abouts) == 1 {
				// One overlay building the line more than once
				// (kustomize's multibases: one base under three prefixes).
				withheld[c.finding] = fmt.Sprintf("the %s builds this line more than once and would write it differently each time, with each object's own labels, names or values: one edit of the shared file would be wrong for some of them", abouts[0])
				continue
			}
			withheld[c.finding] = fmt.Sprintf("the overlays that build this line (the %s) would each write it differently, with their own labels, names or values: one edit of the shared file would be wrong for some of them", nameRenders(abouts, 3))
		}
		candsOf[pl] = kept
	}
}

// releaseBound says why a fix of a chart's render cannot be written into
// the chart's files when one of its edits writes a value the render took
// from the release's name (name, or a name that starts with it, as a
// chart's fullname does): copied into values.yaml or a template, it would
// hold this render's name, and select or name nothing in a release of
// another name. A spread constraint's labelSelector copied from a
// Deployment's selector (app.kubernetes.io/instance: release) is one.
// "" when no edit does.
func releaseBound(ops []edit.Op, name string) string {
	if v, ok := editedScalar(ops, releaseNamed(name)); ok {
		return fmt.Sprintf("its edit writes %q, which the render took from the release's name (%q): in values.yaml or a template it would hold that name in every release", v, name)
	}
	return ""
}

// chartNameBound says why a fix cannot be written into a chart's values
// file when one of its edits writes the chart's name (name): the render
// may have taken it from a template that computes it (a chart's name
// helper, which the chart's users change with nameOverride), and in
// values.yaml it would stay the same when they do (a spread's
// labelSelector would then select none of the pods). "" when no edit
// does.
func chartNameBound(ops []edit.Op, name string) string {
	if name == "" {
		return ""
	}
	if _, ok := editedScalar(ops, func(v string) bool { return v == name }); ok {
		return fmt.Sprintf("its edit writes %q, the chart's name, which its templates may compute (nameOverride changes it): in values.yaml it would stay %q when they do", name, name)
	}
	return ""
}

// editedScalar returns the first scalar value the edits ops write that
// is reports true of.
func editedScalar(ops []edit.Op, is func(string) bool) (string, bool) {
	for _, op := range ops {
		var n yaml.Node
		if op.Value == "" || yaml.Unmarshal([]byte(op.Value), &n) != nil {
			continue
		}
		if v, ok := scalarWhere(&n, is); ok {
			return v, true
		}
	}
	return "", false
}

// releaseBoundLines is releaseBound for template line changes of tmpl:
// the lines they write that the template does not have (addedLines) and
// that hold no action, each read as YAML alone.
func releaseBoundLines(cs []edit.Change, tmpl []byte, name string) string {
	for _, c := range addedLines(cs, tmpl) {
		for _, l := range strings.Split(c.Text, "\n") {
			t := strings.TrimSpace(l)
			if t == "" || strings.Contains(t, "{{") {
				continue
			}
			var n yaml.Node
			if yaml.Unmarshal([]byte(t), &n) != nil {
				continue
			}
			if v, ok := scalarWhere(&n, releaseNamed(name)); ok {
				return fmt.Sprintf("its edit writes %q, which the render took from the release's name (%q): in a template it would hold that name in every release", v, name)
			}
		}
	}
	return ""
}

// addedLines returns changes cs of template tmpl with only the lines
// they write that tmpl does not have (by their text, trimmed): what a
// fix adds, not the lines around it that it writes again.
func addedLines(cs []edit.Change, tmpl []byte) []edit.Change {
	old := map[string]bool{}
	for _, l := range bytes.SplitAfter(tmpl, []byte("\n")) {
		old[strings.TrimSpace(string(l))] = true
	}
	out := make([]edit.Change, len(cs))
	for i, c := range cs {
		var b strings.Builder
		for _, l := range strings.SplitAfter(c.Text, "\n") {
			if !old[strings.TrimSpace(l)] {
				b.WriteString(l)
			}
		}
		out[i] = edit.Change{StartLine: c.StartLine, EndLine: c.EndLine, Text: b.String()}
	}
	return out
}

// releaseNamed reports of a value whether it is the release's name
// (name), or starts with it and a dash, as a chart's fullname does.
func releaseNamed(name string) func(string) bool {
	return func(v string) bool { return v == name || strings.HasPrefix(v, name+"-") }
}

// scalarWhere returns the first scalar value under n that is reports
// true of.
func scalarWhere(n *yaml.Node, is func(string) bool) (string, bool) {
	if n.Kind == yaml.ScalarNode && is(n.Value) {
		return n.Value, true
	}
	for _, c := range n.Content {
		if v, ok := scalarWhere(c, is); ok {
			return v, true
		}
	}
	return "", false
}

// aloneKey identifies a finding of a render across two checks of it on its
// own: rule, object and key path (the lines move with the edits).
func aloneKey(f checks.Finding) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", f.RuleID, f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Path)
}

// byRender groups the indexes of fs by the checked render (a chart's
// values.yaml render or an overlay, not another values set) each finding
// is of, for those keep accepts, in the order the renders first appear.
func (p *Prepared) byRender(fs []checks.Finding, keep func(*placed, checks.Finding) bool) ([]*placed, map[*placed][]int) {
	by := map[*placed][]int{}
	var order []*placed
	for i, f := range fs {
		pl, ok := p.renders[f.File]
		if !ok || len(pl.render.ValuesFiles) > 0 || !keep(pl, f) {
			continue
		}
		if _, ok := by[pl]; !ok {
			order = append(order, pl)
		}
		by[pl] = append(by[pl], i)
	}
	return order, by
}

// findingDoc is the index of the rendered document f is about and its
// parsed node, or a nil node when the render has no such document or map.
func (pl *placed) findingDoc(f checks.Finding) (int, *yaml.Node) {
	doc := f.Object.Doc
	if doc < 0 || doc >= len(pl.render.Documents) || doc >= len(pl.render.Maps) {
		return doc, nil
	}
	return doc, pl.renderedDoc(doc)
}

// translate returns the values edits that make f's fix: for each edit, the
// longest prefix of its path that has a location of its own must have one
// in a values file, at a key whose value is what the template renders
// there (a value the template computes from it is not), and every edit
// must land in the same values file.
func (pl *placed) translate(files fileSet, f checks.Finding) (placement, bool) {
	return pl.valuesEdits(files, f, false)
}

// inValues returns f's fix as edits of one values file, as translate does,
// where each edit may also be made through a values key the chart's
// template writes only in a block of its own: a key the render lacks, set
// on the values key whose block alone writes it (guardedOp), or an item
// appended to a list whose template writes a values list at its end
// (extendedOp).
func (pl *placed) inValues(files fileSet, f checks.Finding) (placement, bool) {
	return pl.valuesEdits(files, f, true)
}

// valuesEdits is translate, and with guards, inValues.
func (pl *placed) valuesEdits(files fileSet, f checks.Finding, guards bool) (placement, bool) {
	doc, root := pl.findingDoc(f)
	if root == nil {
		return placement{}, false
	}
	var out placement
	for _, op := range f.Fix.Edits {
		file, t, ok := pl.valuesOp(files, doc, root, op, guards)
		if !ok || out.file != "" && file != out.file {
			return placement{}, false
		}
		out.file = file
		out.addValuesEdit(t)
	}
	if out.file == "" {
		return placement{}, false
	}
	return out.atValues(pl.valuesDoc(files, out.file))
}

// valuesOp returns op as an edit of a values file (translateOp), and with
// guards also through a values key whose block alone writes it
// (guardedOp) or a values list the template writes at its list's end
// (extendedOp).
func (pl *placed) valuesOp(files fileSet, doc int, root *yaml.Node, op edit.Op, guards bool) (string, edit.Op, bool) {
	file, t, ok := pl.translateOp(files, doc, root, op)
	if !ok && guards {
		file, t, ok = pl.guardedOp(files, doc, root, op)
		if !ok {
			file, t, ok = pl.extendedOp(files, doc, root, op)
		}
	}
	return file, t, ok
}

// translateOp returns op as an edit of the values file whose key renders
// the longest prefix of its path that has a location of its own.
func (pl *placed) translateOp(files fileSet, doc int, root *yaml.Node, op edit.Op) (string, edit.Op, bool) {
	segs, nodes := yamlpath.Walk(root, op.Path)
	n := len(segs)
	var locs []Location
	for ; n >= 0; n-- {
		if locs = pl.render.Map(doc)[FormatPath(segs[:n])]; len(locs) > 0 {
			break
		}
	}
	var at *Location
	for i := range locs {
		if locs[i].Kind == Values && !locs[i].Inherited && locs[i].Line > 0 {
			at = &locs[i]
			break
		}
	}
	if at == nil || nodes[n] == nil || pl.vendored(at.File) {
		return "", edit.Op{}, false
	}
	values := pl.valuesDoc(files, at.File)
	if values == nil {
		return "", edit.Op{}, false
	}
	keyPath, ok := yamlpath.KeyAt(values, at.Line, nodes[n])
	if !ok {
		return "", edit.Op{}, false
	}
	t := op
	t.Path = append(keyPath, op.Path[n:]...)
	return at.File, t, true
}

// addValuesEdit adds t, an edit of a values file, and the key it sets.
func (out *placement) addValuesEdit(t edit.Op) {
	out.edits = append(out.edits, t)
	if k := strings.Join(t.Path, "."); !slices.Contains(out.keys, k) {
		out.keys = append(out.keys, k)
	}
}

// atValues is out, placed at the line of values whose key its first edit
// sets (or the nearest that values has), when it has edits.
func (out placement) atValues(values *yaml.Node) (placement, bool) {
	if len(out.edits) == 0 {
		return placement{}, false
	}
	out.line = yamlpath.NearestLine(values, out.edits[0].Path)
	return out, true
}

// literal returns f's fix as edits of its document's template when that
// template holds no template action at all (plain YAML, rendered as
// written): the same edits, on the template's document that renders as
// f's. A template with any {{ is not edited: its text is not YAML the
// edit engine can read.
func (pl *placed) literal(files fileSet, f checks.Finding) (placement, bool) {
	r := pl.render
	doc := f.Object.Doc
	if doc < 0 || doc >= len(r.Documents) {
		return placement{}, false
	}
	file := r.Documents[doc].Source
	data, ok := files.file(file)
	if !ok || bytes.Contains(data, []byte("{{")) || pl.vendored(file) {
		return placement{}, false
	}
	// The template's documents are the render's documents from it, in
	// order, one for one (Helm drops empty ones: then no edit).
	at, n := -1, 0
	for i, d := range r.Documents {
		if d.Source == file {
			if i == doc {
				at = n
			}
			n++
		}
	}
	docs := yamlpath.ParseDocs(data, n+1)
	if at < 0 || len(docs) != n {
		return placement{}, false
	}
	rendered := pl.renderedDoc(doc)
	if rendered == nil || docs[at] == nil {
		return placement{}, false
	}
	a, okA := yamlpath.Plain(rendered)
	b, okB := yamlpath.Plain(docs[at])
	if !okA || !okB || !reflect.DeepEqual(a, b) {
		return placement{}, false
	}
	edits := append([]edit.Op(nil), f.Fix.Edits...)
	return placement{file: file, doc: at, line: yamlpath.NearestLine(docs[at], edits[0].Path), edits: edits}, true
}

// split places f's fix in two files of the chart, when no one file takes
// it whole: the keys a values file takes (as inValues does) set there,
// and the other edits, list items among them, on the template lines that
// render what they change (templateLinesOf). A read-only root filesystem
// for a container whose securityContext the chart writes from values is
// set in values.yaml, and the emptyDir for /tmp is added in the template.
// The placement is the template lines, with the values part as its also;
// Map places the finding where the fix's first edit is (primary).
// VerifyFixes renders the chart again with both parts.
func (pl *placed) split(files fileSet, f checks.Finding) (placement, bool) {
	doc, root := pl.findingDoc(f)
	if root == nil || len(f.Fix.Edits) < 2 {
		return placement{}, false
	}
	var values placement
	var rest []edit.Op
	first := false
	for i, op := range f.Fix.Edits {
		if op.Action != edit.Set {
			// An item of a list goes on the template's lines: a release's
			// values replace a list of values.yaml whole (a mapping they
			// merge key by key), and would drop a volume for /tmp the
			// other part's read-only root filesystem needs.
			rest = append(rest, op)
			continue
		}
		file, t, ok := pl.valuesOp(files, doc, root, op, true)
		if !ok || values.file != "" && file != values.file {
			rest = append(rest, op)
			continue
		}
		values.file = file
		values.addValuesEdit(t)
		first = first || i == 0
	}
	if len(values.edits) == 0 || len(rest) == 0 {
		return placement{}, false
	}
	values, ok := values.atValues(pl.valuesDoc(files, values.file))
	if !ok {
		return placement{}, false
	}
	lines, ok := pl.templateLinesOf(files, doc, rest, f.Fix.Reads)
	if !ok {
		return placement{}, false
	}
	lines.also, lines.ops, lines.atAlso = &values, rest, first
	return lines, true
}

// vendored reports whether file belongs to a subchart of the render's chart
// (under its charts/ folder): a dependency's defaults and templates are
// not edited; the chart's own values would override them.
func (pl *placed) vendored(file string) bool {
	return strings.HasPrefix(file, path.Join(pl.render.Root, "charts")+"/")
}

// renderedDoc returns the parsed document doc of the render (nil when it
// does not parse), parsed once.
func (pl *placed) renderedDoc(doc int) *yaml.Node {
	if pl.docs == nil {
		pl.docs = map[int]*yaml.Node{}
	}
	if n, ok := pl.docs[doc]; ok {
		return n
	}
	n := yamlpath.ParseDoc(pl.render.Documents[doc].YAML)
	pl.docs[doc] = n
	return n
}

// valuesDoc returns the values file at file (relative to the folder),
// parsed once; nil when it is not among files or does not parse.
func (pl *placed) valuesDoc(files fileSet, file string) *yaml.Node {
	if pl.values == nil {
		pl.values = map[string]*yaml.Node{}
	}
	if n, ok := pl.values[file]; ok {
		return n
	}
	var n *yaml.Node
	if data, ok := files.file(file); ok {
		n = yamlpath.ParseDoc(data)
	}
	pl.values[file] = n
	return n
}

// verify renders the chart again with the candidates' edits and returns
// those whose finding is gone without a new one: all together first, then,
// when that adds a finding, one at a time, within MaxVerifyRenders renders
// of this chart in all.
func (pl *placed) verify(v *verifier, src *source, cands []candidate) []candidate {
	if len(cands) == 0 {
		return nil
	}
	old := pl.aloneKeys(v.cfg)
	var todo []candidate
	for _, c := range cands {
		switch {
		case !old.has(c.key):
			v.unverified(pl, c, "not verified: the "+pl.kindName()+" checked alone does not have its finding (it depends on objects outside it), so rendering it again cannot show the finding gone")
		case !v.known(pl, c):
			todo = append(todo, c)
		}
	}
	todo = pl.turnedOn(v, src, todo, old)
	if len(todo) == 0 {
		return nil
	}
	return pl.settle(v, src, todo, old)
}

// turnedOn renders the chart again with each candidate of cands that
// turns a template on (Fix.TurnOn) alone, and returns the others with
// those whose finding that render showed gone with nothing added: a
// review's suggestion may be committed alone, and the object a template
// adds must then be right with the chart as it is (a budget of
// minAvailable: 1 over the one replica that another fix raises blocks
// every drain). Why the others are withheld holds for this run only: a
// later round of fix, after that other fix, may take them. Those kept are
// then verified with the rest, as every fix is.
func (pl *placed) turnedOn(v *verifier, src *source, cands []candidate, old findingKeys) []candidate {
	var out []candidate
	for _, c := range cands {
		if !c.turnsOn {
			out = append(out, c)
			continue
		}
		keys, ok, failed := pl.rerender(v, src, []candidate{c}, nil, true)
		added := adds(keys, old, []candidate{c})
		switch {
		case ok && added == "" && !keys.fixLeft(c.key):
			out = append(out, c)
		case ok && added == "":
			v.unverified(pl, c, pl.again()+" with it alone, its finding stays")
		case ok:
			v.unverified(pl, c, pl.again()+" with it alone brings "+describeKey(added))
		case failed != "" && v.ctx.Err() == nil:
			v.unverified(pl, c, pl.again()+" with it alone: "+failed)
		default:
			pl.notSettled(v, []candidate{c})
		}
	}
	return out
}

// settle renders the chart again with all of cands and keeps those whose
// finding is gone when nothing is added; when something is, or the edits
// do not apply together, it settles each half apart, so one candidate that
// adds a finding costs about two renders per halving, not one per
// candidate. It stops at the bound of renders.
func (pl *placed) settle(v *verifier, src *source, cands []candidate, old findingKeys) []candidate {
	lines, placed := pl.batchLines(src, cands)
	if !placed {
		// Line changes that overlap and cannot be placed together are
		// not made together: no render is spent finding that out.
		if fit, rest := apartFromOverlaps(cands); len(rest) > 0 {
			return append(pl.settle(v, src, fit, old), pl.settle(v, src, rest, old)...)
		}
	}
	keys, ok, failed := pl.rerender(v, src, cands, lines, placed)
	added := adds(keys, old, cands)
	if ok && added == "" {
		if len(cands) == 1 && keys.fixLeft(cands[0].key) {
			v.learn(pl, cands[0], pl.again()+" with it, its finding stays")
			return nil
		}
		return pl.keptTogether(v, cands, keys)
	}
	if len(cands) == 1 {
		switch {
		case ok:
			v.learn(pl, cands[0], pl.again()+" with it brings "+describeKey(added))
		case failed != "" && v.ctx.Err() == nil:
			v.learn(pl, cands[0], pl.again()+" with it: "+failed)
		default:
			pl.notSettled(v, cands)
		}
		return nil
	}
	if pl.rerenders >= MaxVerifyRenders || v.ctx.Err() != nil {
		pl.notSettled(v, cands)
		return nil
	}
	mid := len(cands) / 2
	return pl.together(v, src, pl.settle(v, src, cands[:mid], old), pl.settle(v, src, cands[mid:], old), old)
}

// together returns the fixes of first and second, each settled apart
// after a render with all of them added a finding, that can be made
// together: all whose finding is gone when a render with all of them
// adds no finding; else first's, with second's withheld for this run (a
// later round of fix, after first's, may take them). Fix makes them
// together, and halves settled apart were never rendered together: a
// wider include and literal lines that each add the same labels right
// alone write each label twice together. Fixes whose line changes cannot
// be placed together are kept as they are: fix makes those one round
// after another.
func (pl *placed) together(v *verifier, src *source, first, second []candidate, old findingKeys) []candidate {
	all := append(slices.Clip(first), second...)
	if len(first) == 0 || len(second) == 0 {
		return all
	}
	lines, placed := pl.batchLines(src, all)
	if !placed {
		return all
	}
	keys, ok, failed := pl.rerender(v, src, all, lines, true)
	added := adds(keys, old, all)
	why := ""
	switch {
	case ok && added == "":
		return pl.keptTogether(v, all, keys)
	case ok:
		why = pl.again() + " with it and the other fixes brings " + describeKey(added)
	case failed != "" && v.ctx.Err() == nil:
		why = pl.again() + " with it and the other fixes: " + failed
	default:
		pl.notSettled(v, second)
		return first
	}
	for _, c := range second {
		v.unverified(pl, c, why)
	}
	return first
}

// keptTogether returns the candidates of cands, made together in a
// render whose findings are keys, whose finding is gone; of the others
// it says so for this run only: another fix made with them could have
// kept their finding (one edit of the same field), so a later round of
// fix may try them again.
func (pl *placed) keptTogether(v *verifier, cands []candidate, keys findingKeys) []candidate {
	for _, c := range cands {
		if keys.fixLeft(c.key) {
			v.unverified(pl, c, pl.again()+" with it and the other fixes, its finding stays")
		}
	}
	return gone(cands, keys)
}

// batchLines returns the template line changes of cands by file: each
// candidate's own, a change several carry made once; those of one
// rendered document whose changes overlap (two fixes inserting after one
// line: overlapping) placed together from all their edits, as one fix of
// them all would be (templateLinesOf). It reports false when such a set
// cannot be placed.
func (pl *placed) batchLines(src *source, cands []candidate) (map[string][]edit.Change, bool) {
	byDoc := map[int][]candidate{}
	var docs []int
	for _, c := range cands {
		if len(c.place.lines) == 0 {
			continue
		}
		if _, ok := byDoc[c.doc]; !ok {
			docs = append(docs, c.doc)
		}
		byDoc[c.doc] = append(byDoc[c.doc], c)
	}
	out := map[string][]edit.Change{}
	add := func(file string, lines []edit.Change) {
		for _, l := range lines {
			if !slices.Contains(out[file], l) {
				out[file] = append(out[file], l)
			}
		}
	}
	for _, d := range docs {
		group := byDoc[d]
		for _, cluster := range overlapping(group) {
			if len(cluster) == 1 {
				c := group[cluster[0]]
				add(c.place.file, c.place.lines)
				continue
			}
			var ops []edit.Op
			var reads []manifest.Path
			for _, i := range cluster {
				ops = append(ops, group[i].edits...)
				reads = append(reads, group[i].reads...)
			}
			whole, ok := pl.templateLinesOf(src, d, ops, reads)
			if !ok {
				return nil, false
			}
			add(whole.file, whole.lines)
		}
	}
	return out, true
}

// apartFromOverlaps splits cands, in order, into those whose template
// line changes overlap none of an earlier one's in fit (several fixes
// that insert after one line: a probe and a preStop hook) and the rest.
// A change made twice is made once (fix.Apply does the same).
func apartFromOverlaps(cands []candidate) (fit, rest []candidate) {
	taken := map[string][]edit.Change{}
	for _, c := range cands {
		if linesOverlap(c.place.lines, taken[c.place.file]) {
			rest = append(rest, c)
			continue
		}
		fit = append(fit, c)
		taken[c.place.file] = append(taken[c.place.file], c.place.lines...)
	}
	return fit, rest
}

// notSettled records why cands were not verified when no render settled
// them: the bound of renders was spent, the run was stopped, or the
// render with them was not made.
func (pl *placed) notSettled(v *verifier, cands []candidate) {
	why := fmt.Sprintf("not verified: the %d renders that verify the fixes of one %s were spent on others first", MaxVerifyRenders, pl.kindName())
	if v.ctx.Err() != nil {
		why = "not verified: the run was stopped first"
	}
	for _, c := range cands {
		v.unverified(pl, c, why)
	}
}

// kindName is "chart" or "overlay".
func (pl *placed) kindName() string {
	if pl.render.Kind == Kustomize {
		return "overlay"
	}
	return "chart"
}

// again says how the render is made again, for the reasons a fix is
// withheld.
func (pl *placed) again() string {
	if pl.render.Kind == Kustomize {
		return "building the overlay again"
	}
	return "rendering the chart again"
}

// adds returns a key that keys holds and old does not, other than the
// follow-ups the candidates bring on by design ("" when there is none),
// the least of them so that the reason given is stable.
func adds(keys, old findingKeys, cands []candidate) string {
	first := ""
	for k := range keys {
		if old.has(k) || followUp(k, cands) {
			continue
		}
		if first == "" || k < first {
			first = k
		}
	}
	return first
}

// followUp reports whether the finding of key k is a follow-up one of
// cands brings on by design.
func followUp(k string, cands []candidate) bool {
	for _, c := range cands {
		for f := range c.followUps {
			if strings.HasPrefix(k, f) {
				return true
			}
		}
	}
	return false
}

// describeKey names the finding of an aloneKey for people: its rule, and
// the object it is about.
func describeKey(k string) string {
	parts := strings.SplitN(k, "\x00", 5)
	if len(parts) < 4 {
		return "a new finding"
	}
	return fmt.Sprintf("%s on %s %q", parts[0], parts[1], parts[3])
}

// gone returns the candidates whose finding keys does not hold, or holds
// with no fix left (see findingKeys).
func gone(cands []candidate, keys findingKeys) []candidate {
	var out []candidate
	for _, c := range cands {
		if !keys.fixLeft(c.key) {
			out = append(out, c)
		}
	}
	return out
}

// aloneKeys returns the keys of the findings of the render checked on its
// own, computed once.
func (pl *placed) aloneKeys(cfg *checks.Config) findingKeys {
	if pl.old == nil {
		pl.old = keysOf(pl.aloneFindings(cfg))
	}
	return pl.old
}

// checkAlone checks one render's input on its own and returns its
// findings' keys. Only the findings are read: the run is lean (packed
// trees, and a CRD's text read again through in.ReadAt rather than
// copied), so a chart rendered again holds little more than its stream
// while the rest of the run's rules hold theirs (argo-cd's CRDs were 5 MB
// of copies, at the run's peak).
func checkAlone(in checks.Input, cfg *checks.Config) findingKeys {
	return keysOf(checks.Run([]checks.Input{in}, cfg, checks.Options{Memory: checks.Lean}).Findings)
}

// findingKeys are the findings of a render checked on its own, by
// aloneKey, each true when a finding of that key has a fix left to apply
// (Fixable). A fix whose finding stays with no fix left did all that can
// be done without its author: the recommended labels whose values only
// the author knows wait as placeholders on the workload, and the finding
// says so. Such a fix is kept, as it is on a plain file; one whose finding
// stays with a fix left (an edit the chart or overlay does not take) is
// not.
type findingKeys map[string]bool

// has reports whether ks holds a finding of key k.
func (ks findingKeys) has(k string) bool {
	_, ok := ks[k]
	return ok
}

// fixLeft reports whether ks holds a finding of key k with a fix left.
func (ks findingKeys) fixLeft(k string) bool { return ks[k] }

// keysOf returns the keys of findings of a render checked on its own.
func keysOf(fs []checks.Finding) findingKeys {
	out := findingKeys{}
	for _, f := range fs {
		k := aloneKey(f)
		out[k] = out[k] || f.Fixable()
	}
	return out
}

// rerender renders the chart again with the candidates' edits applied to
// copies of its values files and returns the keys of the new render's
// findings, checked on its own; false when the bound of renders is
// reached (failed is then empty) or the render with the edits could not
// be made or has a problem the old one did not (failed says which).
// Its template line changes are lines, as batchLines placed them (placed).
func (pl *placed) rerender(v *verifier, src *source, cands []candidate, lines map[string][]edit.Change, placed bool) (findingKeys, bool, string) {
	if pl.rerenders >= MaxVerifyRenders || v.ctx.Err() != nil {
		return nil, false, ""
	}
	pl.rerenders++
	return pl.renderLines(v, src, cands, lines, placed)
}

// renderWith is rerender without its bound: the render and its check,
// the keys of the findings of the render with cands' edits, and whether
// it could be made and checked; when it could not, failed says why (an
// edit that does not apply, a render that fails, a problem the render
// without the edits did not have, such as a value the chart's
// values.schema.json refuses).
func (pl *placed) renderWith(v *verifier, src *source, cands []candidate) (keys findingKeys, ok bool, failed string) {
	lines, placed := pl.batchLines(src, cands)
	return pl.renderLines(v, src, cands, lines, placed)
}

// renderLines is renderWith with cands' template line changes placed
// already (batchLines).
func (pl *placed) renderLines(v *verifier, src *source, cands []candidate, byFile map[string][]edit.Change, placed bool) (keys findingKeys, ok bool, failed string) {
	// The files listed with no contents stay so: the render reads them
	// (src.opts.Read); those the edits change are read here.
	files := make(Files, len(src.files))
	for in, data := range src.files {
		files[in] = data
	}
	type fileDoc struct {
		file string
		doc  int
	}
	byDoc := map[fileDoc][]edit.Op{}
	var order []fileDoc
	if !placed {
		return nil, false, "its template lines overlap another fix's"
	}
	lineFiles := slices.Sorted(maps.Keys(byFile))
	add := func(pc placement) {
		k := fileDoc{pc.file, pc.doc}
		if _, ok := byDoc[k]; !ok {
			order = append(order, k)
		}
		byDoc[k] = append(byDoc[k], pc.edits...)
	}
	for _, c := range cands {
		pc := c.place
		if pc.also != nil {
			pc = *pc.also // the values part of a fix made in two files
		} else if len(pc.lines) > 0 || pc.inline {
			continue
		}
		add(pc)
	}
	// Each fix of a kustomization's own patch writes the whole patch
	// again: those of one patch are made together, once.
	for _, idx := range inlineGroups(cands) {
		pc, ok := pl.inlineTogether(src, cands, idx)
		if !ok {
			return nil, false, fmt.Sprintf("its edit of the patch %s writes does not go with another fix's", path.Base(cands[idx[0]].place.file))
		}
		add(pc)
	}
	for _, k := range order {
		data, ok := files[k.file]
		if data == nil {
			if data, ok = src.file(k.file); !ok {
				return nil, false, k.file + ", which it edits, is not in the run"
			}
		}
		next, err := edit.Apply(data, k.doc, edit.Union(byDoc[k]))
		if err != nil {
			return nil, false, fmt.Sprintf("its edit of %s does not apply: %v", k.file, err)
		}
		files[k.file] = next
	}
	for _, file := range lineFiles {
		data, ok := src.file(file)
		if !ok {
			return nil, false, file + ", which it edits, is not in the run"
		}
		next, err := edit.ApplyAllChanges(data, byFile[file])
		if err != nil {
			return nil, false, fmt.Sprintf("its edit of %s does not apply: %v", file, err)
		}
		files[file] = next
	}
	opts := src.opts
	opts.ValuesYAMLOnly, opts.ExtraValues = true, nil
	// Only the stream is checked: the fixed render needs no source map,
	// and only the one chart or overlay is made again (src.files also
	// hold the charts this one depends on, which are charts of their own).
	opts.StreamOnly = true
	if pl.render.Kind == Helm {
		opts.Prior = pl.render.Documents // the documents the edits leave as they were are not parsed again
	}
	if pl.render.Kind == Kustomize {
		opts.Only = &Job{Kustomization: pl.render.Root} // the one overlay, built again
	} else {
		opts.Only = &Job{Chart: pl.render.Root}
	}
	res, err := src.render(v.ctx, files, opts)
	if err != nil {
		return nil, false, "the renderer failed: " + err.Error()
	}
	var r *Render
	for _, x := range res.Renders {
		if x.Kind == pl.render.Kind && x.Root == pl.render.Root && len(x.ValuesFiles) == 0 {
			r = x
		}
	}
	switch {
	case len(res.Problems) > 0:
		return nil, false, res.Problems[0].Message
	case r == nil:
		return nil, false, "it is not rendered"
	}
	had := map[string]bool{}
	for _, pr := range pl.render.Problems {
		had[pr.File+"\x00"+pr.Message] = true
	}
	for _, pr := range r.Problems {
		if !had[pr.File+"\x00"+pr.Message] {
			return nil, false, pr.Message // a template's fail, a value the schema refuses
		}
	}
	if len(r.Documents) == 0 {
		return nil, false, "it renders no object"
	}
	if pl.render.Kind == Kustomize {
		if why := overrides(pl.render, r, cands, func(c candidate) int { return c.doc }); why != "" {
			return nil, false, why
		}
	}
	return checkAlone(renderInput(pl.input.Path, pl.dir, r), v.cfg), true, ""
}

// place moves f, mapped from a render in folder dir, to the values (or
// plain template) line its verified fix edits, at column col of it, with
// those edits as its fix.
func (pc placement) place(dir string, col int, f *checks.Finding) {
	if joinDir(dir, pc.file) != f.File {
		f.ContainerLine = 0 // the container is written in the file it was in
	}
	f.File = joinDir(dir, pc.file)
	f.Line, f.EndLine, f.Column = pc.line, pc.line, col
	f.Object.Doc = pc.doc
	fx := *f.Fix
	fx.Edits, fx.Lines = pc.edits, pc.lines
	switch a := pc.also; {
	case a != nil:
		fx.Also = []checks.FilePart{{File: joinDir(dir, a.file), Line: a.line, Doc: a.doc, Edits: a.edits, Lines: a.lines}}
		fx.Description += fmt.Sprintf(" (%s, and %s: one fix in two files, which `prodready fix` and a review's fix commit make whole, never one suggestion)", pc.where(dir), a.where(dir))
	case len(pc.keys) > 0:
		fx.Description += " (" + pc.where(dir) + listsNote(pc.edits) + ")"
	}
	fx.Description += pc.note
	f.Fix = &fx
}

// listsNote warns, for a fix made of several edits of values, some of
// which append items to values lists, that a release's values replace
// those lists whole: the fix's other edits (a read-only root filesystem,
// in a mapping a release's values merge into) would stay without them
// (the volume for /tmp). "" for none, or for a fix of one edit.
func listsNote(values []edit.Op) string {
	var lists []string
	for _, op := range values {
		if k := strings.Join(op.Path, "."); op.Action == edit.Append && !slices.Contains(lists, k) {
			lists = append(lists, k)
		}
	}
	if len(lists) == 0 || len(values) < 2 {
		return ""
	}
	return fmt.Sprintf("; a release's values replace a values list whole, so those that set %s must keep the fix's items", strings.Join(lists, " or "))
}

// where says where pc edits: the values keys it sets, or, for a part of
// a fix made in two files, the template whose lines it changes (not
// their numbers, which a later round of fix may have moved).
func (pc placement) where(dir string) string {
	if len(pc.keys) > 0 {
		return fmt.Sprintf("as %s in %s", strings.Join(pc.keys, ", "), path.Base(pc.file))
	}
	return "with lines of " + joinDir(dir, pc.file)
}
