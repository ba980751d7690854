package apicluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var apiserverAlphaFeatures = &checks.Rule{
	ID:       "apiserver-alpha-features",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/#feature-stages",
	Why:      "alpha feature gates are untested in production, may be buggy and change or vanish without notice",
	Help:     "Gate stages come from the versioned feature specs of Kubernetes 1.37 (feature_gates.go), evaluated at the target kubernetesVersion; gates removed before 1.37 are not known. AllAlpha=true always fires.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, fs := range serverFlagSets(obj) {
			f, ok := fs.Flags["feature-gates"]
			if !ok {
				continue
			}
			var alpha []string
			for _, kv := range strings.Split(f.Value, ",") {
				name, value, _ := strings.Cut(strings.TrimSpace(kv), "=")
				if on, err := strconv.ParseBool(strings.TrimSpace(value)); err != nil || !on {
					continue
				}
				if name == "AllAlpha" || gateIsAlpha(name, ctx.Config.TargetMinor()) {
					alpha = append(alpha, name)
				}
			}
			if len(alpha) == 0 {
				continue
			}
			out = append(out, checks.At(obj, f.Path, fmt.Sprintf("%s: --feature-gates enables alpha feature %s at Kubernetes 1.%d; alpha features are off by default for a reason: keep them out of production clusters", fs.Label, strings.Join(alpha, ", "), ctx.Config.TargetMinor())))
		}
		return out
	},
}

// gateIsAlpha reports whether feature gate name is alpha at Kubernetes
// 1.minor (its last stage at or before that version).
func gateIsAlpha(name string, minor int) bool {
	stages, ok := alphaGates[name]
	if !ok {
		return false
	}
	stage := byte(0)
	for _, s := range strings.Fields(stages) {
		v, err := strconv.Atoi(s[:len(s)-1])
		if err != nil || v > minor {
			break
		}
		stage = s[len(s)-1]
	}
	return stage == 'A'
}
