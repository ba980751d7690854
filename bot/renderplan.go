package bot

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
)

// Bounds on the files a review loads only because a chart or overlay it
// renders may read them (helpers, NOTES.txt, .helmignore, Chart.lock,
// charts/*.tgz, files read through .Files, kustomize generator files), on
// top of the host's own bounds on each blob and tarball.
const (
	// MaxRenderFiles bounds how many such files one review loads.
	MaxRenderFiles = 5000
	// MaxRenderBytes bounds their total size.
	MaxRenderBytes = 256 << 20
)

// renderPlan is what a review renders: the charts and overlays whose files
// the pull request touches, worked out first from the paths of the tree at
// head (which files to load) and then from the loaded files (which root
// overlays reach a changed base).
type renderPlan struct {
	cfg *checks.Config
	// touched are the paths the pull request changes: at head, and the
	// paths it removes or renames away from (a removed template changes
	// its chart's render too).
	touched []string
	// plain are the files checked as written (the config's include and
	// exclude); extra are the files loaded only for rendering.
	plain, extra map[string]bool
	// charts are the affected chart folders ("" for the repository root),
	// kustomize says whether any overlay may be affected.
	charts    []string
	kustomize bool
	// notLoaded are files a render may read that were left out by
	// MaxRenderFiles or MaxRenderBytes.
	notLoaded []string

	// deps are the chart folders, outside the affected charts, that their
	// dependencies resolve to (bitnami's common beside redis): loaded and
	// read by the renders, not rendered themselves.
	deps []string

	// Set by prepare: the affected root overlays and the folders and
	// files each reaches.
	overlays map[string]overlayReach
}

type overlayReach struct{ dirs, refs []string }

func newRenderPlan(cfg *checks.Config, changed []ChangedFile) *renderPlan {
	p := &renderPlan{cfg: cfg, plain: map[string]bool{}, extra: map[string]bool{}, overlays: map[string]overlayReach{}}
	seen := map[string]bool{}
	for _, f := range changed {
		for _, q := range []string{f.Path, f.PreviousPath} {
			if q != "" && !seen[q] {
				seen[q] = true
				p.touched = append(p.touched, q)
			}
		}
	}
	sort.Strings(p.touched)
	return p
}

// changes reports whether the pull request changes the file at path (at
// head, or as the path it removes or renames away from).
func (p *renderPlan) changes(file string) bool {
	_, ok := slices.BinarySearch(p.touched, file)
	return ok
}

// mayRender reports whether a changed path could be an input of a chart
// or overlay without being a manifest the config checks: the cheap test
// that keeps a pull request changing only documentation or code from
// listing the tree. It knows the names charts and overlays are made of and
// the extensions of the files their templates and generators commonly read.
func mayRender(p string) bool {
	base := path.Base(p)
	switch base {
	case "Chart.yaml", "Chart.lock", "values.yaml", ".helmignore", "NOTES.txt", "Kustomization", "kustomization.yaml", "kustomization.yml":
		return true
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		switch seg {
		case "templates", "charts", "crds", "files", "config", "configs":
			return true
		}
	}
	switch strings.ToLower(path.Ext(base)) {
	case ".yaml", ".yml", ".json", ".tpl", ".tgz", ".txt", ".env", ".properties", ".conf", ".cfg", ".ini", ".toml", ".xml", ".sh", ".lua", ".sql", ".pem", ".crt":
		return true
	}
	return false
}

// want picks the files to load at head: the manifests the config checks,
// and, for the charts the pull request touches and for every kustomize
// folder when it touches one or a manifest, the files under them, within
// MaxRenderFiles.
func (p *renderPlan) want(paths []string) map[string]bool {
	// Sized once, for every path (most are manifests): grown, the two
	// maps were 3 MB of a push's allocations at 50,000 objects.
	out := make(map[string]bool, len(paths))
	if len(p.plain) == 0 {
		p.plain = make(map[string]bool, len(paths))
	}
	names := make(rendered.Files, len(paths))
	for _, q := range paths {
		names[q] = nil
		if q != checks.ConfigFileName && p.cfg.Wants(q) {
			out[q] = true
			p.plain[q] = true
		}
	}
	// Charts: a chart whose Chart.yaml the config checks and under whose
	// folder a changed path lies.
	for _, dir := range rendered.Discover(names).Charts {
		if !p.cfg.Wants(path.Join(dir, "Chart.yaml")) {
			continue
		}
		for _, t := range p.touched {
			if under(t, dir) {
				p.charts = append(p.charts, dir)
				break
			}
		}
	}
	// Kustomize: which root overlays reach a changed file is known only
	// from the kustomizations' content, so every kustomize folder's files
	// are loaded when a changed path lies under one or is a manifest (a
	// resource an overlay may name from elsewhere).
	var kustDirs []string
	for _, q := range paths {
		if rendered.IsKustomizationName(path.Base(q)) {
			kustDirs = append(kustDirs, rendered.CleanDir(path.Dir(q)))
		}
	}
	if len(kustDirs) > 0 {
		for _, t := range p.touched {
			if p.plain[t] || isYAML(t) || underAny(t, kustDirs) {
				p.kustomize = true
				break
			}
		}
	}
	var extra []string
	for _, q := range paths {
		if out[q] || q == checks.ConfigFileName {
			continue
		}
		// Every Chart.yaml too when a chart is affected: which charts its
		// dependencies resolve to, and which charts depend on it, is
		// known only from them (see needs).
		if underAny(q, p.charts) || (p.kustomize && underAny(q, kustDirs)) || len(p.charts) > 0 && path.Base(q) == "Chart.yaml" {
			extra = append(extra, q)
		}
	}
	// Shallow files first (a chart's own files before its subcharts'), so
	// a bound leaves out what is least likely read.
	sort.Slice(extra, func(i, j int) bool {
		di, dj := strings.Count(extra[i], "/"), strings.Count(extra[j], "/")
		if di != dj {
			return di < dj
		}
		return extra[i] < extra[j]
	})
	if len(extra) > MaxRenderFiles {
		p.notLoaded = append(p.notLoaded, extra[MaxRenderFiles:]...)
		extra = extra[:MaxRenderFiles]
	}
	for _, q := range extra {
		out[q] = true
		p.extra[q] = true
	}
	return out
}

func isYAML(p string) bool {
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")
}

// under reports whether p lies in folder dir ("" is the repository root).
func under(p, dir string) bool {
	return dir == "" || strings.HasPrefix(p, dir+"/")
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if under(p, d) {
			return true
		}
	}
	return false
}

// folder builds, from the loaded files, the one folder the review renders:
// the files of the affected charts and of the affected root overlays (those
// reaching a changed path), and records which overlays those are. It
// returns false when nothing is to be rendered. Extra files beyond
// MaxRenderBytes are left out (and named as not loaded).
func (p *renderPlan) folder(files []File) (rendered.Folder, bool) {
	if len(p.charts)+len(p.deps) == 0 && !p.kustomize && len(p.extra) == 0 {
		// Nothing to render, and no file loaded for a render: a map of
		// every file was 3 MB of a push's allocations at 50,000 objects.
		return rendered.Folder{}, false
	}
	all := make(rendered.Files, len(files))
	var extraBytes int
	for _, f := range files {
		if f.Skipped != "" {
			continue // not read: not a file the renders can read either
		}
		if p.extra[f.Path] {
			if extraBytes+len(f.Data) > MaxRenderBytes {
				p.notLoaded = append(p.notLoaded, f.Path)
				continue
			}
			extraBytes += len(f.Data)
		}
		all[f.Path] = f.Data
	}
	set := rendered.Files{}
	for _, dir := range append(append([]string(nil), p.charts...), p.deps...) {
		for _, q := range all.Under(dir) {
			set[q] = all[q]
		}
	}
	if p.kustomize {
		for _, k := range rendered.Discover(all).Kustomizations {
			if !p.cfg.Wants(k) {
				continue
			}
			dirs, refs := rendered.Reach(all, k)
			if !p.reaches(dirs, refs) {
				continue
			}
			p.overlays[k] = overlayReach{dirs, refs}
			for _, d := range dirs {
				for _, q := range all.Under(d) {
					set[q] = all[q]
				}
			}
			for _, r := range refs {
				if data, ok := all[r]; ok {
					set[r] = data
				}
			}
		}
	}
	if len(p.charts) == 0 && len(p.overlays) == 0 {
		return rendered.Folder{}, false
	}
	folder := rendered.Folder{Dir: ".", Files: set}
	if len(p.deps) > 0 {
		// The dependencies' charts are there to be read, not rendered.
		folder.Roots = append(folder.Roots, p.charts...)
		for k := range p.overlays {
			folder.Roots = append(folder.Roots, rendered.CleanDir(path.Dir(k)))
		}
		sort.Strings(folder.Roots)
	}
	return folder, true
}

// needs returns, once want's files are loaded, a Want for what the
// affected charts' renders need beyond them, resolved as the renderer
// resolves dependencies (rendered.ChartDeps over the Chart.yaml files
// want loaded): the files of the charts their dependencies come from
// outside their folders (bitnami's common beside redis), and of the
// charts that depend on an affected chart, which become affected too (a
// change to common changes redis's render). It returns nil when nothing
// more is needed.
func (p *renderPlan) needs(files []File) Want {
	if len(p.charts) == 0 {
		return nil
	}
	all := make(rendered.Files, len(files))
	for _, f := range files {
		all[f.Path] = f.Data
	}
	ix := rendered.IndexCharts(all)
	deps := map[string][]string{}
	for _, c := range rendered.Discover(all).Charts {
		deps[c] = rendered.ChartDeps(all, ix, c)
	}
	affected := map[string]bool{}
	for _, c := range p.charts {
		affected[c] = true
	}
	var added []string
	for c, ds := range deps {
		if affected[c] || !p.cfg.Wants(path.Join(c, "Chart.yaml")) {
			continue
		}
		for _, d := range ds {
			if affected[d] {
				added = append(added, c)
				break
			}
		}
	}
	p.charts = append(p.charts, added...)
	sort.Strings(p.charts)
	for _, c := range added {
		affected[c] = true
	}
	seen := map[string]bool{}
	for _, c := range p.charts {
		for _, d := range deps[c] {
			if !affected[d] && !underAny(d, p.charts) && !seen[d] {
				seen[d] = true
				p.deps = append(p.deps, d)
			}
		}
	}
	sort.Strings(p.deps)
	if len(added) == 0 && len(p.deps) == 0 {
		return nil
	}
	dirs := append(append([]string(nil), added...), p.deps...)
	return func(paths []string) map[string]bool {
		out := map[string]bool{}
		var extra []string
		for _, q := range paths {
			if _, loaded := all[q]; loaded || q == checks.ConfigFileName || !underAny(q, dirs) {
				continue
			}
			extra = append(extra, q)
		}
		sort.Strings(extra)
		if room := MaxRenderFiles - len(p.extra); len(extra) > room {
			p.notLoaded = append(p.notLoaded, extra[max(room, 0):]...)
			extra = extra[:max(room, 0)]
		}
		for _, q := range extra {
			out[q] = true
			if p.cfg.Wants(q) {
				p.plain[q] = true // a manifest of a chart that became affected
			} else {
				p.extra[q] = true
			}
		}
		return out
	}
}

// loadFiles loads through host the files of a review at ref: want's
// pick, then, when the affected charts' renders need more (needs), those
// too, with one more listing of the tree. Without a renderer it loads the
// manifests the config checks.
func loadFiles(ctx context.Context, host Host, pr PullRequest, ref string, cfg *checks.Config, plan *renderPlan, render bool, cache BlobCache) ([]File, error) {
	var files []File
	var err error
	if !render {
		files, err = host.Manifests(ctx, pr, ref, WantEach(func(p string) bool { return p != checks.ConfigFileName && cfg.Wants(p) }), cache)
	} else if files, err = host.Manifests(ctx, pr, ref, plan.want, cache); err == nil {
		if more := plan.needs(files); more != nil {
			var extra []File
			if extra, err = host.Manifests(ctx, pr, ref, more, cache); err == nil {
				files = append(files, extra...)
			}
		}
	}
	if err != nil || len(cfg.CRDs) == 0 {
		return files, err
	}
	// The CRDs the config's crds names, read for what they tell the
	// rules of custom resources (as check reads them), never checked.
	have := make(map[string]bool, len(files))
	for _, f := range files {
		have[f.Path] = true
	}
	crds, err := host.Manifests(ctx, pr, ref, WantEach(func(p string) bool { return !have[p] && cfg.CRDFile(p) }), cache)
	if err != nil {
		return nil, err
	}
	return append(files, crds...), nil
}

// reaches reports whether a changed path lies under dirs or is one of refs.
func (p *renderPlan) reaches(dirs, refs []string) bool {
	for _, t := range p.touched {
		if underAny(t, dirs) {
			return true
		}
		for _, r := range refs {
			if t == r {
				return true
			}
		}
	}
	return false
}

// affected reports whether a render is of an affected chart or overlay.
func (p *renderPlan) affected(r *rendered.Render) bool {
	if r.Kind == rendered.Kustomize {
		_, ok := p.overlays[r.Root]
		return ok
	}
	for _, c := range p.charts {
		if c == rendered.CleanDir(r.Root) {
			return true
		}
	}
	return false
}

// owns reports whether file belongs to an affected chart or overlay: it
// is under an affected chart's folder or under a folder an affected
// overlay builds from, or is a file such an overlay names.
func (p *renderPlan) owns(file string) bool {
	if underAny(file, p.charts) {
		return true
	}
	for k, o := range p.overlays {
		if file == k || underAny(file, o.dirs) {
			return true
		}
		for _, r := range o.refs {
			if file == r {
				return true
			}
		}
	}
	return false
}

// problemFile is where a review reports a render problem of the run as a
// whole (no file of its own, such as the render cap): the first chart or
// overlay the plan renders.
func (p *renderPlan) problemFile(file string) string {
	if file == "." || file == "" {
		return p.firstRoot()
	}
	return file
}

func (p *renderPlan) firstRoot() string {
	if len(p.charts) > 0 {
		return path.Join(p.charts[0], "Chart.yaml")
	}
	var ks []string
	for k := range p.overlays {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	if len(ks) > 0 {
		return ks[0]
	}
	return checks.ConfigFileName
}

// notLoadedReason is why a file a render may read was not loaded.
var notLoadedReason = fmt.Sprintf("not loaded: over the %d files or %d MiB a review loads for the charts and overlays it renders", MaxRenderFiles, MaxRenderBytes>>20)
