package rendered

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/prodready/prodready/checks"
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
}

// placed is one render whose objects a run checks.
type placed struct {
	render *Render
	dir    string // the folder its paths are relative to, as inputs name it
	about  string // what the messages name: "chart charts/web", "overlay overlays/prod"
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
}

// ReadFolders reads from disk (ReadDir) each folder of dirs whose inputs
// hold a chart or a kustomization; the others need no render.
func ReadFolders(inputs []checks.Input, dirs []string) []Folder {
	var out []Folder
	for _, dir := range dirs {
		dir = path.Clean(dir)
		if !HasRoots(under(inputs, dir)) {
			continue
		}
		files, err := ReadDir(dir)
		out = append(out, Folder{Dir: dir, Files: files, Err: err})
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
// run goes on. Each chart is rendered with its values.yaml: the renders of
// its other values sets (ci/*-values.yaml, values-*.yaml) hold objects of
// the same names, so they need runs of their own, which are not made yet.
func Prepare(ctx context.Context, inputs []checks.Input, folders []Folder, render Renderer, opts Options) *Prepared {
	opts.ValuesYAMLOnly = true
	p := &Prepared{renders: map[string]*placed{}}
	drop := map[string]bool{}
	for _, folder := range folders {
		dir, files := path.Clean(folder.Dir), folder.Files
		if folder.Err != nil {
			p.Problems = append(p.Problems, failed(dir, Problem{Message: folder.Err.Error()}, "the folder cannot be read"))
			continue
		}
		if !hasRootFile(files) {
			continue
		}
		res, err := render(ctx, files, opts)
		if err != nil {
			// The renderer itself failed (or is not installed): no fault of
			// the charts', so a warning; their files are checked as written.
			roots := Discover(files)
			for _, c := range roots.Charts {
				f := failed(dir, Problem{File: path.Join(c, "Chart.yaml"), Line: 1, Message: err.Error()}, "chart "+path.Join(dir, c))
				f.Severity = checks.Warning
				p.Problems = append(p.Problems, f)
			}
			for _, k := range roots.Kustomizations {
				f := failed(dir, Problem{File: k, Line: 1, Message: err.Error()}, "overlay "+path.Join(dir, path.Dir(k)))
				f.Severity = checks.Warning
				p.Problems = append(p.Problems, f)
			}
			continue
		}
		for _, pr := range res.Problems {
			p.Problems = append(p.Problems, failed(dir, pr, "run"))
		}
		for _, s := range res.NotRendered {
			p.Problems = append(p.Problems, failed(dir, Problem{File: s.File, Line: 1, Message: "not rendered: " + s.Reason}, path.Join(dir, path.Dir(s.File))))
		}
		for i, r := range res.Renders {
			about := "overlay " + path.Join(dir, path.Dir(r.Root))
			if r.Kind == Helm {
				about = "chart " + path.Join(dir, r.Root)
				if len(r.ValuesFiles) > 0 {
					continue // see Prepare: values.yaml renders only
				}
			}
			for _, pr := range r.Problems {
				f := failed(dir, pr, about)
				if len(r.Documents) > 0 {
					f.Message = fmt.Sprintf("the %s is rendered only in part: %s", about, pr.Message)
				}
				p.Problems = append(p.Problems, f)
			}
			if len(r.Documents) == 0 {
				continue
			}
			root := r.Root
			if r.Kind == Kustomize {
				root = path.Dir(root)
			}
			in := checks.Input{Path: path.Join(dir, root, fmt.Sprintf(".prodready-render-%d.yaml", i)), Data: r.Stream}
			p.Inputs = append(p.Inputs, in)
			p.renders[in.Path] = &placed{render: r, dir: dir, about: about}
			p.Renders++
			for _, f := range standsFor(r) {
				drop[path.Join(dir, f)] = true
			}
			for _, sk := range r.Skipped {
				p.Skipped = append(p.Skipped, Skipped{File: path.Join(dir, sk.File), Reason: sk.Reason + " (" + about + ")"})
			}
		}
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
	var out []checks.Input
	for _, in := range inputs {
		if p := path.Clean(in.Path); p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, in)
		}
	}
	return out
}

// failed is the render-failed finding of a problem, its file under dir.
func failed(dir string, pr Problem, about string) checks.Finding {
	file := dir
	if pr.File != "" {
		file = path.Join(dir, pr.File)
	}
	line := max(pr.Line, 1)
	return checks.Finding{
		RuleID: checks.RenderFailed, Severity: checks.Error, File: file, Line: line, EndLine: line, Column: 1,
		Message: fmt.Sprintf("the %s cannot be rendered, so its objects are not checked as rendered: %s", about, pr.Message),
		Object:  checks.ObjectRef{Doc: -1},
	}
}

// Map turns the findings on rendered objects into findings at the lines
// their authors edit (the template or values line, the patch or base line)
// and leaves the others as they are. A mapped finding keeps its fix's
// description but not its edits, which apply to the rendered text: the
// author makes the change in the source.
func (p *Prepared) Map(fs []checks.Finding) []checks.Finding {
	if len(p.renders) == 0 {
		return fs // a plain run: every batch passes as it is
	}
	mapped := false
	for i := range fs {
		pl, ok := p.renders[fs[i].File]
		if !ok {
			continue
		}
		mapped = true
		f := &fs[i]
		doc := f.Object.Doc
		file, line := "", 1
		if doc >= 0 && doc < len(pl.render.Documents) {
			file = pl.render.Documents[doc].Source
			if loc, ok := pl.render.Locate(doc, f.Path); ok {
				file = loc.File
				line = max(loc.Line, 1)
			}
		}
		if file == "" {
			file = pl.render.Root
		}
		f.File = path.Join(pl.dir, file)
		f.Line, f.EndLine, f.Column = line, line, 1
		f.Message += " (rendered from the " + pl.about + ")"
		if f.Fix != nil {
			fx := *f.Fix
			fx.Edits = nil
			f.Fix = &fx
		}
	}
	if mapped {
		checks.SortFindings(fs) // mapped findings moved to other files and lines
	}
	return fs
}
