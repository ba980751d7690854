package bot

import (
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
	out := map[string]bool{}
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
		if underAny(q, p.charts) || (p.kustomize && underAny(q, kustDirs)) {
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
	all := rendered.Files{}
	var extraBytes int
	for _, f := range files {
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
	for _, dir := range p.charts {
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
	return rendered.Folder{Dir: ".", Files: set}, true
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
