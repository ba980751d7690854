package health

import (
	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"strconv"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

// Probe timing defaults the API server fills in.
const (
	defaultPeriod  = 10
	defaultFailure = 3
	defaultTimeout = 1
	defaultSuccess = 1
)

// probeAfter lists the container keys a probe is inserted after, in the
// order people write them.
var probeAfter = []string{"name", "image", "imagePullPolicy", "command", "args", "workingDir", "ports", "env", "envFrom", "resources", "volumeMounts"}

// longRunningPods returns a rule's Check that calls check with the pod
// template of each object whose pods run until they are stopped (not a
// Job's): probes and their timing matter for those only.
func longRunningPods(check kube.PodCheck) func(*checks.Context, *manifest.Object) []checks.Finding {
	return kube.OnPodTemplates(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		if !obj.IsLongRunning() {
			return nil
		}
		return check(ctx, obj, pt)
	})
}

// firstTCPPortRef returns how a probe names the first declared TCP
// containerPort of c: its name when it has one (a chart that computes the
// number from its values keeps the probe on the port it declares), else
// its number; and the port's path, which the probe's fix reads.
func firstTCPPortRef(c manifest.Container) (string, manifest.Path, bool) {
	for i, p := range c.Ports {
		if (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) && p.ContainerPort > 0 {
			at := c.Path.Child("ports", strconv.Itoa(i))
			if p.Name != "" {
				return p.Name, at, true
			}
			return strconv.Itoa(int(p.ContainerPort)), at, true
		}
	}
	return "", nil, false
}

// periodSeconds, failureThreshold, timeoutSeconds, successThreshold return a probe's timing with the
// API server's defaults for unset (zero) values.
func periodSeconds(p *corev1.Probe) int32    { return or(p.PeriodSeconds, defaultPeriod) }
func failureThreshold(p *corev1.Probe) int32 { return or(p.FailureThreshold, defaultFailure) }
func timeoutSeconds(p *corev1.Probe) int32   { return or(p.TimeoutSeconds, defaultTimeout) }
func successThreshold(p *corev1.Probe) int32 { return or(p.SuccessThreshold, defaultSuccess) }

func or(v, def int32) int32 {
	if v <= 0 {
		return def
	}
	return v
}

// withDefaults returns a copy of p with its timing defaults filled in, so
// two probes written differently but meaning the same compare equal.
func withDefaults(p *corev1.Probe) *corev1.Probe {
	q := p.DeepCopy()
	q.PeriodSeconds, q.FailureThreshold = periodSeconds(p), failureThreshold(p)
	q.TimeoutSeconds, q.SuccessThreshold = timeoutSeconds(p), successThreshold(p)
	if q.HTTPGet != nil && q.HTTPGet.Path == "" {
		q.HTTPGet.Path = "/"
	}
	if q.HTTPGet != nil && q.HTTPGet.Scheme == "" {
		q.HTTPGet.Scheme = corev1.URISchemeHTTP
	}
	return q
}

// deleteKey removes key from mapping node m.
func deleteKey(m *yaml.Node, key string) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// probeAfterFor returns where a new probe goes in container c: right after
// the container's other probes when it has any (a person keeps probes
// together), else after the usual keys of probeAfter.
func probeAfterFor(c manifest.Container) []string {
	var probes []string
	if c.StartupProbe != nil {
		probes = append(probes, "startupProbe")
	}
	if c.LivenessProbe != nil {
		probes = append(probes, "livenessProbe")
	}
	if c.ReadinessProbe != nil {
		probes = append(probes, "readinessProbe")
	}
	if len(probes) > 0 {
		return probes
	}
	return probeAfter
}
