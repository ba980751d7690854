package health

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/manifest"
)

var probeNamedPortUndeclared = &checks.Rule{
	ID:       "probe-named-port-undeclared",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#use-a-named-port",
	Why:      "a probe targets a named port the container does not declare, so it always fails (numeric ports need no declaration)",
	Check: kube.OnPodTemplates(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.AllContainers() {
			declared := map[string]bool{}
			for _, p := range c.Ports {
				if p.Name != "" {
					declared[p.Name] = true
				}
			}
			for _, pr := range containerProbes(c) {
				port, field := probePort(pr.probe)
				if port == nil || port.Type != intstr.String || declared[port.StrVal] {
					continue
				}
				path := c.Path.Child(pr.key, field.section, "port")
				out = append(out, checks.At(obj, path, fmt.Sprintf("%s of container %q targets port %q, which the container does not declare: the probe always fails (declare it under ports, or use the port number)", pr.key, c.Name, port.StrVal)))
			}
		}
		return out
	}),
}

// namedProbe is one of a container's probes with its YAML key.
type namedProbe struct {
	key   string // readinessProbe, livenessProbe or startupProbe
	probe *corev1.Probe
}

// containerProbes returns the probes a container sets.
func containerProbes(c manifest.Container) []namedProbe {
	var out []namedProbe
	for _, p := range []namedProbe{{"readinessProbe", c.ReadinessProbe}, {"livenessProbe", c.LivenessProbe}, {"startupProbe", c.StartupProbe}} {
		if p.probe != nil {
			out = append(out, p)
		}
	}
	return out
}

type probeField struct{ section string }

// probePort returns the port a probe's handler targets and the handler's key
// (httpGet, tcpSocket or grpc; gRPC ports are always numbers).
func probePort(p *corev1.Probe) (*intstr.IntOrString, probeField) {
	switch {
	case p.HTTPGet != nil:
		return &p.HTTPGet.Port, probeField{"httpGet"}
	case p.TCPSocket != nil:
		return &p.TCPSocket.Port, probeField{"tcpSocket"}
	}
	return nil, probeField{}
}
