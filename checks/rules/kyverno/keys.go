package kyverno

import (
	"strings"

	"github.com/prodready/prodready/checks"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// haMove is a high-availability key one generation reads and the key the
// other generation reads instead (kyverno-values-mixed-generation).
type haMove struct{ v2, v3 []string }

// haMoves lists the admission controller's HA keys in both generations.
var haMoves = []haMove{
	{[]string{"replicaCount"}, []string{"admissionController", "replicas"}},
	{[]string{"podDisruptionBudget"}, []string{"admissionController", "podDisruptionBudget"}},
	{[]string{"topologySpreadConstraints"}, []string{"admissionController", "topologySpreadConstraints"}},
	{[]string{"antiAffinity", "enable"}, []string{"admissionController", "antiAffinity", "enabled"}},
	{[]string{"podAntiAffinity"}, []string{"admissionController", "podAntiAffinity"}},
	{[]string{"resources"}, []string{"admissionController", "container", "resources"}},
}

// freeForm are keys whose maps hold user content or Kubernetes objects
// passed through as they are: never judged key by key.
var freeForm = map[string]bool{
	"extraArgs": true, "nodeSelector": true, "imagePullSecrets": true, "lifecycle": true,
	"additionalLabels": true, "additionalAnnotations": true, "annotations": true, "labels": true,
	"podLabels": true, "podAnnotations": true, "customLabels": true, "securityContext": true,
	"podSecurityContext": true, "resources": true, "podResources": true, "initResources": true,
	"testResources": true, "startupProbe": true, "livenessProbe": true, "readinessProbe": true,
	"updateStrategy": true, "podAntiAffinity": true, "podAffinity": true, "nodeAffinity": true,
	"affinity": true, "tolerations": true, "topologySpreadConstraints": true, "dnsConfig": true,
	"sigstoreVolume": true, "volume": true, "priorityLevelConfigurationSpec": true,
	"webhooks": true, "webhookAnnotations": true, "webhookLabels": true, "matchConditions": true,
	"metricsExposure": true, "tlsConfig": true, "behavior": true, "envVars": true,
	"envVarsInit": true, "extraEnvVars": true, "extraResources": true, "matchLabels": true,
	"featuresOverride": true, "testSecurityContext": true, "emptyDir": true,
	// features.reporting: upstream's own e2e values set reporting.allowedResults,
	// which the features helper reads though values.yaml does not list it.
	"reporting": true,
}

// subcharts are top-level keys whose values go to a subchart (or, for
// global, to every subchart): the parent's values.yaml does not list all
// the keys they read.
var subcharts = map[string]bool{
	"global": true, "crds": true, "grafana": true, "openreports": true,
	"reports-server": true, "kyverno-api": true,
}

// rename is a key the chart does not read and the one it reads instead.
type rename struct {
	to []string
	// noFix: the value's shape differs (a list of flags vs a map), so the
	// message explains instead of moving it.
	noFix bool
	note  string
}

// kyv2to3 moves 2.x top-level keys (other than the HA ones) to 3.x keys.
var kyv2to3 = map[string][]string{
	"image":                            {"admissionController", "container", "image"},
	"initImage":                        {"admissionController", "initContainer", "image"},
	"initResources":                    {"admissionController", "initContainer", "resources"},
	"securityContext":                  {"admissionController", "container", "securityContext"},
	"podLabels":                        {"admissionController", "podLabels"},
	"podAnnotations":                   {"admissionController", "podAnnotations"},
	"podSecurityContext":               {"admissionController", "podSecurityContext"},
	"priorityClassName":                {"admissionController", "priorityClassName"},
	"podAffinity":                      {"admissionController", "podAffinity"},
	"nodeAffinity":                     {"admissionController", "nodeAffinity"},
	"nodeSelector":                     {"admissionController", "nodeSelector"},
	"tolerations":                      {"admissionController", "tolerations"},
	"hostNetwork":                      {"admissionController", "hostNetwork"},
	"dnsPolicy":                        {"admissionController", "dnsPolicy"},
	"updateStrategy":                   {"admissionController", "updateStrategy"},
	"startupProbe":                     {"admissionController", "startupProbe"},
	"livenessProbe":                    {"admissionController", "livenessProbe"},
	"readinessProbe":                   {"admissionController", "readinessProbe"},
	"service":                          {"admissionController", "service"},
	"serviceMonitor":                   {"admissionController", "serviceMonitor"},
	"networkPolicy":                    {"admissionController", "networkPolicy"},
	"extraInitContainers":              {"admissionController", "extraInitContainers"},
	"extraContainers":                  {"admissionController", "extraContainers"},
	"createSelfSignedCert":             {"admissionController", "createSelfSignedCert"},
	"installCRDs":                      {"crds", "install"},
	"namespace":                        {"namespaceOverride"},
	"testImage":                        {"test", "image"},
	"testResources":                    {"test", "resources"},
	"testSecurityContext":              {"test", "securityContext"},
	"tufRootMountPath":                 {"admissionController", "tufRootMountPath"},
	"sigstoreVolume":                   {"admissionController", "sigstoreVolume"},
	"rbac":                             {"admissionController", "rbac"},
	"excludeKyvernoNamespace":          {"config", "excludeKyvernoNamespace"},
	"resourceFiltersExcludeNamespaces": {"config", "resourceFiltersExcludeNamespaces"},
	"generatecontrollerExtraResources": {"admissionController", "rbac", "clusterRole", "extraResources"},
}

// kyv2to3Nested are 2.x keys below the top level that 3.x renamed (the
// chart's v3 migration notes).
var kyv2to3Nested = map[string][]string{
	"config.metricsConfig":    {"metricsConfig"},
	"config.excludeUsername":  {"config", "excludeUsernames"},
	"config.excludeGroupRole": {"config", "excludeGroups"},
	"image.pullSecrets":       {"admissionController", "imagePullSecrets"},
}

// renameFor returns the curated rename for a values path in a chart of
// generation gen (0: unknown, only generation-free renames apply).
func renameFor(gen int, path []string) (rename, bool) {
	n := len(path)
	last := path[n-1]
	switch {
	case n == 2 && path[0] == "webhook" && path[1] == "timeoutSeconds":
		switch gen {
		case 3:
			return rename{to: []string{"admissionController", "container", "extraArgs", "webhookTimeout"}}, true
		case 2:
			return rename{to: []string{"extraArgs"}, noFix: true, note: "add --webhookTimeout=N to the extraArgs list (keep the chart's default flags: a values list replaces the default one)"}, true
		}
	case last == "enabled" && n >= 2 && path[n-2] == "metricsService":
		if gen == 3 && n == 2 {
			return rename{to: []string{"admissionController", "metricsService", "create"}}, true
		}
		if gen != 0 {
			return rename{to: append(append([]string{}, path[:n-1]...), "create")}, true
		}
	case n == 2 && path[0] == "metricsService" && gen == 3:
		return rename{to: []string{"admissionController", "metricsService", last}}, true
	case n == 2 && path[0] == "webhooksCleanup" && last == "enable" && gen == 3:
		return rename{to: []string{"webhooksCleanup", "enabled"}}, true
	case n == 2 && path[0] == "webhooksCleanup" && last == "enabled" && gen == 2:
		return rename{to: []string{"webhooksCleanup", "enable"}}, true
	case n == 2 && path[0] == "admissionController" && last == "extraArgs" && gen == 3:
		return rename{to: []string{"admissionController", "container", "extraArgs"}}, true
	case n == 3 && path[1] == "antiAffinity" && last == "enable" && gen == 3:
		return rename{to: []string{path[0], "antiAffinity", "enabled"}}, true
	case n == 1 && gen == 3:
		if path[0] == "extraArgs" {
			return rename{to: []string{"admissionController", "container", "extraArgs"}, noFix: true, note: "3.x takes a map of flag names to values (webhookTimeout: 15), not a list of --flags"}, true
		}
		if path[0] == "envVarsInit" {
			return rename{to: []string{"admissionController", "initContainer", "extraEnvVars"}, noFix: true, note: "3.x takes a list of EnvVar objects"}, true
		}
		if path[0] == "initContainer" {
			return rename{to: []string{"admissionController", "initContainer", "extraArgs"}, noFix: true, note: "3.x takes a map of flag names to values, not a list of --flags"}, true
		}
		if path[0] == "envVars" {
			return rename{to: []string{"admissionController", "container", "extraEnvVars"}, noFix: true, note: "3.x takes a list of EnvVar objects"}, true
		}
		if to, ok := kyv2to3[path[0]]; ok {
			return rename{to: to}, true
		}
	case n == 2 && gen == 3 && kyv2to3Nested[path[0]+"."+path[1]] != nil:
		return rename{to: kyv2to3Nested[path[0]+"."+path[1]]}, true
	case n == 1 && gen == 2 && path[0] == "admissionController":
		return rename{to: nil, noFix: true, note: "admissionController is a 3.x key; chart 2.x reads top-level keys (replicaCount, resources, podDisruptionBudget, …)"}, true
	}
	return rename{}, false
}

// isHAKeyOfOtherGen reports whether path is an HA key of the other
// generation (reported by kyverno-values-mixed-generation).
func isHAKeyOfOtherGen(gen int, path []string) bool {
	for _, m := range haMoves {
		other := m.v2
		if gen == 2 {
			other = m.v3
		}
		if gen != 0 && pathEqual(other, path) {
			return true
		}
		if gen == 3 && len(path) == 1 && path[0] == "antiAffinity" {
			return true
		}
	}
	return false
}

func pathEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// moveOps moves the value at from to to inside v's document: it deletes
// from (or its parent when from is the parent's only key) and sets to with
// the same value. It returns nil when to is already set.
func moveOps(v *values, from, to []string) []edit.Op {
	n := v.node(from...)
	if n == nil || v.node(to...) != nil {
		return nil
	}
	text := nodeText(n)
	if text == "" {
		return nil
	}
	del := from
	if len(from) > 1 {
		parentPath := from[:len(from)-1]
		under := len(to) > len(parentPath) && pathEqual(to[:len(parentPath)], parentPath)
		if parent := v.node(parentPath...); !under && parent != nil && parent.Kind == yaml.MappingNode && len(parent.Content) == 2 {
			del = from[:len(from)-1]
		}
	}
	return []edit.Op{checks.DeleteOp(v.p(del...)), checks.SetOp(v.p(to...), text)}
}

// nodeText renders a node as YAML text for an edit's Value.
func nodeText(n *yaml.Node) string {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	b, err := yaml.Marshal(&c)
	if err != nil {
		return ""
	}
	s := string(b)
	if n.Kind == yaml.ScalarNode {
		s = strings.TrimRight(s, "\n")
	}
	return s
}

// pathString renders a values path for messages.
func pathString(p []string) string { return manifest.Path(p).String() }
