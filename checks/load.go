package checks

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

// Load reads the files to check from paths: files, folders (walked for
// .yaml and .yml files, skipping hidden folders such as .git) or "-" for
// standard input. Paths found by walking a folder are filtered by the
// config's include and exclude globs, matched against the path relative to
// the config's root (SetRoot) when the folder is under it, else relative to
// that folder. Files named on the command line are always read.
func Load(paths []string, cfg *Config, stdin io.Reader) ([]Input, error) {
	inputs, err := List(paths, cfg, stdin)
	if err != nil {
		return nil, err
	}
	for i := range inputs {
		if inputs[i].Data == nil && inputs[i].Read != nil {
			if inputs[i].Data, err = inputs[i].Read(nil); err != nil {
				return nil, err
			}
			inputs[i].Read, inputs[i].ReadAt = nil, nil
		}
	}
	return inputs, nil
}

// List is Load without reading the files yet: each file Input reads its
// content when it is parsed (standard input is read at once), so a run
// over many files never holds all their text at the same time. A file
// larger than the config's size limit is read only up to the limit (plus
// one byte, so the parser reports it as too large).
func List(paths []string, cfg *Config, stdin io.Reader) ([]Input, error) {
	if cfg == nil {
		cfg = DefaultConfig(nil) // every YAML file, the default limits
	}
	limit := int64(cfg.ParseLimits().MaxFileBytes) + 1
	var cwd string
	var cwdErr error
	getwd := func() (string, error) {
		if cwd == "" && cwdErr == nil {
			cwd, cwdErr = os.Getwd()
		}
		return cwd, cwdErr
	}
	lazy := func(file string) Input {
		return Input{Path: runPathFrom(file, getwd), Read: func(buf []byte) ([]byte, error) { return readFileLimited(file, limit, buf) },
			ReadAt: func(off, n int) ([]byte, error) { return readFileAt(file, off, n) }}
	}
	var out []Input
	seen := map[string]bool{} // a file named and also in a folder named, or named twice, is read once
	add := func(in Input) {
		if !seen[in.Path] {
			seen[in.Path] = true
			out = append(out, in)
		}
	}
	for _, p := range paths {
		if p == "-" {
			data, err := readLimited(stdin, cfg)
			if err != nil {
				return nil, fmt.Errorf("reading standard input: %w", err)
			}
			out = append(out, Input{Path: "<stdin>", Data: data})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			add(lazy(p))
			continue
		}
		prefix, underRoot := cfg.rootPrefix(p)
		globs := cfg.keepGlobs()
		globs.walked = true
		if underRoot && prefix == "" {
			globs.walkedRoot = true
		}
		absDir, _ := filepath.Abs(p)
		err = filepath.WalkDir(p, func(file string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if file != p && strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if name == ConfigFileName {
				return nil // prodready's own config, not a manifest
			}
			relP, _ := filepath.Rel(p, file)
			rel := filepath.ToSlash(relP)
			if underRoot {
				rel = path.Join(prefix, rel)
			}
			abs := ""
			if absDir != "" {
				abs = filepath.Join(absDir, relP)
			}
			if !cfg.wantsFile(rel, abs) {
				return nil
			}
			if !d.Type().IsRegular() {
				// Not followed, not read: said, so that it is not a pass.
				at := runPathFrom(file, getwd)
				add(Input{Path: at, Parsed: &manifest.File{Path: at, Skipped: notRegular(d.Type())}})
				return nil
			}
			add(lazy(file))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	crds, err := crdInputs(cfg, lazy)
	if err != nil {
		return nil, err
	}
	return append(out, crds...), nil
}

// notRegular says why a file a folder holds that is not a regular file
// (its type t) is not checked. A symbolic link is not followed: what it
// links to is checked at its own path when it is among the files given
// (a link in a chart's or overlay's folder is read by the render when it
// leads to a file inside the folders checked).
func notRegular(t fs.FileMode) string {
	if t&fs.ModeSymlink != 0 {
		return "a symbolic link: links are not followed in a folder (name the file it links to, or the link itself, to check it)"
	}
	return "not a regular file (a pipe, socket or device), so it is not read"
}

// crdInputs lists the files of the config's crds (relative to its root,
// else the current folder) as context inputs: read, never checked, named
// by their path from the root. A name that does not exist is an error that
// names it.
func crdInputs(cfg *Config, read func(string) Input) ([]Input, error) {
	var out []Input
	lazy := func(file string) Input {
		in := read(file)
		if rel, err := filepath.Rel(cfg.root, file); cfg.root != "" && err == nil {
			in.Path = filepath.ToSlash(rel)
		}
		return in
	}
	for _, c := range cfg.CRDs {
		p := filepath.FromSlash(c)
		if !filepath.IsAbs(p) && cfg.root != "" {
			p = filepath.Join(cfg.root, p)
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("crds: %q: %w", c, err)
		}
		if !info.IsDir() {
			in := lazy(p)
			in.Context = true
			out = append(out, in)
			continue
		}
		err = filepath.WalkDir(p, func(file string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && file != p && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case !d.Type().IsRegular() || !strings.HasSuffix(file, ".yaml") && !strings.HasSuffix(file, ".yml"):
				return nil
			}
			in := lazy(file)
			in.Context = true
			out = append(out, in)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("crds: %q: %w", c, err)
		}
	}
	return out, nil
}

// readFileAt reads n bytes of a file from off.
func readFileAt(file string, off, n int) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, int64(off)); err != nil {
		return nil, err
	}
	return b, nil
}

// readFileLimited reads at most limit bytes of a file, into buf when it
// has room for the file's size, else into a new buffer of that size (no
// growing and copying).
func readFileLimited(file string, limit int64, buf []byte) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := limit
	if info, err := f.Stat(); err == nil && info.Size() < limit {
		size = info.Size()
	}
	if int64(cap(buf)) >= size {
		buf = buf[:size]
	} else {
		buf = make([]byte, size)
	}
	n, err := io.ReadFull(f, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF: // shrank since Stat
		return buf[:n], nil
	case err != nil:
		return nil, err
	case size < limit: // grew since Stat: read the rest, up to the limit
		rest, err := io.ReadAll(io.LimitReader(f, limit-size))
		return append(buf, rest...), err
	}
	return buf, nil
}

// readLimited reads at most the size limit plus one byte, so an endless
// stream cannot exhaust memory; the parser then reports the file as too large.
func readLimited(r io.Reader, cfg *Config) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no standard input")
	}
	return io.ReadAll(io.LimitReader(r, int64(cfg.ParseLimits().MaxFileBytes)+1))
}

// rootPrefix returns folder dir as a slash-separated path relative to the
// config's root (SetRoot), "" for the root itself, and whether dir is
// under the root at all (never when no root is set).
func (c *Config) rootPrefix(dir string) (string, bool) {
	if c.root == "" {
		return "", false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(c.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// Wants reports whether the config checks a slash-separated path relative
// to the repository root (include and exclude globs, .yaml/.yml by
// default; see glob.go).
func (c *Config) Wants(rel string) bool { return c.wantsFile(rel, "") }

// CRDFile reports whether a slash-separated path relative to the
// repository root is a file of the config's crds, as Load reads them: a
// file crds names, or a .yaml or .yml file under a folder it names, not
// under a hidden folder. For a caller that lists a repository's paths
// instead of walking a folder (the bot).
func (c *Config) CRDFile(rel string) bool {
	rel = path.Clean(rel)
	for _, name := range c.CRDs {
		dir := path.Clean(filepath.ToSlash(name))
		if rel == dir {
			return true
		}
		under, ok := strings.CutPrefix(rel, dir+"/")
		if dir == "." {
			under, ok = rel, true
		}
		if !ok || !strings.HasSuffix(under, ".yaml") && !strings.HasSuffix(under, ".yml") {
			continue
		}
		hidden := false
		for _, part := range strings.Split(path.Dir(under), "/") {
			hidden = hidden || strings.HasPrefix(part, ".") && part != "."
		}
		if !hidden {
			return true
		}
	}
	return false
}

// MatchGlob matches a slash-separated path against a glob in which "**"
// stands for any number of folders (zero included) and the other elements
// follow path.Match. A glob without a slash matches the file name anywhere.
// (The config's include and exclude match as glob.go says.)
func MatchGlob(glob, p string) bool {
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(p))
		return ok
	}
	return matchParts(strings.Split(glob, "/"), strings.Split(p, "/"))
}

func matchParts(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchParts(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}
