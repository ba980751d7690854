package health

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/manifest"
)

var readinessProbeMissing = &checks.Rule{
	ID:       "readiness-probe-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/#readiness-probe",
	Why:      "a serving container without a readinessProbe gets traffic before it can answer and while it cannot",
	Help: "Kubernetes sends Service traffic to a pod as soon as its containers run unless a readinessProbe says otherwise. " +
		"The suggested tcpSocket probe on the container's first TCP port is a starting point: an HTTP endpoint that answers when the app can serve is better.",
	Check: longRunningPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		svcs := kube.ServingServices(ctx, obj)
		if len(svcs) == 0 {
			return nil
		}
		var out []checks.Finding
		for _, c := range pt.Containers() {
			if c.ReadinessProbe != nil || len(c.Ports) == 0 || !servesTraffic(c, svcs) || kube.IdleContainer(c) {
				continue
			}
			f := checks.At(obj, c.Path, fmt.Sprintf("container %q declares a port and a Service selects its pods, but it has no readinessProbe: it gets traffic before it can answer", c.Name))
			if port, ok := firstTCPPort(c); ok {
				op := checks.SetOp(c.Path.Child("readinessProbe"), fmt.Sprintf("tcpSocket:\n  port: %d\n", port), probeAfterFor(c)...)
				op.Comment = "starting point: prefer an HTTP endpoint that answers when the app can serve"
				f = f.WithFix(fmt.Sprintf("add a tcpSocket readinessProbe on port %d", port), op)
			} else {
				f.Message += " (it has no TCP port: add an exec or gRPC readinessProbe)"
			}
			out = append(out, f)
		}
		return out
	}),
}

// servesTraffic reports whether one of the Services sends traffic to a
// port of c: a targetPort naming one of its ports, or its number (an unset
// targetPort is the Service port's number). A sidecar whose ports no
// Service targets (a metrics exporter) is not serving.
func servesTraffic(c manifest.Container, svcs []*manifest.Object) bool {
	for _, s := range svcs {
		svc, ok := s.Typed.(*corev1.Service)
		if !ok {
			continue
		}
		for _, sp := range svc.Spec.Ports {
			for _, cp := range c.Ports {
				switch t := sp.TargetPort; {
				case t.Type == intstr.String && t.StrVal != "":
					if t.StrVal == cp.Name {
						return true
					}
				case t.Type == intstr.Int && t.IntVal != 0:
					if t.IntVal == cp.ContainerPort {
						return true
					}
				default:
					if sp.Port == cp.ContainerPort {
						return true
					}
				}
			}
		}
	}
	return false
}
