package checks

import (
	"path"
	"strings"
)

// NamesValues reports whether the config's helmValues names the file at p
// (as the run spells it, with the folder the check was started on as a
// prefix, say): a values file the rules that read chart values check,
// though it holds no Kubernetes object.
func (c *Config) NamesValues(p string) bool {
	for _, hv := range c.HelmValues {
		if hv.Path != "" && MatchValuesPath(hv.Path, p) {
			return true
		}
	}
	return false
}

// MatchValuesPath reports whether a helmValues path (relative to the
// repository root, globs allowed) names file, which may carry a prefix
// (the folder the check was started on).
func MatchValuesPath(pattern, file string) bool {
	pattern = strings.TrimPrefix(path.Clean(pattern), "./")
	parts := strings.Split(file, "/")
	for i := range parts {
		suffix := strings.Join(parts[i:], "/")
		if suffix == pattern || MatchGlob(pattern, suffix) {
			return true
		}
	}
	return false
}
