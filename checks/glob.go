package checks

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Include and exclude globs (the config's include and exclude, and the
// --include and --exclude flags) have github.com/bmatcuk/doublestar/v4's
// semantics: `*` and `?` within a name, `**` for any number of folders,
// `{a,b}` for either, `[abc]` classes. A glob is matched against a file's
// path relative to the glob's folder (the config file's folder for the
// config's, the current folder for the flags'), and:
//
//   - a glob without a slash matches a file or folder name anywhere:
//     `_archived` leaves out every folder so named, `*.tpl.yaml` every
//     such file;
//   - a glob that matches a folder matches everything under it:
//     `deploy/legacy` as `deploy/legacy/**`; for include, a folder matched
//     brings its .yaml and .yml files, not its READMEs;
//   - a leading "./" and a trailing "/" are ignored.
//
// A glob that matches nothing in a run is reported (UnmatchedGlobs): a
// typo, or a folder that moved, must not pass in silence.

// glob is one include or exclude glob and what it matched.
type glob struct {
	pattern string
	bare    bool
	// base is the absolute folder the glob is relative to; "" for the
	// config's globs, which match from the config's root.
	base string
	// name is how a warning names it: "--exclude _archived".
	name    string
	invalid bool
	matched bool
}

// globState is the config's globs in use: the flags', and what each glob
// matched in a run.
type globState struct {
	include, exclude []*glob
	// flagInclude is set when --include replaces the config's include.
	flagInclude bool
	// walkedRoot is set when a run walked the config's whole root, so a
	// config glob that matched nothing is worth a warning; walked when it
	// walked any folder (the flags' globs).
	walkedRoot, walked bool
}

func newGlob(pattern, base, name string) *glob {
	p := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(pattern)), "./"), "/")
	if p == "" {
		p = "."
	}
	g := &glob{pattern: p, bare: !strings.Contains(p, "/"), base: base, name: name}
	g.invalid = !doublestar.ValidatePattern(p)
	return g
}

// SetFlagGlobs adds the --include and --exclude globs of a run, relative
// to dir (the current folder): include, when given, replaces the
// config's include; exclude adds to the config's exclude. A glob that is
// not valid is an error.
func (c *Config) SetFlagGlobs(dir string, include, exclude []string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	st := c.keepGlobs()
	for _, list := range []struct {
		flag     string
		patterns []string
		into     *[]*glob
	}{{"--include", include, &st.include}, {"--exclude", exclude, &st.exclude}} {
		for _, p := range list.patterns {
			g := newGlob(p, abs, list.flag+" "+p)
			if g.invalid {
				return fmt.Errorf("%s %s: not a valid glob (a [ or { left open?)", list.flag, p)
			}
			*list.into = append(*list.into, g)
		}
	}
	if len(include) > 0 {
		st.flagInclude = true
	}
	return nil
}

// globs is the config's glob state: the one SetFlagGlobs or List made,
// else a new one from its include and exclude, which is not kept (Wants
// may be called from several goroutines: only List, which runs in one,
// keeps what its globs matched).
func (c *Config) globs() *globState {
	if c.globState != nil {
		return c.globState
	}
	if len(c.Include) == 0 && len(c.Exclude) == 0 {
		// No glob to remember a match of: one state, only read, for every
		// call (one made at each was 60,000 allocations, 4 MB, of a push
		// at 50,000 objects).
		return &noGlobs
	}
	return c.newGlobState()
}

// noGlobs is the glob state of a config without include and exclude globs
// that does not keep one (globs): it is only read.
var noGlobs globState

// keepGlobs makes the config keep its glob state, so that what the globs
// match is remembered (UnmatchedGlobs).
func (c *Config) keepGlobs() *globState {
	if c.globState == nil {
		c.globState = c.newGlobState()
	}
	return c.globState
}

func (c *Config) newGlobState() *globState {
	st := &globState{}
	for _, p := range c.Include {
		st.include = append(st.include, newGlob(p, "", "include "+p+" (config)"))
	}
	for _, p := range c.Exclude {
		st.exclude = append(st.exclude, newGlob(p, "", "exclude "+p+" (config)"))
	}
	return st
}

// UnmatchedGlobs names the include and exclude globs that matched no file
// of the folders the run walked ("--exclude _archived"): the flags' when
// a folder was walked, the config's when its whole root was.
func (c *Config) UnmatchedGlobs() []string {
	st := c.globs()
	var out []string
	for _, list := range [][]*glob{st.include, st.exclude} {
		for _, g := range list {
			if g.matched || (st.flagInclude && g.base == "" && strings.HasPrefix(g.name, "include")) {
				continue
			}
			if (g.base != "" && st.walked) || (g.base == "" && st.walkedRoot) {
				out = append(out, g.name)
			}
		}
	}
	return out
}

// match reports whether g matches the slash-separated relative path p,
// and whether through one of p's folders rather than p itself.
func (g *glob) match(p string) (ok, viaFolder bool) {
	if g.invalid {
		return false, false
	}
	if g.bare {
		elems := strings.Split(p, "/")
		for i, e := range elems {
			if m, _ := doublestar.Match(g.pattern, e); m {
				return true, i < len(elems)-1
			}
		}
		return false, false
	}
	if m, _ := doublestar.Match(g.pattern, p); m {
		return true, false
	}
	for dir := path.Dir(p); dir != "." && dir != "/" && dir != ".."; dir = path.Dir(dir) {
		if m, _ := doublestar.Match(g.pattern, dir); m {
			return true, true
		}
	}
	return false, false
}

// rel is the path g matches a file against: rootRel (relative to the
// config's root, or to the folder walked) for the config's globs, the
// file's path relative to g's folder for the flags'.
func (g *glob) rel(rootRel, abs string) string {
	if g.base == "" || abs == "" {
		return rootRel
	}
	r, err := filepath.Rel(g.base, abs)
	if err != nil {
		return rootRel
	}
	return filepath.ToSlash(r)
}

// wantsFile reports whether a file of a walked folder is checked: rootRel
// is its path relative to the config's root (or the folder walked), abs
// its absolute path ("" when unknown: the flags' globs then match rootRel).
func (c *Config) wantsFile(rootRel, abs string) bool {
	st := c.globs()
	yaml := isYAMLName(rootRel)
	include := st.include
	if st.flagInclude {
		include = nil
		for _, g := range st.include {
			if g.base != "" {
				include = append(include, g)
			}
		}
	}
	if len(include) == 0 {
		if !yaml {
			return false
		}
	} else {
		in := false
		for _, g := range include {
			ok, viaFolder := g.match(g.rel(rootRel, abs))
			if ok && (!viaFolder || yaml) {
				g.matched, in = true, true
			}
		}
		if !in {
			return false
		}
	}
	out := false
	for _, g := range st.exclude {
		if ok, _ := g.match(g.rel(rootRel, abs)); ok {
			g.matched, out = true, true
		}
	}
	return !out
}

func isYAMLName(p string) bool {
	ext := path.Ext(p)
	return ext == ".yaml" || ext == ".yml"
}

// NotChangedReason says why a verified fix into file is not applied by a
// run that read file for a render but does not change it: a file that is
// not YAML (a chart's helpers, `_helpers.tpl`) is never among the files a
// run checks and fixes; a YAML file is left out by the config's include or
// exclude.
func NotChangedReason(file string) string {
	if !isYAMLName(file) {
		return file + " is read for the render only: fix changes the YAML files it checks, not a chart's helpers"
	}
	return file + " is not among the files this run changes (the config's include or exclude leaves it out)"
}
