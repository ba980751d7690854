package rendered

import (
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ChartIndex maps a chart name to the folders of a set holding a chart of
// that name (Discover's charts: not those vendored under another chart's
// charts/), sorted. It is how a dependency that charts/ does not hold is
// found in the repository: the renderer, check's choice of what to read
// and the bot's choice of what to load all resolve through it.
type ChartIndex map[string][]string

// IndexCharts indexes the charts of files by the name their Chart.yaml
// gives.
func IndexCharts(files Files) ChartIndex {
	ix := ChartIndex{}
	for _, dir := range Discover(files).Charts {
		if md := readChartDeps(files[path.Join(dir, "Chart.yaml")]); md.Name != "" {
			ix[md.Name] = append(ix[md.Name], dir)
		}
	}
	return ix
}

// Candidates returns the folders a dependency of the chart in dir may be
// loaded from when its charts/ folder does not hold it, in the order they
// are tried: for a file:// repository, the folder it names (when inside
// the set); for any other repository (a chart repository, an OCI
// registry, none), every chart of the dependency's name in the set (a
// library chart such as bitnami's common kept beside the charts that use
// it).
func (ix ChartIndex) Candidates(dir, name, repository string) []string {
	if rel, ok := strings.CutPrefix(repository, "file://"); ok {
		if target, ok := JoinWithin(dir, rel); ok {
			return []string{target}
		}
		return nil
	}
	return ix[name]
}

// ChartDeps returns the folders outside dir that the chart in dir may load
// dependencies from, as the renderer resolves them (Candidates of each
// dependency, then theirs), sorted. A dependency that the chart's charts/
// folder holds is still followed through Candidates: the list can hold a
// folder the render does not read, never miss one it does.
func ChartDeps(files Files, ix ChartIndex, dir string) []string {
	seen := map[string]bool{dir: true}
	queue := []string{dir}
	var out []string
	for len(queue) > 0 && len(seen) <= MaxReach {
		cur := queue[0]
		queue = queue[1:]
		for _, dep := range readChartDeps(files[path.Join(cur, "Chart.yaml")]).Dependencies {
			for _, cand := range ix.Candidates(cur, dep.Name, dep.Repository) {
				if seen[cand] || inFolder(dir, cand) {
					continue
				}
				if _, ok := files[path.Join(cand, "Chart.yaml")]; !ok {
					continue
				}
				seen[cand] = true
				out = append(out, cand)
				queue = append(queue, cand)
			}
		}
	}
	sort.Strings(out)
	return out
}

// inFolder reports whether folder p lies in folder dir ("" is the root).
func inFolder(dir, p string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// chartDeps is what ChartDeps reads of a Chart.yaml.
type chartDeps struct {
	Name         string `yaml:"name"`
	Dependencies []struct {
		Name       string `yaml:"name"`
		Repository string `yaml:"repository"`
	} `yaml:"dependencies"`
}

func readChartDeps(data []byte) chartDeps {
	var md chartDeps
	if len(data) > 0 {
		_ = yaml.Unmarshal(data, &md) // an unreadable Chart.yaml names no dependency; its render says why
	}
	return md
}

// ChartsReachOutside reports whether a chart among files has a dependency
// that neither its charts/ folder nor a chart among files can provide: a
// file:// path leading out of the set, or a name no chart of the set has
// (bitnami/redis's common, read alone, lies beside it). The repository
// around files may hold it.
func ChartsReachOutside(files Files) bool {
	ix := IndexCharts(files)
	for _, dir := range Discover(files).Charts {
		for _, dep := range readChartDeps(files[path.Join(dir, "Chart.yaml")]).Dependencies {
			if rel, ok := strings.CutPrefix(dep.Repository, "file://"); ok {
				if _, ok := JoinWithin(dir, rel); !ok {
					return true
				}
				continue
			}
			if len(ix[dep.Name]) == 0 && !vendors(files, dir, dep.Name) {
				return true
			}
		}
	}
	return false
}

// vendors reports whether the charts/ folder of the chart in dir holds
// something that may be the chart name (a folder or archive named for it).
func vendors(files Files, dir, name string) bool {
	prefix := path.Join(dir, "charts", name)
	for _, p := range files.Under(path.Join(dir, "charts")) {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
