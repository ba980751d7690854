package health

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var livenessProbeTooEager = &checks.Rule{
	ID:       "liveness-probe-too-eager",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-startup-probes",
	Why:      "the livenessProbe kills the container before its readinessProbe can first succeed, so a slow start restarts forever",
	Help: "The liveness kill deadline is initialDelaySeconds + periodSeconds × failureThreshold. When it ends before the readinessProbe's initialDelaySeconds, " +
		"the app is expected to need longer to start than liveness allows. A startupProbe holds liveness back until the app has started.",
	Check: longRunningPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.Containers() {
			r, l := c.ReadinessProbe, c.LivenessProbe
			if r == nil || l == nil || c.StartupProbe != nil {
				continue
			}
			deadline := int64(l.InitialDelaySeconds) + int64(periodSeconds(l))*int64(failureThreshold(l))
			if deadline >= int64(r.InitialDelaySeconds) {
				continue
			}
			lp := c.Path.Child("livenessProbe")
			f := checks.At(obj, lp, fmt.Sprintf("container %q: the livenessProbe kills it after %ds, before its readinessProbe first runs at %ds: a slow start restarts forever", c.Name, deadline, r.InitialDelaySeconds))
			if v, ok := startupFromReadiness(obj, c); ok {
				op := checks.SetOp(c.Path.Child("startupProbe"), v, probeAfterFor(c)...)
				op.Comment = "copied from readinessProbe: holds liveness back until the app has started"
				f = f.WithFix("add a startupProbe copied from the readinessProbe", op)
			}
			out = append(out, f)
		}
		return out
	}),
}

// startupFromReadiness renders the container's readinessProbe as a
// startupProbe (whose successThreshold must be 1).
func startupFromReadiness(obj *manifest.Object, c manifest.Container) (string, bool) {
	n := obj.BlockCopy(c.Path.Child("readinessProbe")...)
	if n == nil || len(n.Content) == 0 {
		return "", false
	}
	deleteKey(n, "successThreshold")
	return kube.EncodeYAML(n)
}
