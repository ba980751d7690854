package health

import (
	"fmt"
	"strconv"

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
		mains := 0
		for _, c := range pt.Containers() {
			if !c.Init {
				mains++
			}
		}
		for _, c := range pt.Containers() {
			if c.ReadinessProbe != nil || kube.IdleContainer(c) {
				continue
			}
			msg := fmt.Sprintf("container %q declares a port and a Service selects its pods, but it has no readinessProbe: it gets traffic before it can answer", c.Name)
			port, at, ok := firstTCPPortRef(c)
			switch {
			case len(c.Ports) > 0 && servesTraffic(c, svcs):
			case len(c.Ports) == 0 && !c.Init && mains == 1:
				// Declaring ports is informational: a Service's number
				// reaches the pod's one container whether it declares
				// the port or not.
				n, found := targetNumber(svcs)
				if !found {
					continue
				}
				port, at, ok = strconv.Itoa(int(n)), nil, true
				msg = fmt.Sprintf("container %q declares no port, but a Service selecting its pods sends traffic to its port %d, and it has no readinessProbe: it gets traffic before it can answer", c.Name, n)
			default:
				continue
			}
			f := checks.At(obj, c.Path, msg)
			if ok {
				op := checks.SetOp(c.Path.Child("readinessProbe"), fmt.Sprintf("tcpSocket:\n  port: %s\n", port), probeAfterFor(c)...)
				op.Comment = "starting point: prefer an HTTP endpoint that answers when the app can serve"
				f = f.WithFix(fmt.Sprintf("add a tcpSocket readinessProbe on port %s", port), op)
				if at != nil {
					f.Fix.Reads = []manifest.Path{at}
				}
			} else {
				f.Message += " (it has no TCP port: add an exec or gRPC readinessProbe)"
			}
			out = append(out, f)
		}
		return out
	}),
}

// targetNumber returns the first port number the Services send traffic to
// (a numeric targetPort, or the Service port when targetPort is unset).
func targetNumber(svcs []*manifest.Object) (int32, bool) {
	for _, s := range svcs {
		svc, ok := s.Typed().(*corev1.Service)
		if !ok {
			continue
		}
		for _, sp := range svc.Spec.Ports {
			if sp.Protocol != "" && sp.Protocol != corev1.ProtocolTCP {
				continue
			}
			switch t := sp.TargetPort; {
			case t.Type == intstr.Int && t.IntVal != 0:
				return t.IntVal, true
			case t.Type == intstr.String && t.StrVal != "":
			default:
				return sp.Port, true
			}
		}
	}
	return 0, false
}

// servesTraffic reports whether one of the Services sends traffic to a
// port of c: a targetPort naming one of its ports, or its number (an unset
// targetPort is the Service port's number). A sidecar whose ports no
// Service targets (a metrics exporter) is not serving.
func servesTraffic(c manifest.Container, svcs []*manifest.Object) bool {
	for _, s := range svcs {
		svc, ok := s.Typed().(*corev1.Service)
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
