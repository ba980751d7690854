package render

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/ignore"
)

// chartSource records where a loaded chart's files live in the repository.
type chartSource struct {
	dir        string            // repository folder of the chart; for a .tgz, "<path of the .tgz>/<chart>"
	files      []string          // repository paths of its files (synthetic inside a .tgz)
	templates  map[string]string // template name ("templates/x.yaml") -> repository path
	valuesPath string            // repository path of its values.yaml, or ""
	values     *valuesTree       // its values.yaml, or nil
}

// chartLoader loads charts and their dependencies from a [Files] set.
type chartLoader struct {
	files    rendered.Files
	read     rendered.Reader     // reads the files listed with no contents
	charts   rendered.ChartIndex // the set's charts by name
	sources  map[*common.File]*chartSource
	problems []rendered.Problem
	skipped  []rendered.Skipped
}

func newChartLoader(files rendered.Files, read rendered.Reader, charts rendered.ChartIndex) *chartLoader {
	return &chartLoader{files: files, read: read, charts: charts, sources: map[*common.File]*chartSource{}}
}

// data returns the contents of file p, read when the set lists it with
// none: the render holds them while it needs them, and no longer.
func (l *chartLoader) data(p string) ([]byte, error) {
	data, _, err := l.files.Read(p, l.read)
	return data, err
}

// sourceOf returns the source recorded for a chart (or an alias copy of it).
func (l *chartLoader) sourceOf(c *chart.Chart) *chartSource {
	if len(c.Raw) == 0 {
		return nil
	}
	return l.sources[c.Raw[0]]
}

const maxChartDepth = 8

// load reads the chart in folder dir with its dependencies: folders and
// archives under charts/, file:// repositories inside the set, and charts of
// the same name elsewhere in the set.
func (l *chartLoader) load(dir string, depth int, visiting map[string]bool) (*chart.Chart, error) {
	if depth > maxChartDepth {
		return nil, fmt.Errorf("loading chart %s: dependencies nested deeper than %d", dir, maxChartDepth)
	}
	visiting[dir] = true
	defer delete(visiting, dir)

	rules := l.helmignore(dir)
	var bufs []*archive.BufferedFile
	src := &chartSource{dir: dir, templates: map[string]string{}}
	subDirs := map[string]bool{}
	var archives []string
	for _, p := range l.files.Under(dir) {
		rel := p
		if dir != "" {
			rel = p[len(dir)+1:]
		}
		if ignored(rules, rel) {
			l.skipped = append(l.skipped, rendered.Skipped{File: p, Reason: "excluded by .helmignore"})
			continue
		}
		if rest, ok := strings.CutPrefix(rel, "charts/"); ok {
			if name, _, nested := strings.Cut(rest, "/"); nested {
				subDirs[name] = true
			} else if strings.HasSuffix(rest, ".tgz") || strings.HasSuffix(rest, ".tar.gz") {
				archives = append(archives, p)
			}
			continue
		}
		data, err := l.data(p)
		if err != nil {
			return nil, loadError(dir, depth, err)
		}
		bufs = append(bufs, &archive.BufferedFile{Name: rel, Data: data})
		src.files = append(src.files, p)
		if strings.HasPrefix(rel, "templates/") {
			src.templates[rel] = p
		}
		if rel == "values.yaml" {
			src.valuesPath = p
			src.values = &valuesTree{data: data}
		}
	}
	c, err := loadFiles(bufs)
	if err == nil {
		err = supportedAPIVersion(c)
	}
	if err != nil {
		return nil, loadError(dir, depth, refusedError{err})
	}
	l.own(c, src)

	names := make([]string, 0, len(subDirs))
	for name := range subDirs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sub := path.Join(dir, "charts", name)
		if _, ok := l.files[path.Join(sub, "Chart.yaml")]; !ok {
			continue
		}
		sc, err := l.load(sub, depth+1, visiting)
		if err != nil {
			file, line := loadErrorAt(sub, err)
			l.problems = append(l.problems, rendered.Problem{File: file, Line: line, Message: err.Error(), Refused: errors.As(err, new(refusedError))})
			continue
		}
		c.AddDependency(sc)
	}
	for _, a := range archives {
		data, err := l.data(a)
		if err != nil {
			l.problems = append(l.problems, rendered.Problem{File: a, Message: err.Error()})
			continue
		}
		sc, err := loader.LoadArchive(bytes.NewReader(data))
		if err == nil {
			err = supportedAPIVersion(sc)
		}
		if err != nil {
			l.problems = append(l.problems, rendered.Problem{File: a, Message: fmt.Sprintf("loading chart archive: %v", err), Refused: true})
			continue
		}
		l.ownArchive(sc, a)
		c.AddDependency(sc)
	}
	l.resolveLocal(c, dir, depth, visiting)
	return c, nil
}

// loadError is err, met loading the chart in folder dir, depth charts below
// the one rendered: a dependency's names its folder; the rendered chart's
// is said by a finding that names the chart already.
func loadError(dir string, depth int, err error) error {
	if depth == 0 {
		return err
	}
	return fmt.Errorf("loading chart %s: %w", dir, err)
}

// cannotLoad is Helm's loader's error for a chart file that is not YAML
// ("cannot load values.yaml: … yaml: line 2: …").
var cannotLoad = regexp.MustCompile(`cannot load ([^\s:]+): .*?\bline (\d+):`)

// loadErrorAt is where err, met loading the chart in folder dir, is
// reported: at the line of the chart's file that the YAML parser names,
// else at the chart's Chart.yaml.
func loadErrorAt(dir string, err error) (file string, line int) {
	if m := cannotLoad.FindStringSubmatch(err.Error()); m != nil && !strings.Contains(m[1], "/") {
		n, _ := strconv.Atoi(m[2])
		return path.Join(dir, m[1]), n
	}
	return path.Join(dir, "Chart.yaml"), 0
}

// supportedAPIVersion refuses a chart whose Chart.yaml names an apiVersion
// Helm does not load ("unsupported chart version"): v1 (also when none is
// named), v2, and v3, which Helm 4 loads as v2 but for requirements.yaml,
// are the ones it loads.
func supportedAPIVersion(c *chart.Chart) error {
	switch v := c.Metadata.APIVersion; v {
	case chart.APIVersionV1, chart.APIVersionV2, "v3":
		return nil
	default:
		return fmt.Errorf("apiVersion %q is not a chart API version Helm loads (v1, v2 or v3)", v)
	}
}

// refusedError is an error of Helm's chart loader: helm template and helm
// install refuse the chart too.
type refusedError struct{ err error }

func (e refusedError) Error() string { return e.err.Error() }
func (e refusedError) Unwrap() error { return e.err }

// loadFiles is loader.LoadFiles with panics turned into errors.
func loadFiles(bufs []*archive.BufferedFile) (c *chart.Chart, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chart loader panicked: %v", r)
		}
	}()
	return loader.LoadFiles(bufs)
}

// resolveLocal adds dependencies that charts/ does not hold from file://
// paths inside the set, then from charts of the same name in the set.
func (l *chartLoader) resolveLocal(c *chart.Chart, dir string, depth int, visiting map[string]bool) {
	for _, req := range c.Metadata.Dependencies {
		if req == nil || hasDependency(c, req) {
			continue
		}
		for _, cand := range l.charts.Candidates(dir, req.Name, req.Repository) {
			if visiting[cand] {
				continue
			}
			if _, ok := l.files[path.Join(cand, "Chart.yaml")]; !ok {
				continue
			}
			sc, err := l.load(cand, depth+1, visiting)
			if err != nil {
				l.problems = append(l.problems, rendered.Problem{File: path.Join(dir, "Chart.yaml"), Line: dependencyLine(l.files[path.Join(dir, "Chart.yaml")], req.Name), Message: err.Error()})
				break
			}
			if sc.Name() != req.Name {
				continue
			}
			// The repository's copy is what the author edits; accept it
			// whatever version the constraint asks for.
			if !chartutil.IsCompatibleRange(req.Version, sc.Metadata.Version) {
				req.Version = sc.Metadata.Version
			}
			c.AddDependency(sc)
			break
		}
	}
}

func hasDependency(c *chart.Chart, req *chart.Dependency) bool {
	for _, d := range c.Dependencies() {
		if d.Name() == req.Name && chartutil.IsCompatibleRange(req.Version, d.Metadata.Version) {
			return true
		}
	}
	return false
}

func (l *chartLoader) own(c *chart.Chart, src *chartSource) {
	for _, f := range c.Raw {
		l.sources[f] = src
	}
}

// ownArchive records synthetic sources for a chart read from an archive and
// for the charts inside it.
func (l *chartLoader) ownArchive(c *chart.Chart, archive string) {
	var rec func(c *chart.Chart, dir string)
	rec = func(c *chart.Chart, dir string) {
		src := &chartSource{dir: dir, templates: map[string]string{}}
		for _, f := range c.Raw {
			p := path.Join(dir, f.Name)
			src.files = append(src.files, p)
			if strings.HasPrefix(f.Name, "templates/") {
				src.templates[f.Name] = p
			}
			if f.Name == "values.yaml" {
				src.valuesPath = p
				src.values = &valuesTree{data: f.Data}
			}
		}
		l.own(c, src)
		for _, d := range c.Dependencies() {
			rec(d, path.Join(dir, "charts", d.Name()))
		}
	}
	rec(c, path.Join(archive, c.Name()))
}

// helmignore parses the chart's .helmignore with Helm's default rules.
func (l *chartLoader) helmignore(dir string) *ignore.Rules {
	rules := ignore.Empty()
	file := path.Join(dir, ignore.HelmIgnore)
	data, ok, err := l.files.Read(file, l.read)
	if err != nil {
		l.problems = append(l.problems, rendered.Problem{File: file, Message: err.Error()})
	}
	if ok {
		if r, err := ignore.Parse(bytes.NewReader(data)); err == nil {
			rules = r
		}
	}
	rules.AddDefaults()
	return rules
}

// ignored applies .helmignore rules to a chart-relative file path and to each
// folder above it, as Helm's directory walk does.
func ignored(rules *ignore.Rules, rel string) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if rules.Ignore(strings.Join(parts[:i], "/"), fakeInfo{name: parts[i-1], dir: true}) {
			return true
		}
	}
	return rules.Ignore(rel, fakeInfo{name: parts[len(parts)-1]})
}

// fakeInfo is the fs.FileInfo .helmignore matching needs for in-memory files.
type fakeInfo struct {
	name string
	dir  bool
}

func (f fakeInfo) Name() string { return f.name }
func (f fakeInfo) Size() int64  { return 0 }
func (f fakeInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir
	}
	return 0
}
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.dir }
func (f fakeInfo) Sys() any           { return nil }

// dependencyLine returns the 1-based line of "name: <dep>" under
// dependencies in a Chart.yaml, or 0.
func dependencyLine(chartYAML []byte, dep string) int {
	root, err := parseYAML(chartYAML)
	if err != nil || len(root.Content) == 0 {
		return 0
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "dependencies" || m.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range m.Content[i+1].Content {
			for j := 0; j+1 < len(item.Content); j += 2 {
				if item.Content[j].Value == "name" && item.Content[j+1].Value == dep {
					return item.Content[j].Line
				}
			}
		}
	}
	return 0
}
