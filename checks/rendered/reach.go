package rendered

import (
	"path"
	"sort"
)

// RenderOf returns the render whose objects are checked as the input at
// inputPath (one of p.Inputs), and false for a plain input. Callers that
// keep only some renders' findings tell them apart with it before Map.
func (p *Prepared) RenderOf(inputPath string) (*Render, bool) {
	if p == nil {
		return nil, false
	}
	pl, ok := p.renders[inputPath]
	if !ok {
		return nil, false
	}
	return pl.render, true
}

// MaxReach bounds the kustomizations [Reach] follows from one root.
const MaxReach = 1000

// Reach returns what the kustomization file k of files builds from,
// without building it: the folders of k and of every kustomization of
// files it reaches through resources, bases and components (k's folder
// first, then sorted), and the paths those entries name that are not such
// a folder (a resource file; a URL or a missing path is returned as it
// joins, and matches nothing). It follows at most MaxReach kustomizations.
// A file whose content changes can change k's build only if it is under
// one of dirs or is one of refs (generator and patch files live in the
// folders of the kustomizations that name them, or are named as refs).
func Reach(files Files, k string) (dirs, refs []string) {
	kusts := kustomizationsByDir(files)
	start := CleanDir(path.Dir(k))
	seen := map[string]bool{start: true}
	refSet := map[string]bool{}
	queue := []string{start}
	for len(queue) > 0 && len(seen) <= MaxReach {
		dir := queue[0]
		queue = queue[1:]
		file, ok := kusts[dir]
		if !ok {
			continue
		}
		for _, ref := range kustomizationRefs(files[file]) {
			target, ok := JoinWithin(dir, ref)
			if !ok {
				continue
			}
			if _, isKust := kusts[target]; isKust {
				if !seen[target] {
					seen[target] = true
					queue = append(queue, target)
				}
				continue
			}
			refSet[target] = true
		}
	}
	for d := range seen {
		if d != start {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	dirs = append([]string{start}, dirs...)
	for r := range refSet {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	return dirs, refs
}
