package cli

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/plural"
)

// selection is what check and fix read for the paths given. A file inside
// a Helm chart or a kustomize folder, named alone (pre-commit names the
// changed files, not their chart), is read as part of that chart or
// folder, which is rendered whole; only the findings of the files named
// are shown, with the chart's render-failed findings, which say nothing
// of it was checked. So is a folder inside one that holds no chart or
// kustomization of its own (a chart's templates/, an overlay's patches/):
// read alone, its templates are not YAML and its patches are partial
// objects, which the rules would take for whole ones.
type selection struct {
	inputs []checks.Input
	// folders are the paths whose charts and overlays are rendered: the
	// folders named, and the chart or kustomize folder of each file named
	// inside one.
	folders []string
	// partial maps each such chart or kustomize folder (slash-separated,
	// as the inputs spell it) to the files named in it, and partialDirs
	// to the folders named in it.
	partial     map[string]map[string]bool
	partialDirs map[string][]string
	// named are the paths given, as the run spells them ("<stdin>" for
	// "-"), and wide says whether a folder named whole holds a chart or
	// an overlay: its renders' findings outside it (a base beside an
	// overlay) are its own. Without one, a finding outside every path
	// named (a base outside the overlay a patch was named in) is not
	// shown.
	named []string
	wide  bool
	// hidden counts the findings left out as outside the paths named
	// (wants), and hiddenFiles holds the files they lie in.
	hidden      int
	hiddenFiles map[string]bool
	// rootKind says what each folder of partial is: "chart" or "overlay".
	rootKind map[string]string
}

// renderRootFiles are the files that make a folder a chart or a
// kustomization.
var renderRootFiles = []string{"Chart.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization"}

// selectInputs lists the inputs of paths ("." when none is given) under
// cfg, read now or (lazy) when each is parsed (checks.List).
func selectInputs(cfg *checks.Config, paths []string, stdin io.Reader, lazy bool) (*selection, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	sel := &selection{partial: map[string]map[string]bool{}, partialDirs: map[string][]string{}, rootKind: map[string]string{}}
	var list, dirs []string
	roots := newRootFinder()
	for _, p := range paths {
		root, dir := "", false
		if p == "-" {
			sel.named = append(sel.named, "<stdin>")
		} else {
			// Spelled as the run spells the files it reads, so that a
			// path named through ".." back into the current folder
			// names the files the run finds there.
			p = checks.RunPath(p)
			sel.named = append(sel.named, p)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				root = roots.renderRootOf(p)
			} else if err == nil && st.IsDir() {
				if root = roots.renderRootAbove(p); root == "" {
					dirs = append(dirs, slashClean(p))
				}
				dir = true
			}
		}
		if root == "" {
			list = append(list, p)
			continue
		}
		key := slashClean(root)
		if sel.partial[key] == nil {
			sel.partial[key] = map[string]bool{}
			sel.rootKind[key] = roots.kindName(root)
			list = append(list, root)
		}
		named := slashClean(p)
		if dir {
			sel.partialDirs[key] = append(sel.partialDirs[key], named)
		} else {
			sel.partial[key][named] = true
		}
	}
	// A folder also named whole, or under one named whole, shows all: the
	// root listed for its files named goes, unless it is the folder named
	// whole itself (`check web web/values.yaml`).
	for key := range sel.partial {
		for _, p := range dirs {
			if within(key, p) {
				delete(sel.partial, key)
				delete(sel.partialDirs, key)
				if key != p {
					list = slices.DeleteFunc(list, func(s string) bool { return slashClean(s) == key })
				}
				break
			}
		}
	}
	// A path named twice (`check web ./web/`), or a folder named and
	// listed for its files, is read, and rendered, once.
	seen := map[string]bool{}
	list = slices.DeleteFunc(list, func(s string) bool {
		k := slashClean(s)
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
	if len(sel.partial) > 0 {
		sel.wide = slices.ContainsFunc(dirs, holdsRenderRoot)
	}
	load := checks.Load
	if lazy {
		load = checks.List
	}
	inputs, err := load(list, cfg, stdin)
	if err != nil {
		return nil, err
	}
	// A file named is read whatever the include and exclude globs say, as
	// it is when it is named outside a chart.
	have := map[string]bool{}
	for _, in := range inputs {
		have[in.Path] = true
	}
	var missing []string
	for _, files := range sel.partial {
		for f := range files {
			if !have[f] {
				missing = append(missing, f)
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		more, err := load(missing, cfg, nil)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, more...)
	}
	sel.inputs = inputs
	for _, p := range list {
		sel.folders = append(sel.folders, p)
	}
	return sel, nil
}

// rootFinder answers renderRootOf for many files (pre-commit names every
// changed file), asking the file system once per folder: what each folder
// holds and which repository it is in are remembered.
type rootFinder struct {
	cwd   string
	kinds map[string]folderKind // absolute folder → what makes it a root
	repos map[string]string     // absolute folder → its repository root ("" for none)
}

// folderKind says whether a folder is a chart, a kustomization, or neither.
type folderKind uint8

const (
	plainFolder folderKind = iota
	chartFolder
	kustomizeFolder
)

func newRootFinder() *rootFinder {
	cwd, _ := os.Getwd()
	return &rootFinder{cwd: cwd, kinds: map[string]folderKind{}, repos: map[string]string{}}
}

// kind is what dir holds: Chart.yaml, else a kustomization, else neither.
func (f *rootFinder) kind(dir string) folderKind {
	k, ok := f.kinds[dir]
	if !ok {
		k = plainFolder
		if isFile(filepath.Join(dir, renderRootFiles[0])) {
			k = chartFolder
		} else {
			for _, name := range renderRootFiles[1:] {
				if isFile(filepath.Join(dir, name)) {
					k = kustomizeFolder
					break
				}
			}
		}
		f.kinds[dir] = k
	}
	return k
}

// kindName names what folder dir is, as messages say it: "chart",
// "overlay", or "folder".
func (f *rootFinder) kindName(dir string) string {
	abs, err := f.abs(dir)
	if err != nil {
		return "folder"
	}
	switch f.kind(filepath.Clean(abs)) {
	case chartFolder:
		return "chart"
	case kustomizeFolder:
		return "overlay"
	}
	return "folder"
}

// repositoryRoot is repositoryRoot(dir), remembered for dir and for
// every folder above it that was asked on the way: the files of one
// repository share the walk up to its root (and outside one, to the
// filesystem root).
func (f *rootFinder) repositoryRoot(dir string) string {
	root, ok := f.repos[dir]
	if !ok {
		switch up := filepath.Dir(dir); {
		case isRepositoryRoot(dir):
			root = dir
		case up != dir:
			root = f.repositoryRoot(up)
		}
		f.repos[dir] = root
	}
	return root
}

// renderRootAbove is the chart or kustomize folder (renderRootOf) that
// folder dir lies inside, when dir is not that folder itself and holds no
// chart or kustomization of its own (which is checked as it is: a
// subchart, an overlay's own base); "" otherwise.
func (f *rootFinder) renderRootAbove(dir string) string {
	root := f.renderRootIn(dir)
	if root == "" || slashClean(root) == slashClean(dir) || holdsRenderRoot(dir) {
		return ""
	}
	return root
}

// holdsRenderRoot reports whether a chart or kustomization lies in dir or
// under it.
func holdsRenderRoot(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if !d.IsDir() && slices.Contains(renderRootFiles, d.Name()) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// renderRootOf is the folder of the outermost chart, else of the nearest
// kustomization, that file lies in, from its own folder up to the
// repository root (outside a repository: the current folder, or the chart
// whose templates folder it is in, or the filesystem root for a file not
// under it); "" when
// it lies in none. The folder is spelled as file is (relative stays
// relative).
func (f *rootFinder) renderRootOf(file string) string {
	return f.renderRootIn(filepath.Dir(file))
}

// chartOfTemplates returns the chart folder whose templates folder dir
// is, or lies in (`cd web/templates`); "" for none.
func (f *rootFinder) chartOfTemplates(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "templates" && f.kind(filepath.Dir(d)) == chartFolder {
			return filepath.Dir(d)
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// renderRootIn is renderRootOf a file of folder folder: the chart or
// kustomize folder it is, or lies in.
func (f *rootFinder) renderRootIn(folder string) string {
	abs, err := f.abs(folder)
	if err != nil {
		return ""
	}
	cwd := f.cwd
	stop := f.repositoryRoot(abs)
	if stop == "" {
		// Outside a repository: up to the current folder when the
		// folder is under it (or up to the chart whose templates folder
		// the current folder is in), else up to the filesystem root.
		stop = cwd
		if cwd == "" || !within(filepath.ToSlash(abs), filepath.ToSlash(cwd)) {
			stop = filepath.VolumeName(abs) + string(filepath.Separator)
		} else if chart := f.chartOfTemplates(cwd); chart != "" {
			stop = chart
		}
	}
	chart, kustomize := "", ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if !within(filepath.ToSlash(dir), filepath.ToSlash(stop)) {
			break
		}
		switch f.kind(dir) {
		case chartFolder:
			chart = dir // keep going: a subchart renders with its parent
		case kustomizeFolder:
			if kustomize == "" && chart == "" {
				kustomize = dir
			}
		}
		if dir == stop || filepath.Dir(dir) == dir {
			break
		}
	}
	found := chart
	if found == "" {
		found = kustomize
	}
	if found == "" {
		return ""
	}
	// Spelled from the folder as given, up as many levels.
	up, err := filepath.Rel(found, abs)
	if err != nil {
		return ""
	}
	dir := folder
	if up != "." {
		for range strings.Split(up, string(filepath.Separator)) {
			dir = filepath.Join(dir, "..")
		}
	}
	return filepath.Clean(dir)
}

// abs is filepath.Abs(file) from the current folder newRootFinder read:
// Abs asks the system for it on every call, two stats a file.
func (f *rootFinder) abs(file string) (string, error) {
	if filepath.IsAbs(file) || f.cwd == "" {
		return filepath.Abs(file)
	}
	return filepath.Join(f.cwd, file), nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// within reports whether slash path p is dir or under it. A clean path
// has ".." only at its start: a dir of ".." alone ("..", "../..", or "."
// for none) holds every relative path that climbs no more levels than it
// does, and "../../base" is under "..", the parent, only by its spelling.
func within(p, dir string) bool {
	if up, ok := climbs(dir); ok {
		n, _ := climbs(p)
		return !path.IsAbs(p) && n <= up
	}
	rest, ok := strings.CutPrefix(p, strings.TrimSuffix(dir, "/")+"/")
	return p == dir || (ok && rest != ".." && !strings.HasPrefix(rest, "../"))
}

// climbs is how many ".." a clean relative path starts with, and whether
// it is made of them alone ("." is none).
func climbs(p string) (int, bool) {
	if p == "." {
		return 0, true
	}
	n := 0
	for p == ".." || strings.HasPrefix(p, "../") {
		n++
		p = strings.TrimPrefix(strings.TrimPrefix(p, ".."), "/")
	}
	return n, p == ""
}

func slashClean(p string) string { return path.Clean(filepath.ToSlash(p)) }

// partialOf is the chart or kustomize folder named through some of its
// files that holds p, or "".
func (s *selection) partialOf(p string) string {
	p = slashClean(p)
	for key := range s.partial {
		if within(p, key) {
			return key
		}
	}
	return ""
}

// wantsPath reports whether what the run says of path p is shown: p is
// one of the files named or lies in one of the folders named, or lies
// outside every folder named through some of its files or folders while
// a folder named whole renders a chart or an overlay (whose findings
// reach outside it, as an overlay's in its base do).
func (s *selection) wantsPath(p string) bool {
	p = slashClean(p)
	key := s.partialOf(p)
	if key != "" {
		return s.partial[key][p] || slices.ContainsFunc(s.partialDirs[key], func(dir string) bool { return within(p, dir) })
	}
	return s.wide || slices.ContainsFunc(s.named, func(n string) bool { return within(p, n) })
}

// shown keeps the findings of the files named, in place, and the
// render-failed findings of their charts and overlays.
func (s *selection) shown(fs []checks.Finding) []checks.Finding {
	if len(s.partial) == 0 {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if s.wants(f) {
			out = append(out, f)
		}
	}
	return out
}

// wants reports whether finding f is shown: it lies in a path named
// (wantsPath), or is a render-failed finding of a chart or overlay read
// for them. It counts those it leaves out, for hiddenNote.
func (s *selection) wants(f checks.Finding) bool {
	if len(s.partial) == 0 || f.RuleID == checks.RenderFailed || s.wantsPath(f.File) {
		return true
	}
	s.hidden++
	if s.hiddenFiles == nil {
		s.hiddenFiles = map[string]bool{}
	}
	s.hiddenFiles[slashClean(f.File)] = true
	return false
}

// resetHidden starts the count of wants again (fix counts its last
// round's).
func (s *selection) resetHidden() { s.hidden, s.hiddenFiles = 0, nil }

// hiddenNote says, when wants left findings out, how many and in which
// files, and that `prodready <command>` on the charts and overlays the
// paths named are part of takes them (verb): nothing the run found is
// left out unsaid. "" when none was.
func (s *selection) hiddenNote(command, verb string) string {
	if s.hidden == 0 {
		return ""
	}
	files := slices.Sorted(maps.Keys(s.hiddenFiles))
	list := strings.Join(files[:min(len(files), 3)], ", ")
	if len(files) > 3 {
		list += fmt.Sprintf(" and %d more", len(files)-3)
	}
	roots := slices.Sorted(maps.Keys(s.partial))
	named := make([]string, len(roots))
	for i, r := range roots {
		named[i] = s.rootKind[r] + " " + r
	}
	return fmt.Sprintf("prodready: %s of %s %s in files not named (%s): `prodready %s %s` %s %s\n",
		plural.Count(s.hidden, "finding", "findings"), strings.Join(named, ", "), plural.Form(s.hidden, "lies", "lie"),
		list, command, strings.Join(roots, " "), verb, plural.Form(s.hidden, "it", "them"))
}

// result is res with only the files shown, and the renders of the charts
// and overlays they are part of (files no input was read from), which
// hold their objects (its counts of objects stay those of the whole run).
func (s *selection) result(res *checks.Result) *checks.Result {
	if len(s.partial) == 0 {
		return res
	}
	read := map[string]bool{}
	for _, in := range s.inputs {
		read[slashClean(in.Path)] = true
	}
	out := *res
	out.Files = slices.DeleteFunc(slices.Clone(res.Files), func(f *manifest.File) bool {
		return read[slashClean(f.Path)] && !s.wantsPath(f.Path)
	})
	out.NoObject = slices.DeleteFunc(slices.Clone(res.NoObject), func(p string) bool { return !s.wantsPath(p) })
	return &out
}
