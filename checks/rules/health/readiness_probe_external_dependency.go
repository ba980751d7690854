package health

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

// dependencySegments are path segments that name a dependency check rather
// than the app's own readiness.
var dependencySegments = map[string]bool{
	"db": true, "database": true, "databases": true, "deep": true, "dependencies": true, "dependency": true, "deps": true,
	"downstream": true, "upstream": true, "external": true,
	"redis": true, "postgres": true, "postgresql": true, "mysql": true, "mariadb": true, "mongo": true, "mongodb": true,
	"kafka": true, "rabbitmq": true, "elasticsearch": true, "cassandra": true, "memcached": true,
}

var readinessProbeExternalDependency = &checks.Rule{
	ID:       "readiness-probe-external-dependency",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://learnk8s.io/production-best-practices#application-development",
	Why:      "a readinessProbe that checks a database or third party takes every pod out of the Service at once when that dependency blips",
	Help:     "Readiness should say whether this pod can serve, not whether its dependencies are up: when a shared dependency fails, all pods turn unready together and the Service has no endpoints. Report dependency health in metrics or a separate endpoint.",
	Check: longRunningPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.Containers() {
			r := c.ReadinessProbe
			if r == nil || r.HTTPGet == nil {
				continue
			}
			if seg, ok := dependencyPath(r.HTTPGet.Path); ok {
				out = append(out, checks.At(obj, c.Path.Child("readinessProbe", "httpGet", "path"),
					fmt.Sprintf("container %q: readinessProbe path %q looks like a dependency check (%q): when that dependency fails, every pod leaves the Service at once", c.Name, r.HTTPGet.Path, seg)))
			}
		}
		return out
	}),
}

// dependencyPath reports whether an HTTP path looks like a dependency
// check: a segment such as db or dependencies, or a deep=true query.
func dependencyPath(p string) (string, bool) {
	path, query, _ := strings.Cut(strings.ToLower(p), "?")
	for _, seg := range strings.Split(path, "/") {
		if dependencySegments[seg] {
			return seg, true
		}
	}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if (k == "deep" || k == "full" || k == "dependencies") && v != "false" && v != "0" {
			return k, true
		}
	}
	return "", false
}
