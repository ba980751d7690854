package health

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var livenessProbeMissing = &checks.Rule{
	ID:       "liveness-probe-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/#liveness-probe",
	Why:      "a long-running container without a livenessProbe is never restarted when it hangs",
	Help: "A livenessProbe should hit a passive endpoint that always answers while the process is alive, and give up later than the readinessProbe. " +
		"The suggested tcpSocket probe is a starting point. A container whose command only waits (sleep, tail -f, as client and toolbox pods run) has nothing to hang and is left alone.",
	Check: longRunningPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.Containers() {
			if c.LivenessProbe != nil || kube.IdleContainer(c) {
				continue // an idle container (sleep, tail -f) has nothing to hang
			}
			f := checks.At(obj, c.Path, fmt.Sprintf("container %q has no livenessProbe: if it hangs, nothing restarts it", c.Name))
			port, at, ok := firstTCPPortRef(c)
			if !ok {
				f.Message += " (it has no TCP port: add an exec or httpGet livenessProbe on a passive endpoint)"
				out = append(out, f)
				continue
			}
			period, failure, delay := int32(2*defaultPeriod), int32(defaultFailure+2), int32(0)
			if r := c.ReadinessProbe; r != nil {
				period, failure, delay = 2*periodSeconds(r), failureThreshold(r)+2, r.InitialDelaySeconds
			}
			var v strings.Builder
			fmt.Fprintf(&v, "tcpSocket:\n  port: %s\n", port)
			if delay > 0 {
				fmt.Fprintf(&v, "initialDelaySeconds: %d\n", delay)
			}
			fmt.Fprintf(&v, "periodSeconds: %d\nfailureThreshold: %d\n", period, failure)
			op := checks.SetOp(c.Path.Child("livenessProbe"), v.String(), probeAfterFor(c)...)
			op.Comment = "starting point: slower to give up than the readinessProbe"
			f = f.WithFix(fmt.Sprintf("add a tcpSocket livenessProbe on port %s that gives up later than the readinessProbe", port), op)
			f.Fix.Reads = []manifest.Path{at}
			out = append(out, f)
		}
		return out
	}),
}
