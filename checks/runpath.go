package checks

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// RunPath is how a run spells the file or folder p: slash-separated and
// clean and, when p climbs out of the current folder and comes back into
// it ("../../overlay/patches/p.yaml" run inside overlay/patches), from
// the current folder ("p.yaml"). Every path of a run is spelled this way,
// the files it reads and the files its renders name, so that one file has
// one name however it was reached.
func RunPath(p string) string {
	return runPathFrom(p, nil)
}

// runPathFrom is RunPath with the current folder asked of getwd once for
// many paths (nil: os.Getwd for this one).
func runPathFrom(p string, getwd func() (string, error)) string {
	j := path.Clean(filepath.ToSlash(p))
	if j != ".." && !strings.HasPrefix(j, "../") {
		return j
	}
	if getwd == nil {
		getwd = os.Getwd
	}
	cwd, err := getwd()
	if err != nil {
		return j
	}
	rel, err := filepath.Rel(cwd, filepath.Join(cwd, filepath.FromSlash(j)))
	if err != nil {
		return j
	}
	return filepath.ToSlash(rel)
}
