package rendered

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks"
)

// Files is a repository held in memory: slash-separated paths relative to the
// repository root, mapped to file contents. A set listed from disk with
// ListDir maps the files it has not read to nil: their contents are read
// on use with the [Reader] ListDir returns (Files.Read), so that a run
// holds a chart's files while its renders read them, not every file of
// the folder for the whole run.
type Files map[string][]byte

// Reader reads the contents of a file that a set lists with none (nil),
// by its path in the set.
type Reader func(p string) ([]byte, error)

// Read returns the contents of file p: the bytes the set holds, else, when
// the set lists p with none and read is not nil, what read reads (not kept
// in the set). ok is false when the set does not list p or read fails, and
// err then says why the read failed: a file listed and then changed into
// something else, or removed.
func (f Files) Read(p string, read Reader) (data []byte, ok bool, err error) {
	data, ok = f[p]
	if !ok || data != nil || read == nil {
		return data, ok, nil
	}
	data, err = read(p)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// Filled returns the set with the contents of every file it lists without
// them read with read: f itself when there are none (or read is nil), else
// a new set. The first read that fails is the error.
func (f Files) Filled(read Reader) (Files, error) {
	if read == nil {
		return f, nil
	}
	var out Files
	for p, data := range f {
		if data != nil {
			continue
		}
		if out == nil {
			out = make(Files, len(f))
			for q, d := range f {
				out[q] = d
			}
		}
		d, err := read(p)
		if err != nil {
			return nil, err
		}
		out[p] = d
	}
	if out == nil {
		return f, nil
	}
	return out, nil
}

// ReadDir builds a [Files] set from the directory root. Regular files are read;
// a symbolic link is followed only when its target stays inside root (a link
// leading outside is refused with an error, as is one that cannot be resolved).
// The .git directory is skipped.
func ReadDir(root string) (Files, error) {
	files, _, err := walkDir(root, func(string) bool { return true })
	return files, err
}

// ListDir lists the directory root as ReadDir reads it, but reads only the
// files that say what is rendered (Chart.yaml and kustomizations): the
// others are listed with no contents, read on use with the Reader it
// returns. It reads the file the walk found (a link's target), and fails
// for one that is gone or is no longer a regular file (a link put in its
// place since, which could lead outside root).
func ListDir(root string) (Files, Reader, error) {
	files, targets, err := walkDir(root, func(rel string) bool {
		base := path.Base(rel)
		return base == "Chart.yaml" || IsKustomizationName(base)
	})
	if err != nil {
		return nil, nil, err
	}
	read := func(p string) ([]byte, error) {
		target, ok := targets[p]
		if !ok {
			return nil, fmt.Errorf("reading %s: not among the files listed", p)
		}
		fi, err := os.Lstat(target)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("reading %s: no longer a regular file", p)
		}
		data, err := os.ReadFile(target)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		return data, nil
	}
	return files, read, nil
}

// LoadDir is ReadDir, or with list ListDir: the set, and the Reader of
// the files it lists with no contents (nil when it read them all).
func LoadDir(root string, list bool) (Files, Reader, error) {
	if list {
		return ListDir(root)
	}
	files, err := ReadDir(root)
	return files, nil, err
}

// walkDir walks root as ReadDir describes, reading the files read says to
// read and listing the others with nil contents. targets maps each file's
// path to the file read for it on disk: the real path of a link's target.
func walkDir(root string, read func(rel string) bool) (files Files, targets map[string]string, err error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", root, err)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", root, err)
	}
	files = Files{}
	targets = map[string]string{}
	err = filepath.WalkDir(realRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(realRoot, p)
		if err != nil {
			return err
		}
		target := p
		if d.Type()&fs.ModeSymlink != 0 {
			target, err = filepath.EvalSymlinks(p)
			if err != nil {
				return fmt.Errorf("resolving symlink %s: %w", rel, err)
			}
			if !within(realRoot, target) {
				return fmt.Errorf("symlink %s leads outside %s", filepath.ToSlash(rel), root)
			}
			fi, err := os.Stat(target)
			if err != nil {
				return fmt.Errorf("resolving symlink %s: %w", rel, err)
			}
			if fi.IsDir() {
				return nil // directories behind links are reached through their real path
			}
			if !fi.Mode().IsRegular() {
				return nil // a pipe or a device behind a link is not read, as one not behind a link (a pipe would never end)
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		slash := filepath.ToSlash(rel)
		targets[slash] = target
		if !read(slash) {
			files[slash] = nil
			return nil
		}
		data, err := os.ReadFile(target)
		if err != nil {
			return fmt.Errorf("reading %s: %w", rel, err)
		}
		files[slash] = data
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", root, err)
	}
	return files, targets, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Under returns the paths of the set inside dir (relative to the repository
// root, sorted). dir "" or "." means the whole set.
func (f Files) Under(dir string) []string {
	dir = CleanDir(dir)
	prefix := dir + "/"
	var out []string
	for p := range f {
		if dir == "" || strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// cleanDir normalises a folder path: "" for the root, no trailing slash.
// CleanDir cleans a slash folder path relative to the repository root:
// "" for the root itself.
func CleanDir(dir string) string {
	dir = path.Clean(dir)
	if dir == "." || dir == "/" {
		return ""
	}
	return strings.TrimPrefix(dir, "/")
}

// JoinWithin joins a folder and a relative path and reports whether the result stays
// inside the repository.
func JoinWithin(dir, rel string) (string, bool) {
	p := path.Clean(path.Join(dir, rel))
	if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	if p == "." {
		return "", true
	}
	return p, true
}

// joinDir is the path, spelled as the run's inputs spell it
// (checks.RunPath), of p (a path of a folder's files) in the folder read
// as dir. A folder read as the repository around the one named (dir
// "../..": `check .` run inside bitnami/redis, widened to reach the common
// chart beside it) names the files inside the current folder as the inputs
// do: "values.yaml", not "../../bitnami/redis/values.yaml".
func joinDir(dir, p string) string {
	return checks.RunPath(path.Join(dir, p))
}
