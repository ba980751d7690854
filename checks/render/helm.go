package render

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/prodready/prodready/checks/render/internal/tmplmark"
	"github.com/prodready/prodready/checks/rendered"
)

// valuesSets returns the values files of each render of the chart in dir:
// nil for values.yaml alone, then one per ci/*-values.yaml and values-*.yaml
// beside the chart, then each of the caller's extra sets.
func valuesSets(files rendered.Files, dir string, extra [][]string) [][]string {
	sets := [][]string{nil}
	var variants []string
	for _, p := range files.Under(dir) {
		rel := p
		if dir != "" {
			rel = p[len(dir)+1:]
		}
		ciDir, ciName := path.Split(rel)
		switch {
		case ciDir == "ci/" && strings.HasSuffix(ciName, "-values.yaml"):
			variants = append(variants, p)
		case !strings.Contains(rel, "/") && strings.HasPrefix(rel, "values-") && (strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml")):
			variants = append(variants, p)
		}
	}
	sort.Strings(variants)
	for _, v := range variants {
		sets = append(sets, []string{v})
	}
	for _, set := range extra {
		if len(set) > 0 {
			sets = append(sets, append([]string(nil), set...))
		}
	}
	return sets
}

// helmRender renders the chart in dir with the values files given (applied
// on top of its values.yaml, in order).
// ann says where the annotated templates of the chart's other renders in
// the run are kept.
func helmRender(ctx context.Context, files rendered.Files, charts rendered.ChartIndex, dir string, valuesFiles []string, opts rendered.Options, ann annotationUse) *rendered.Render {
	chartFile := path.Join(dir, "Chart.yaml")
	r := &rendered.Render{Kind: Helm, Root: dir, ValuesFiles: valuesFiles}
	l := newChartLoader(files, opts.Read, charts)
	c, err := l.load(dir, 0, map[string]bool{})
	r.Problems = append(r.Problems, l.problems...)
	r.Skipped = append(r.Skipped, l.skipped...)
	if err != nil {
		file, line := loadErrorAt(dir, err)
		r.Problems = append(r.Problems, rendered.Problem{File: file, Line: line, Message: err.Error()})
		r.Inputs = files.Under(dir)
		skipAll(r, "chart failed to load")
		return r
	}
	before := chartTree(l, c)

	user := map[string]any{}
	var userTrees []valuesFile
	var userData [][]byte // every values file's text, also one that does not parse
	for _, vf := range valuesFiles {
		data, ok, err := files.Read(vf, opts.Read)
		if err != nil {
			r.Problems = append(r.Problems, rendered.Problem{File: vf, Message: err.Error()})
			continue
		}
		if !ok {
			r.Problems = append(r.Problems, rendered.Problem{File: vf, Message: "values file not in the repository"})
			continue
		}
		userData = append(userData, data)
		v, err := common.ReadValues(data)
		if err != nil {
			r.Problems = append(r.Problems, rendered.Problem{File: vf, Message: fmt.Sprintf("reading values: %v", err)})
			continue
		}
		user = mergeMaps(user, v)
		userTrees = append(userTrees, valuesFile{path: vf, tree: &valuesTree{data: data}})
	}

	depsErr := processDependencies(c, user)
	if depsErr != nil {
		r.Problems = append(r.Problems, valuesProblem(depsErr, "processing dependencies", chartFile, l, c, user, userTrees))
	}
	after := chartTree(l, c)
	for _, src := range before {
		r.Inputs = append(r.Inputs, src.files...)
	}
	r.Inputs = append(r.Inputs, valuesFiles...)
	for key, src := range before {
		if _, ok := after[key]; !ok {
			for _, f := range src.files {
				r.Skipped = append(r.Skipped, rendered.Skipped{File: f, Reason: "dependency disabled by its condition or tags with these values"})
			}
		}
	}
	missing := missingDependencies(l, c, files)
	for _, m := range missing {
		r.Problems = append(r.Problems, m.Problem)
	}

	kv, err := common.ParseKubeVersion(opts.KubeVersion)
	if err != nil {
		r.Problems = append(r.Problems, rendered.Problem{File: chartFile, Message: fmt.Sprintf("kubernetes version %q: %v", opts.KubeVersion, err)})
		skipAll(r, "render not attempted")
		return finish(r)
	}
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	caps.APIVersions = append(caps.APIVersions, aggregatedAPIs...)
	relOpts := common.ReleaseOptions{Name: opts.ReleaseName, Namespace: opts.Namespace, Revision: 1, IsInstall: true}
	// Schema validation is skipped: Helm's validator resolves $ref over HTTP
	// and from local disk, both out of bounds here.
	vals, err := commonutil.ToRenderValuesWithSchemaValidation(c, user, relOpts, caps, true)
	if err != nil {
		if depsErr == nil || err.Error() != depsErr.Error() { // the same values refused twice: said once
			r.Problems = append(r.Problems, valuesProblem(err, "preparing values", chartFile, l, c, user, userTrees))
		}
		skipAll(r, "render failed")
		return finish(r)
	}

	ctx, cancel := withBudget(ctx, opts.Timeout)
	defer cancel()
	var (
		out, marked map[string]string
		markedErr   error
		idx         *templateIndex
		tbl         tmplmark.Table
		one         bool // the marked render, stripped, is the output
		lines       map[string]oneText
	)
	if !opts.StreamOnly {
		// The render that traces lines comes first: where no template can
		// compute anything from its marks, it is the render itself once
		// they are stripped, and the chart is rendered once. A template
		// can change the values it is given (prometheus's cm.yaml unsets
		// a key once written): it gets a copy, so that a second render
		// starts from the values as they were.
		idx = indexTemplates(l, c)
		annotated := idx.annotatedOnce(ann, dir, &tbl)
		var carry tmplmark.Carry
		why := ""
		if !marksUnobservable(c, userData, user, &tbl) {
			why = "a file of the chart holds text that reads as a mark"
		}
		marked, markedErr = runEngine(ctx, annotated, copyValues(vals, 0), carry.Funcs())
		if why == "" {
			why = tbl.Observable(carry.Remarked(), func(name string) bool { _, ok := idx.byKey[name]; return ok })
		}
		tbl.Forget()
		if markedErr == nil && why == "" {
			one, lines = true, stripLines(marked)
		}
		if afterMarkedRender != nil {
			var stripped map[string]string
			if one {
				stripped = map[string]string{}
				for k, t := range lines {
					stripped[k] = strings.Join(t.lines, "\n")
				}
			}
			afterMarkedRender(dir, c, vals, stripped, why)
		}
	}
	var renderErr error
	if !one {
		out, renderErr = runEngine(ctx, c, vals, nil)
	}
	if idx == nil {
		idx = indexTemplates(l, c)
	}
	vm := &valuesMap{user: userTrees}
	if renderErr != nil {
		file, line, col := idx.errorAt(files, renderErr.Error(), chartFile)
		r.Problems = append(r.Problems, rendered.Problem{File: file, Line: line, Column: col, Message: "rendering: " + engineMessage(renderErr) + missingTemplateOf(renderErr.Error(), missing, chartFile)})
		// Helm refuses values its schemas refuse before it renders:
		// said too, so that fixing the template is not all it takes.
		checkValuesSchemas(r, c, vals, idx, vm)
		skipAll(r, "render failed")
		return finish(r)
	}
	size := 0
	for _, s := range out {
		size += len(s)
	}
	for _, t := range lines {
		size += t.size
	}
	if size > opts.MaxOutputBytes {
		r.Problems = append(r.Problems, rendered.Problem{File: chartFile, Bound: true, Message: fmt.Sprintf("rendered output is %d bytes, over the bound of %d", size, opts.MaxOutputBytes)})
		skipAll(r, "render output over the bound")
		return finish(r)
	}

	checkValuesSchemas(r, c, vals, idx, vm)
	b := &helmDocs{r: r, opts: opts, idx: idx, tbl: &tbl, vm: vm, noMaps: opts.StreamOnly, one: lines}
	if markedErr != nil {
		// The source map degrades to each document's first line; the
		// output stands, and every finding placed so says why.
		marked, b.lost = nil, "the render that traces template lines failed: "+engineMessage(markedErr)
	}
	b.build(out, marked)
	return finish(r)
}

// oneText is a template's output read off the marked render: its lines
// without their marks, what the source maps keep of the marks (each
// line's first template mark, and the bindings' occurrences), and the
// size of the text. The marks themselves are read line by line and not
// kept: held per line until the template's documents were made, a CRD's
// (whose key lines are nearly all marked) took some 70 bytes a line.
type oneText struct {
	lines    []string
	firstTpl tplLines
	occs     []occurrence
	size     int
}

// stripLines reads every template's output of a marked render, line by
// line, into its text and what the source maps keep of its marks.
func stripLines(marked map[string]string) map[string]oneText {
	out := make(map[string]oneText, len(marked))
	var ms []tmplmark.Mark // one line's marks, the slice reused
	for k, m := range marked {
		t := oneText{lines: strings.Split(m, "\n")}
		t.firstTpl = make(tplLines, len(t.lines))
		var occ occurrenceReader
		for i, l := range t.lines {
			t.lines[i], ms = tmplmark.AppendLine(ms[:0], l)
			t.firstTpl[i] = firstTplMark(ms)
			occ.line(i, ms)
			t.size += len(t.lines[i])
		}
		t.size += len(t.lines) - 1
		t.occs = occ.out
		out[k] = t
	}
	return out
}

// afterMarkedRender, when set (by tests), is called after each marked
// render with the chart and the values the render without marks is
// given, the stripped output when it stands for that render (nil
// otherwise), and why it does not.
var afterMarkedRender func(dir string, c *chart.Chart, vals common.Values, stripped map[string]string, why string)

// marksUnobservable reports whether, by what the files say, the marked
// render of chart c stripped of its marks can stand for its render
// ([tmplmark.Table.Observable] says the rest): no file of the chart tree
// or values file given holds text that reads as a mark (Strip would take
// it out of the output). When a template calls tpl, the actions of the
// texts it may render (every string of the values, user's the user values
// given, Chart.yaml, and when a template reads Files the files .Files
// serves) are read as a template's are, into tbl.
func marksUnobservable(c *chart.Chart, userData [][]byte, user map[string]any, tbl *tmplmark.Table) bool {
	tpl, all := tbl.UsesTpl(), tbl.ReadsFiles()
	for _, data := range userData {
		if holdsMarkText(data) {
			return false
		}
	}
	if tpl {
		observeValues(tbl, user, 0)
	}
	var rec func(c *chart.Chart, depth int) bool
	rec = func(c *chart.Chart, depth int) bool {
		if depth > maxChartDepth {
			return false
		}
		for _, f := range c.Raw {
			if holdsMarkText(f.Data) {
				return false
			}
			if tpl && f.Name == "Chart.yaml" && bytes.Contains(f.Data, []byte("{{")) {
				tbl.ObserveText(string(f.Data))
			}
		}
		// What .Files serves: not the values, templates or subcharts.
		for _, f := range c.Files {
			if tpl && all && bytes.Contains(f.Data, []byte("{{")) {
				tbl.ObserveText(string(f.Data))
			}
		}
		if tpl {
			observeValues(tbl, c.Values, 0)
		}
		for _, d := range c.Dependencies() {
			if !rec(d, depth+1) {
				return false
			}
		}
		return true
	}
	return rec(c, 0)
}

// observeValues reads, into tbl, every key and string of values v that
// holds an action: the texts tpl may render from them.
func observeValues(tbl *tmplmark.Table, v any, depth int) {
	if depth > maxValuesDepth {
		return
	}
	switch v := v.(type) {
	case string:
		if strings.Contains(v, "{{") {
			tbl.ObserveText(v)
		}
	case map[string]any:
		for k, x := range v {
			observeValues(tbl, k, depth+1)
			observeValues(tbl, x, depth+1)
		}
	case common.Values:
		observeValues(tbl, map[string]any(v), depth)
	case []any:
		for _, x := range v {
			observeValues(tbl, x, depth+1)
		}
	}
}

// holdsMarkText reports whether data holds "#@p", which every mark holds
// (tmplmark's marks start " #@p"). It looks for the '@', rarer in YAML
// than the '#' of every comment.
func holdsMarkText(data []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '@')
		if j < 0 {
			return false
		}
		at := i + j
		if at > 0 && data[at-1] == '#' && at+1 < len(data) && data[at+1] == 'p' {
			return true
		}
		i = at + 1
	}
}

// copyValues returns a copy of render values v whose maps and lists are
// copies too, to the depth Helm's values can have (deeper ones are
// shared).
func copyValues(v common.Values, depth int) common.Values {
	out := make(common.Values, len(v))
	for k, x := range v {
		out[k] = copyValue(x, depth+1)
	}
	return out
}

func copyValue(x any, depth int) any {
	if depth > maxValuesDepth {
		return x
	}
	switch x := x.(type) {
	case common.Values:
		return copyValues(x, depth)
	case map[string]any:
		return map[string]any(copyValues(x, depth))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e, depth+1)
		}
		return out
	}
	return x
}

// maxValuesDepth bounds copyValues.
const maxValuesDepth = 1000

// processDependencies is chartutil.ProcessDependencies (which merges import
// values as v3's ProcessDependenciesWithMerge did) with panics turned into
// errors.
func processDependencies(c *chart.Chart, vals map[string]any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return chartutil.ProcessDependencies(c, vals)
}

// runEngine renders a chart with Helm's engine: no cluster client (lookup
// returns nothing), DNS functions off, the random and clock functions
// repeatable (repeatableFuncs), funcs (when not nil) in place of Helm's
// functions of the same names. The engine cannot be interrupted, so a
// render that outlives ctx is abandoned; panics become errors.
func runEngine(ctx context.Context, c *chart.Chart, vals common.Values, funcs template.FuncMap) (map[string]string, error) {
	type result struct {
		out map[string]string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("template engine panicked: %v", p)}
			}
		}()
		all := repeatableFuncs()
		for name, f := range funcs {
			all[name] = f
		}
		e := engine.Engine{EnableDNS: false, CustomTemplateFuncs: all}
		out, err := e.RenderWithContext(ctx, c, vals)
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		return res.out, res.err
	case <-ctx.Done():
		return nil, stopCause(ctx)
	}
}

// engineMessage is the engine's error on one line. Helm v4 writes an error
// raised through include or tpl as a trace of several lines, one block per
// template it passed through (location, call, then the cause, indented);
// joined, it reads as Helm v3's message did, so a finding's message and the
// compact format's one line keep the cause. A template's own fail or
// required message ("execution error at (…): …") stays as the chart wrote
// it.
func engineMessage(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "execution error at (") || !strings.Contains(msg, "\n") {
		return msg
	}
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " ")
}

// chartTree maps every chart of a loaded tree to its source.
func chartTree(l *chartLoader, c *chart.Chart) map[*chartSource]*chartSource {
	m := map[*chartSource]*chartSource{}
	var rec func(c *chart.Chart)
	rec = func(c *chart.Chart) {
		if src := l.sourceOf(c); src != nil {
			m[src] = src
		}
		for _, d := range c.Dependencies() {
			rec(d)
		}
	}
	rec(c)
	return m
}

// missingDependency is a dependency the render lacks: its name (its
// alias, when it has one) and the problem that says so.
type missingDependency struct {
	name string
	rendered.Problem
}

// noTemplate matches text/template's error for a template that no file of
// the render defines, with its name.
var noTemplate = regexp.MustCompile(`no template "([^"]+)" associated with template`)

// missingTemplateOf says, for a render error msg that names a template no
// file defines, whose name begins with a missing dependency's
// ("redis-ha.fullname" of redis-ha), that it is that dependency's, and
// where the chart (whose Chart.yaml is chartFile) declares it: the chart's
// own helper calls into the chart it lacks, and the render fails for that
// (argo-cd's values for Redis HA). "" otherwise.
func missingTemplateOf(msg string, missing []missingDependency, chartFile string) string {
	m := noTemplate.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	for _, d := range missing {
		if strings.HasPrefix(m[1], d.name+".") {
			at := d.File // another chart of the repository's, which stood in for one
			if rel, ok := strings.CutPrefix(d.File, path.Dir(chartFile)+"/"); ok || d.File == chartFile {
				at = "the chart's " + path.Base(chartFile)
				if ok {
					at = "the chart's " + rel
				}
			}
			if d.Line > 0 {
				at = fmt.Sprintf("on line %d of %s", d.Line, at)
			} else {
				at = "in " + at
			}
			return fmt.Sprintf(" (%s is a template of the dependency %s, declared %s, which is missing)", m[1], d.name, at)
		}
	}
	return ""
}

// missingDependencies reports the dependencies still enabled after
// processing that no chart provides.
func missingDependencies(l *chartLoader, c *chart.Chart, files rendered.Files) []missingDependency {
	var out []missingDependency
	var rec func(c *chart.Chart)
	rec = func(c *chart.Chart) {
		have := map[string]bool{}
		for _, d := range c.Dependencies() {
			have[d.Name()] = true
			rec(d)
		}
		chartFile, dir := "Chart.yaml", ""
		if src := l.sourceOf(c); src != nil {
			chartFile, dir = path.Join(src.dir, "Chart.yaml"), src.dir
		}
		for _, req := range c.Metadata.Dependencies {
			if req == nil || have[req.Name] || l.failedUnderCharts(dir, req.Name) {
				continue
			}
			name := req.Name
			if req.Alias != "" {
				name = req.Alias
			}
			msg := fmt.Sprintf("dependency %s (version %q from %q) is needed with these values but is neither in charts/, nor a file:// chart in the repository, nor a chart of that name in the repository; rendered without it", name, req.Version, req.Repository)
			out = append(out, missingDependency{name, rendered.Problem{File: chartFile, Line: dependencyLine(files[chartFile], req.Name), Message: msg, Missing: true}})
		}
	}
	rec(c)
	return out
}

// failedUnderCharts reports whether the chart in folder dir holds
// dependency name under charts/, as a folder or an archive, that did not
// load: its own problem says why, and it is not missing.
func (l *chartLoader) failedUnderCharts(dir, name string) bool {
	folder := path.Join(dir, "charts", name) + "/"
	archive := path.Join(dir, "charts", name) + "-"
	for _, p := range l.problems {
		if strings.HasPrefix(p.File, folder) || strings.HasPrefix(p.File, archive) && (strings.HasSuffix(p.File, ".tgz") || strings.HasSuffix(p.File, ".tar.gz")) {
			return true
		}
	}
	return false
}

// skipAll marks every input as skipped for reason.
func skipAll(r *rendered.Render, reason string) {
	for _, f := range r.Inputs {
		r.Skipped = append(r.Skipped, rendered.Skipped{File: f, Reason: reason})
	}
}

// finish sorts and de-duplicates the file lists.
func finish(r *rendered.Render) *rendered.Render {
	sort.Strings(r.Inputs)
	r.Inputs = compactStrings(r.Inputs)
	sort.SliceStable(r.Skipped, func(i, j int) bool { return r.Skipped[i].File < r.Skipped[j].File })
	out := r.Skipped[:0]
	seen := map[string]bool{}
	for _, s := range r.Skipped {
		if !seen[s.File] {
			seen[s.File] = true
			out = append(out, s)
		}
	}
	r.Skipped = out
	return r
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// mergeMaps merges b into a copy of a, recursing into maps, as helm -f does.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bv, ok := v.(map[string]any); ok {
			if av, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(av, bv)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// tplInfo is what the source map needs to know of one template file.
type tplInfo struct {
	file  string   // repository path
	chain []string // chart names from the root's child down to the template's chart
	src   *chartSource
	chart *chart.Chart
	text  []byte // the template as written
}

// templateIndex numbers the templates of a processed chart tree.
type templateIndex struct {
	root   *chart.Chart
	byKey  map[string]int // engine output key -> index
	infos  []tplInfo
	byFile map[*common.File]int
	srcs   []*chartSource // root first, then each chart in chain order
	chains map[*chartSource][]string
	l      *chartLoader

	colsMu sync.Mutex
	cols   map[int]rendered.Columns // by template, the column each line writes at (see column)
}

// text returns the text of the template at repository path file, nil
// when it is none of the index's.
func (idx *templateIndex) text(file string) []byte {
	for _, in := range idx.infos {
		if in.file == file {
			return in.text
		}
	}
	return nil
}

// column returns the 1-based column at which line (1-based) of template i
// writes its first key or value (rendered.WrittenColumn), or 0 when the
// template or its line is not known. Each template's lines are read once.
func (idx *templateIndex) column(i, line int) int {
	if i < 0 || i >= len(idx.infos) || line < 1 {
		return 0
	}
	idx.colsMu.Lock()
	defer idx.colsMu.Unlock()
	cols, ok := idx.cols[i]
	if !ok {
		cols = rendered.NewColumns(idx.infos[i].text)
		if idx.cols == nil {
			idx.cols = map[int]rendered.Columns{}
		}
		idx.cols[i] = cols
	}
	return cols.At(line)
}

func indexTemplates(l *chartLoader, root *chart.Chart) *templateIndex {
	idx := &templateIndex{root: root, byKey: map[string]int{}, byFile: map[*common.File]int{}, chains: map[*chartSource][]string{}, l: l}
	var rec func(c *chart.Chart, chain []string)
	rec = func(c *chart.Chart, chain []string) {
		src := l.sourceOf(c)
		if src != nil {
			if _, ok := idx.chains[src]; !ok {
				idx.chains[src] = chain
			}
		}
		for _, t := range c.Templates {
			file := path.Join(c.ChartFullPath(), t.Name)
			if src != nil {
				if p, ok := src.templates[t.Name]; ok {
					file = p
				}
			}
			i, ok := idx.byFile[t]
			if !ok {
				i = len(idx.infos)
				idx.byFile[t] = i
				idx.infos = append(idx.infos, tplInfo{file: file, chain: chain, src: src, chart: c, text: t.Data})
			}
			idx.byKey[path.Join(c.ChartFullPath(), t.Name)] = i
		}
		for _, d := range c.Dependencies() {
			rec(d, append(append([]string(nil), chain...), d.Name()))
		}
	}
	rec(root, nil)
	return idx
}

// checkValuesSchemas validates the values of render r against the
// values.schema.json of chart c and of every subchart they enable, and adds
// what the schemas refuse to r's problems. Every render, a fix's too: a
// values edit the schema refuses is a problem the render with the fix has
// and the render without it does not, and the fix is not verified (helm
// install would refuse it).
func checkValuesSchemas(r *rendered.Render, c *chart.Chart, vals common.Values, idx *templateIndex, vm *valuesMap) {
	values, ok := vals["Values"].(common.Values)
	if !ok {
		return
	}
	vs := valuesSchemas{idx: idx, vm: vm}
	vs.check(c, values.AsMap(), nil, 0)
	r.Problems = append(r.Problems, vs.problems...)
	r.Skipped = append(r.Skipped, vs.skipped...)
}

// engineLocation is a template location in the engine's error: a
// template's name (its chart's path and its own, "web/templates/a.yaml"),
// a line and, for an execution error, a column (a 0-based byte offset in
// the line, as text/template writes it).
var engineLocation = regexp.MustCompile(`([^\s():"<>]+):(\d+)(?::(\d+))?`)

// errorAt is where a render that failed is reported: the innermost
// template line the engine's error names (the action that failed; an
// include's or tpl's template after the line that called it) when that
// template is a file of the folder, else the chart's Chart.yaml; and the
// 1-based column of the action on it when the error names one (an
// execution error), else 0.
func (idx *templateIndex) errorAt(files rendered.Files, msg, chartFile string) (file string, line, col int) {
	file, line = chartFile, 1
	for _, m := range engineLocation.FindAllStringSubmatch(msg, -1) {
		i, ok := idx.byKey[m[1]]
		if !ok {
			continue
		}
		if _, ok := files[idx.infos[i].file]; !ok {
			continue // a template inside a .tgz: no line to point at
		}
		if n, err := strconv.Atoi(m[2]); err == nil && n > 0 {
			file, line, col = idx.infos[i].file, n, 0
			if c, err := strconv.Atoi(m[3]); err == nil && c >= 0 {
				col = c + 1
			}
		}
	}
	return file, line, col
}

// annotationUse is what a render does with a run's annotations: looks
// its chart's up (when ann is not nil) and keeps its own for a later
// render of the chart (when store).
type annotationUse struct {
	ann   *annotations
	store bool
}

// annotations keeps the annotated templates of the last few charts
// rendered: a chart's values sets are rendered one after another, each
// from the same templates, and annotating them cost a tenth of the CPU
// of rendering every set. It holds few, so that what it keeps is a few
// charts' templates, not every chart's until its last render.
type annotations struct {
	mu      sync.Mutex
	entries []annotated // most recent last
}

// maxAnnotations is how many charts' annotations an annotations keeps:
// the charts being rendered at once, and one more.
const maxAnnotations = 4

// annotated is one chart's annotated templates.
type annotated struct {
	key   string   // the chart's folder and its templates in index order
	texts [][]byte // by template index
	tbl   tmplmark.Table
}

// key names the annotation of the templates idx numbers, for the chart in
// dir: the same templates with the same numbers annotate the same.
func (idx *templateIndex) key(dir string) string {
	var b strings.Builder
	b.WriteString(dir)
	for _, in := range idx.infos {
		b.WriteByte(0)
		b.WriteString(in.file)
	}
	return b.String()
}

// annotatedOnce is annotated, reusing the annotation of the same templates
// made for an earlier render, and keeping this one when use says to.
func (idx *templateIndex) annotatedOnce(use annotationUse, dir string, tbl *tmplmark.Table) *chart.Chart {
	ann := use.ann
	if ann == nil {
		return idx.annotated(tbl)
	}
	key := idx.key(dir)
	ann.mu.Lock()
	for _, e := range ann.entries {
		if e.key == key {
			ann.mu.Unlock()
			*tbl = e.tbl.Clone()
			return idx.withTexts(e.texts)
		}
	}
	ann.mu.Unlock()
	if !use.store {
		return idx.annotated(tbl)
	}
	e := annotated{key: key, texts: make([][]byte, len(idx.infos))}
	c := idx.clone(func(i int, src []byte) []byte {
		data := tbl.AnnotateBytes(i, string(src))
		if i >= 0 && i < len(e.texts) {
			e.texts[i] = data
		}
		return data
	})
	e.tbl = tbl.Clone()
	ann.mu.Lock()
	if len(ann.entries) >= maxAnnotations {
		ann.entries = append(ann.entries[:0], ann.entries[1:]...)
	}
	ann.entries = append(ann.entries, e)
	ann.mu.Unlock()
	return c
}

// withTexts returns a copy of the chart tree whose templates are texts
// (by template index).
func (idx *templateIndex) withTexts(texts [][]byte) *chart.Chart {
	return idx.clone(func(i int, src []byte) []byte {
		if i >= 0 && i < len(texts) && texts[i] != nil {
			return texts[i]
		}
		return src
	})
}

// annotated returns a copy of the chart tree whose templates carry marks.
func (idx *templateIndex) annotated(tbl *tmplmark.Table) *chart.Chart {
	return idx.clone(func(i int, src []byte) []byte { return tbl.AnnotateBytes(i, string(src)) })
}

// clone returns a copy of the chart tree whose templates' texts are what
// text makes of each (given its index and text), once per template.
func (idx *templateIndex) clone(text func(i int, src []byte) []byte) *chart.Chart {
	done := map[*common.File]*common.File{}
	var clone func(c *chart.Chart) *chart.Chart
	clone = func(c *chart.Chart) *chart.Chart {
		out := *c
		out.Templates = make([]*common.File, len(c.Templates))
		for i, t := range c.Templates {
			if m, ok := done[t]; ok {
				out.Templates[i] = m
				continue
			}
			m := &common.File{Name: t.Name, Data: text(idx.byFile[t], t.Data)}
			done[t] = m
			out.Templates[i] = m
		}
		deps := make([]*chart.Chart, 0, len(c.Dependencies()))
		for _, d := range c.Dependencies() {
			deps = append(deps, clone(d))
		}
		out.SetDependencies(deps...)
		return &out
	}
	return clone(idx.root)
}

// valuesFile is a values file.
type valuesFile struct {
	path string
	tree *valuesTree
}

// valuesTree is a values file's text, parsed when a source map first
// looks a values line up in it (most renders never do: a render's maps are
// made for the documents findings are on).
type valuesTree struct {
	data []byte
	once sync.Once
	node *yaml.Node // nil when the text is not YAML
}

// root returns the parsed file, or nil when it is not YAML.
func (t *valuesTree) root() *yaml.Node {
	t.once.Do(func() {
		t.node, _ = parseYAML(t.data)
		t.data = nil
	})
	return t.node
}

// valuesMap finds the values line a values path of a chart comes from.
type valuesMap struct {
	user []valuesFile // lowest precedence first
}

// locate returns the values-file line of path p as seen by the chart whose
// values are reached through chain from the root chart, over the files in
// precedence order: user files (last first), the root's values.yaml, then each
// subchart's own values.yaml. The deepest match wins.
func (vm *valuesMap) locate(idx *templateIndex, chain []string, p []seg) (rendered.Location, bool) {
	type cand struct {
		vf     valuesFile
		prefix []string
	}
	var cands []cand
	global := len(p) > 0 && p[0].Key == "global"
	prefixed := func(pre []string) []string {
		if global {
			return nil
		}
		return pre
	}
	for i := len(vm.user) - 1; i >= 0; i-- {
		cands = append(cands, cand{vm.user[i], prefixed(chain)})
	}
	// Walk the chart tree along chain to find each level's values.yaml.
	c := idx.root
	for depth := 0; ; depth++ {
		if src := idx.l.sourceOf(c); src != nil && src.values != nil {
			cands = append(cands, cand{valuesFile{src.valuesPath, src.values}, prefixed(chain[depth:])})
		}
		if depth == len(chain) {
			break
		}
		var next *chart.Chart
		for _, d := range c.Dependencies() {
			if d.Name() == chain[depth] {
				next = d
				break
			}
		}
		if next == nil {
			break
		}
		c = next
	}
	best, bestLen := rendered.Location{}, 0
	for _, cd := range cands {
		full := make([]seg, 0, len(cd.prefix)+len(p))
		for _, k := range cd.prefix {
			full = append(full, seg{Key: k, Index: -1})
		}
		full = append(full, p...)
		line, col, matched := lookupLine(cd.vf.tree.root(), full)
		matched -= len(cd.prefix)
		if matched > bestLen {
			best, bestLen = rendered.Location{File: cd.vf.path, Line: line, Column: col, Kind: Values}, matched
		}
	}
	return best, bestLen > 0
}

// aggregatedAPIs are API versions every cluster prodready supports serves
// (apiextensions.k8s.io/v1 since 1.16, apiregistration.k8s.io/v1 since
// 1.10) that Helm's default capabilities lack: those list client-go's
// scheme, which does not carry the API server's own aggregated groups. A
// chart that asks `.Capabilities.APIVersions.Has "apiregistration.k8s.io/v1"`
// (prometheus-adapter) gets the answer `helm install` gets from a cluster,
// and is not reported for the removed v1beta1 it writes otherwise.
var aggregatedAPIs = []string{
	"apiextensions.k8s.io/v1",
	"apiextensions.k8s.io/v1/CustomResourceDefinition",
	"apiregistration.k8s.io/v1",
	"apiregistration.k8s.io/v1/APIService",
}
