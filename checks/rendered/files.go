package rendered

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Files is a repository held in memory: slash-separated paths relative to the
// repository root, mapped to file contents.
type Files map[string][]byte

// ReadDir builds a [Files] set from the directory root. Regular files are read;
// a symbolic link is followed only when its target stays inside root (a link
// leading outside is refused with an error, as is one that cannot be resolved).
// The .git directory is skipped.
func ReadDir(root string) (Files, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	files := Files{}
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
		} else if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(target)
		if err != nil {
			return fmt.Errorf("reading %s: %w", rel, err)
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	return files, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Under returns the paths of the set inside dir (relative to the repository
// root, sorted). dir "" or "." means the whole set.
func (f Files) Under(dir string) []string {
	dir = CleanDir(dir)
	var out []string
	for p := range f {
		if dir == "" || strings.HasPrefix(p, dir+"/") {
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

// joinDir is the path, spelled as the run's inputs spell it, of p (a path
// of a folder's files) in the folder read as dir. A folder read as the
// repository around the one named (dir "../..": `check .` run inside
// bitnami/redis, widened to reach the common chart beside it) names the
// files inside the current folder as the inputs do: "values.yaml", not
// "../../bitnami/redis/values.yaml".
func joinDir(dir, p string) string {
	j := path.Join(dir, p)
	if j != ".." && !strings.HasPrefix(j, "../") {
		return j
	}
	cwd, err := os.Getwd()
	if err != nil {
		return j
	}
	rel, err := filepath.Rel(cwd, filepath.Join(cwd, filepath.FromSlash(j)))
	if err != nil {
		return j
	}
	return filepath.ToSlash(rel)
}
