package rendered

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Needed returns the files of the set that a render of it can read, so that
// a render worker is sent those alone:
//
//   - every file under a chart folder (a folder with a Chart.yaml, and
//     everything beneath it). A chart's file:// dependencies and the charts
//     of the same name that stand in for missing dependencies are chart
//     folders themselves;
//   - every file under a kustomization folder. kustomize builds with its
//     root-only load restrictor, so a kustomization reads below its own
//     folder and other kustomization folders; the files outside it that it
//     names (a resource, patch, generator or configuration file such as
//     ../common/deployment.yaml, which the restrictor then refuses with an
//     error of its own) are kept too: every string of the kustomization
//     that, joined to its folder, names a file of the set, also after a
//     "key=" prefix; of a folder it names that is no kustomization
//     folder, one file, so that the render says the folder holds no
//     kustomization rather than that it is not there;
//   - the values files of opts.ExtraValues.
//
// When opts.Only names the one render asked for, only what that render
// can read is kept: a chart's folder, the folders its dependencies may be
// loaded from (ChartDeps) and its values files; an overlay's
// kustomization folders (Reach) and what their kustomizations name. A
// worker per render of a repository of many charts was otherwise sent
// them all (argo-helm's 17 MB, to each of its 38 workers).
//
// The renders of the result are those of the whole set, or the one asked
// for. Needed returns files itself when it keeps everything.
func Needed(files Files, opts Options) Files {
	roots := map[string]bool{} // chart and kustomization folders
	var kusts []string
	keep := map[string]bool{}
	switch j := opts.Only; {
	case j != nil && j.Kustomization != "":
		dirs, _ := Reach(files, j.Kustomization)
		byDir := kustomizationsByDir(files)
		for _, d := range dirs {
			roots[d] = true
			if k, ok := byDir[d]; ok {
				kusts = append(kusts, k)
			}
		}
	case j != nil:
		dir := CleanDir(j.Chart)
		roots[dir] = true
		for _, d := range ChartDeps(files, IndexCharts(files), dir) {
			roots[d] = true
		}
		for _, vf := range j.Values {
			keep[vf] = true
		}
		for _, set := range opts.ExtraValues[dir] {
			for _, vf := range set {
				keep[vf] = true
			}
		}
	default:
		for p := range files {
			dir, base := path.Split(p)
			switch {
			case base == "Chart.yaml":
				roots[CleanDir(dir)] = true
			case IsKustomizationName(base):
				roots[CleanDir(dir)] = true
				kusts = append(kusts, p)
			}
		}
		for _, sets := range opts.ExtraValues {
			for _, set := range sets {
				for _, vf := range set {
					keep[vf] = true
				}
			}
		}
	}
	if roots[""] {
		return files // a chart or kustomization at the root reads anything
	}
	var first map[string]string // a folder of the set -> the least path under it
	for _, k := range kusts {
		dir := CleanDir(path.Dir(k))
		for _, s := range yamlStrings(files[k]) {
			for _, ref := range []string{s, afterEquals(s)} {
				p, ok := JoinWithin(dir, ref)
				if !ok || ref == "" {
					continue
				}
				if _, ok := files[p]; ok {
					keep[p] = true
					continue
				}
				if first == nil {
					first = firstUnder(files)
				}
				if f, ok := first[p]; ok {
					keep[f] = true
				}
			}
		}
	}
	out := make(Files, len(files))
	for p, data := range files {
		if keep[p] || underRoot(roots, p) {
			out[p] = data
		}
	}
	if len(out) == len(files) {
		return files
	}
	return out
}

// firstUnder maps each folder of files to the least path under it.
func firstUnder(files Files) map[string]string {
	out := map[string]string{}
	for p := range files {
		for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if f, ok := out[dir]; !ok || p < f {
				out[dir] = p
			}
		}
	}
	return out
}

// underRoot reports whether p lies in one of the folders of roots or below.
func underRoot(roots map[string]bool, p string) bool {
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		if dir == "." || dir == "/" {
			return false
		}
		if roots[dir] {
			return true
		}
	}
}

func afterEquals(s string) string {
	if _, rest, ok := strings.Cut(s, "="); ok {
		return rest
	}
	return ""
}

// yamlStrings returns every scalar of a YAML file, keys included; nothing
// for a file that does not parse.
func yamlStrings(data []byte) []string {
	var out []string
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			break
		}
		var rec func(n *yaml.Node)
		rec = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode {
				out = append(out, n.Value)
			}
			for _, c := range n.Content {
				rec(c)
			}
		}
		rec(&n)
	}
	return out
}
