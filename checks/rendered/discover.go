package rendered

import (
	"path"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Roots are the renderable things of a repository.
type Roots struct {
	// Charts are chart folders ("" for a chart at the repository root),
	// sorted. Charts vendored in another chart's charts/ folder are left out:
	// they render as part of that chart.
	Charts []string
	// Kustomizations are kustomization files that no other kustomization of
	// the set references through resources, bases or components, sorted.
	Kustomizations []string
	// Components are the files of the kustomize Components that no
	// kustomization of the set names, sorted: a Component is built only as
	// part of an overlay that names it, so these are not checked.
	Components []string
}

// KustomizationNames are the file names kustomize accepts, in its order.
var KustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Discover finds the charts and root kustomizations of a set.
func Discover(files Files) Roots {
	var r Roots
	for p := range files {
		if dir, base := path.Split(p); base == "Chart.yaml" {
			if dir = CleanDir(dir); !vendored(files, dir) {
				r.Charts = append(r.Charts, dir)
			}
		}
	}
	kusts := kustomizationsByDir(files)
	referenced := map[string]bool{}
	for dir, file := range kusts {
		for _, ref := range kustomizationRefs(files[file]) {
			if target, ok := JoinWithin(dir, ref); ok {
				if _, isKust := kusts[target]; isKust {
					referenced[target] = true
				}
			}
		}
	}
	for dir, file := range kusts {
		// A Component (kind: Component) is built only as part of the
		// kustomizations that name it: on its own its patches have no
		// target, and building it reports errors no install would meet.
		switch {
		case referenced[dir]:
		case isComponent(files[file]):
			r.Components = append(r.Components, file)
		default:
			r.Kustomizations = append(r.Kustomizations, file)
		}
	}
	sort.Strings(r.Charts)
	sort.Strings(r.Kustomizations)
	sort.Strings(r.Components)
	return r
}

// Under returns the roots that lie in one of dirs (all of them when dirs
// is empty): a chart whose folder is, or is under, one of dirs, and a
// kustomization or component file under one of dirs.
func (r Roots) Under(dirs []string) Roots {
	if len(dirs) == 0 {
		return r
	}
	in := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if inAnyFolder(dirs, p) {
				out = append(out, p)
			}
		}
		return out
	}
	return Roots{Charts: in(r.Charts), Kustomizations: in(r.Kustomizations), Components: in(r.Components)}
}

// DiscoverUnder returns Discover(files).Under(dirs), and with it the
// kustomization of each of dirs itself when no kustomization under dirs
// builds on it but one outside them does: a folder named is rendered as
// the overlay it is (`check overlays/staging`, where overlays/prod, not
// named, builds on staging), where Discover alone takes it for a base
// and renders nothing. A Component named so is among Components: it is
// not built alone.
func DiscoverUnder(files Files, dirs []string) Roots {
	r := Discover(files).Under(dirs)
	if len(dirs) == 0 {
		return r
	}
	kusts := kustomizationsByDir(files)
	// builtOn are the folders a kustomization under dirs names, its own
	// aside.
	builtOn := map[string]bool{}
	for dir, k := range kusts {
		if !inAnyFolder(dirs, k) {
			continue
		}
		for _, ref := range kustomizationRefs(files[k]) {
			if target, ok := JoinWithin(dir, ref); ok && target != dir {
				builtOn[target] = true
			}
		}
	}
	for _, d := range dirs {
		d = CleanDir(d)
		k, ok := kusts[d]
		if !ok || slices.Contains(r.Kustomizations, k) || slices.Contains(r.Components, k) || builtOn[d] {
			continue
		}
		if isComponent(files[k]) {
			r.Components = append(r.Components, k)
		} else {
			r.Kustomizations = append(r.Kustomizations, k)
		}
	}
	sort.Strings(r.Kustomizations)
	sort.Strings(r.Components)
	r.Kustomizations, r.Components = slices.Compact(r.Kustomizations), slices.Compact(r.Components)
	return r
}

// kustomizationsByDir returns the kustomization file of each folder of
// files that holds one, by folder: the one kustomize reads when a folder
// holds more.
func kustomizationsByDir(files Files) map[string]string {
	kusts := map[string]string{}
	for p := range files {
		dir, base := path.Split(p)
		dir = CleanDir(dir)
		if IsKustomizationName(base) {
			if prev, ok := kusts[dir]; !ok || kustRank(base) < kustRank(path.Base(prev)) {
				kusts[dir] = p
			}
		}
	}
	return kusts
}

// inAnyFolder reports whether path p is, or is under, one of dirs.
func inAnyFolder(dirs []string, p string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return inFolder(CleanDir(d), p) })
}

// IsKustomizationName reports whether a file name is one kustomize reads
// as a kustomization.
func IsKustomizationName(base string) bool { return kustRank(base) >= 0 }

func kustRank(base string) int {
	for i, n := range KustomizationNames {
		if base == n {
			return i
		}
	}
	return -1
}

// vendored reports whether a chart folder sits inside another chart's charts/.
func vendored(files Files, dir string) bool {
	parts := strings.Split(dir, "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] != "charts" {
			continue
		}
		parent := strings.Join(parts[:i], "/")
		if _, ok := files[path.Join(parent, "Chart.yaml")]; ok {
			return true
		}
	}
	return false
}

// ReachesOutside reports whether a kustomization among files names a
// resource, base or component outside the folder files were read from
// (an overlay whose base is ../../base): the only entries that may leave a
// kustomization's folder under kustomize's default load restrictions.
func ReachesOutside(files Files) bool {
	for p, data := range files {
		if !IsKustomizationName(path.Base(p)) {
			continue
		}
		dir := CleanDir(path.Dir(p))
		for _, ref := range kustomizationRefs(data) {
			if _, ok := JoinWithin(dir, ref); !ok {
				return true
			}
		}
	}
	return false
}

// isComponent reports whether a kustomization file is a kustomize
// Component (apiVersion kustomize.config.k8s.io/v1alpha1, kind Component).
func isComponent(data []byte) bool {
	var k struct {
		Kind string `yaml:"kind"`
	}
	return yaml.Unmarshal(data, &k) == nil && k.Kind == "Component"
}

// kustomizationRefs returns the resources, bases and components entries of a
// kustomization file; it ignores files it cannot parse.
func kustomizationRefs(data []byte) []string {
	var k struct {
		Resources  []string `yaml:"resources"`
		Bases      []string `yaml:"bases"`
		Components []string `yaml:"components"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil
	}
	return append(append(k.Resources, k.Bases...), k.Components...)
}
