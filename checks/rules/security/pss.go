package security

import (
	"sort"
	"strings"
	"sync"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	psaapi "k8s.io/pod-security-admission/api"
	psapolicy "k8s.io/pod-security-admission/policy"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// The Pod Security Standards are evaluated with Kubernetes's own Pod
// Security Admission checks (k8s.io/pod-security-admission), so a level
// means here exactly what admission enforces.
var (
	psaOnce      sync.Once
	psaEvaluator psapolicy.Evaluator
)

func evaluator() psapolicy.Evaluator {
	psaOnce.Do(func() {
		e, err := psapolicy.NewEvaluator(psapolicy.DefaultChecks(), nil)
		if err == nil {
			psaEvaluator = e
		}
	})
	return psaEvaluator
}

// pssViolations evaluates a pod template against a level and returns the
// failed checks (nil when it meets the level).
func pssViolations(pt *manifest.PodTemplate, lv psaapi.LevelVersion) []psapolicy.CheckResult {
	e := evaluator()
	if e == nil || lv.Level == psaapi.LevelPrivileged {
		return nil
	}
	var out []psapolicy.CheckResult
	for _, r := range e.EvaluatePod(lv, pt.Meta, pt.Spec) {
		if !r.Allowed {
			out = append(out, r)
		}
	}
	return out
}

// levelVersion reads a namespace's enforce level and version labels.
// ok is false when the namespace enforces nothing (or privileged).
func levelVersion(ctx *checks.Context, labels map[string]string) (psaapi.LevelVersion, bool) {
	level, err := psaapi.ParseLevel(labels[psaapi.EnforceLevelLabel])
	if err != nil || level == psaapi.LevelPrivileged {
		return psaapi.LevelVersion{}, false
	}
	return psaapi.LevelVersion{Level: level, Version: pssVersion(ctx, labels[psaapi.EnforceVersionLabel])}, true
}

// pssVersion is the policy version: the label's, else the target
// Kubernetes version's, else the latest.
func pssVersion(ctx *checks.Context, label string) psaapi.Version {
	if label != "" {
		if v, err := psaapi.ParseVersion(label); err == nil {
			return v
		}
	}
	if m := ctx.Config.TargetMinor(); m > 0 {
		return psaapi.MajorMinorVersion(1, m)
	}
	return psaapi.LatestVersion()
}

// namespaceObjects returns the Namespace objects of the repo named ns.
func namespaceObjects(ctx *checks.Context, ns string) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range ctx.ByKind("Namespace") {
		if _, ok := o.Typed().(*corev1.Namespace); ok && o.Name == ns {
			out = append(out, o)
		}
	}
	return out
}

// strictestLevel returns the strictest level every workload of the
// namespace meets.
func strictestLevel(ctx *checks.Context, ns string) psaapi.Level {
	ws := kube.NamespaceWorkloads(ctx, ns)
	for _, level := range []psaapi.Level{psaapi.LevelRestricted, psaapi.LevelBaseline} {
		lv := psaapi.LevelVersion{Level: level, Version: pssVersion(ctx, "")}
		ok := true
		for _, w := range ws {
			if len(pssViolations(w.PodTemplate(), lv)) > 0 {
				ok = false
				break
			}
		}
		if ok {
			return level
		}
	}
	return psaapi.LevelPrivileged
}

// pssFix gathers the fixes of this family's rules for the failed checks,
// or nil when some failure has no safe fix (a fix must make the pod pass).
func pssFix(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate, failed []psapolicy.CheckResult) []edit.Op {
	var fs []checks.Finding
	needsNonRoot, unprivileged := false, false
	for _, r := range failed {
		switch r.ForbiddenReason {
		case "runAsNonRoot != true", "runAsUser=0":
			needsNonRoot = true
		case "privileged":
			unprivileged = true
		}
	}
	for _, r := range failed {
		switch r.ForbiddenReason {
		case "privileged":
			fs = append(fs, privilegedFindings(ctx, obj, pt)...)
		case "allowPrivilegeEscalation != false":
			fs = append(fs, escalationFindings(ctx, obj, pt, unprivileged)...)
		case "runAsNonRoot != true", "runAsUser=0":
			fs = append(fs, runAsRootFindings(ctx, obj, pt)...)
		case "unrestricted capabilities":
			if addsBeyondNetBind(pt) {
				return nil
			}
			fs = append(fs, capsDropFindings(ctx, obj, pt, needsNonRoot, unprivileged)...)
		case "seccompProfile":
			if explicitSeccompNotDefault(pt) {
				return nil
			}
			fs = append(fs, seccompFindings(ctx, obj, pt)...)
		default:
			return nil
		}
	}
	var ops []edit.Op
	seen := map[string]bool{}
	for _, f := range fs {
		if f.Fix == nil {
			return nil
		}
		for _, op := range f.Fix.Edits {
			k := string(op.Action) + "\x00" + strings.Join(op.Path, "\x00") + "\x00" + op.Value
			if !seen[k] {
				seen[k] = true
				ops = append(ops, op)
			}
		}
	}
	return ops
}

// addsBeyondNetBind reports whether a container adds a capability the
// restricted level forbids (anything but NET_BIND_SERVICE).
func addsBeyondNetBind(pt *manifest.PodTemplate) bool {
	for _, c := range pt.AllContainers() {
		if caps := containerSecurityContext(c).Capabilities; caps != nil {
			for _, a := range caps.Add {
				if capName(a) != "NET_BIND_SERVICE" {
					return true
				}
			}
		}
	}
	return false
}

// explicitSeccompNotDefault reports whether the pod or a container sets a
// seccomp profile other than RuntimeDefault/Localhost (a pod-level fix
// would not override it).
func explicitSeccompNotDefault(pt *manifest.PodTemplate) bool {
	bad := func(p *corev1.SeccompProfile) bool {
		return p != nil && p.Type != corev1.SeccompProfileTypeRuntimeDefault && p.Type != corev1.SeccompProfileTypeLocalhost
	}
	if bad(podSecurityContext(pt).SeccompProfile) {
		return true
	}
	for _, c := range pt.AllContainers() {
		if bad(containerSecurityContext(c).SeccompProfile) {
			return true
		}
	}
	return false
}

// reasons renders failed checks for a message, sorted.
func reasons(failed []psapolicy.CheckResult) string {
	parts := make([]string, 0, len(failed))
	for _, r := range failed {
		s := r.ForbiddenReason
		if r.ForbiddenDetail != "" {
			s += " (" + r.ForbiddenDetail + ")"
		}
		parts = append(parts, s)
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
