// Package kyvernovalues embeds the Kyverno Helm chart's own default
// values.yaml for several chart versions (see README.md for their source and
// licence), so rules can tell which keys a chart version reads and what a
// values file is merged over.
package kyvernovalues

import (
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

//go:embed values/*.yaml
var files embed.FS

// Version is a chart version, e.g. 3.2.9.
type Version struct{ Major, Minor, Patch int }

// String renders the version as "3.2.9".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less reports whether v sorts before w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// ParseVersion reads an exact chart version ("3.2.9", "v3.2.9",
// "3.3.0-rc.1"). Ranges ("~3.2", "3.x", ">=3.0.0"), placeholders ("${VER}")
// and partial versions are not exact and return false.
func ParseVersion(s string) (Version, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Version{}, false
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p == "" {
			return Version{}, false
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, true
}

// Chart is one embedded chart version's default values.
type Chart struct {
	Version Version
	// Root is the mapping node of values.yaml. It is shared: never modify it.
	Root *yaml.Node
}

var (
	loadOnce sync.Once
	charts   []Chart
)

// Charts returns every embedded chart version, oldest first.
func Charts() []Chart {
	loadOnce.Do(func() {
		entries, err := files.ReadDir("values")
		if err != nil {
			return
		}
		for _, e := range entries {
			name := strings.TrimSuffix(strings.TrimPrefix(e.Name(), "chart-"), ".yaml")
			v, ok := ParseVersion(name)
			if !ok {
				continue
			}
			data, err := files.ReadFile("values/" + e.Name())
			if err != nil {
				continue
			}
			var doc yaml.Node
			if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
				continue
			}
			charts = append(charts, Chart{Version: v, Root: doc.Content[0]})
		}
		sort.Slice(charts, func(i, j int) bool { return charts[i].Version.Less(charts[j].Version) })
	})
	return charts
}

// Generation returns the embedded charts of one major version (2 or 3).
func Generation(major int) []Chart {
	var out []Chart
	for _, c := range Charts() {
		if c.Version.Major == major {
			out = append(out, c)
		}
	}
	return out
}

// For returns the embedded charts that stand for version v: the exact one
// when embedded; otherwise the nearest older and nearest newer embedded
// versions of the same major (both, so a key added or removed in between is
// known to one of them); only the newest when v is newer than all of them.
// It returns nil for a major version with no embedded chart.
func For(v Version) []Chart {
	gen := Generation(v.Major)
	if len(gen) == 0 {
		return nil
	}
	var lower, upper *Chart
	for i := range gen {
		c := &gen[i]
		if c.Version == v {
			return []Chart{*c}
		}
		if c.Version.Less(v) {
			lower = c
		} else if upper == nil {
			upper = c
		}
	}
	var out []Chart
	if lower != nil {
		out = append(out, *lower)
	}
	if upper != nil {
		out = append(out, *upper)
	}
	return out
}
