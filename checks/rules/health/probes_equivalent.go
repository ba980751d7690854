package health

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var probesEquivalent = &checks.Rule{
	ID:       "probes-equivalent",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/",
	Why:      "readiness and liveness probes that ask the same endpoint and give up no later than each other restart a busy pod when it should only stop getting traffic, as identical probes do",
	Help: "Fires when the two probes use the same handler on the same target (httpGet scheme, host, port, path and headers; tcpSocket host and port; grpc port and service; exec command), " +
		"a named port counting as the number the container declares for it, and the liveness probe is no more patient than the readiness probe: " +
		"its failure window (periodSeconds × failureThreshold) is not longer and its timeoutSeconds not larger. " +
		"initialDelaySeconds, successThreshold and terminationGracePeriodSeconds do not change that. Probes equal once defaults are filled in are probes-identical's, not this rule's. " +
		"A liveness probe on another endpoint, another handler, a longer window or a longer timeout is the distinction that lets a busy pod leave the Service before it is killed. " +
		"The fix makes the liveness probe slower to give up than the readiness probe (twice the longer periodSeconds, the larger failureThreshold plus 2).",
	Check: longRunningPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.Containers() {
			r, l := c.ReadinessProbe, c.LivenessProbe
			if r == nil || l == nil || reflect.DeepEqual(withDefaults(r), withDefaults(l)) {
				continue // none, or identical: probes-identical reports it
			}
			target, same := sameProbeTarget(c, r, l)
			if !same || !failTogether(r, l) {
				continue
			}
			lp := c.Path.Child("livenessProbe")
			period := 2 * max(periodSeconds(l), periodSeconds(r))
			failure := max(failureThreshold(l), failureThreshold(r)) + 2
			after := []string{"httpGet", "tcpSocket", "exec", "grpc", "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold"}
			msg := fmt.Sprintf("container %q has readiness and liveness probes that differ only in %s: both %s, and the liveness probe gives up no later than the readiness probe, so when the container is busy it is restarted instead of only taken out of the Service",
				c.Name, joinAnd(probeDifferences(r, l)), target)
			f := checks.At(obj, lp, msg).
				WithExactFix(fmt.Sprintf("make the livenessProbe slower to give up than the readinessProbe (periodSeconds %d, failureThreshold %d)", period, failure),
					checks.SetOp(lp.Child("periodSeconds"), strconv.Itoa(int(period)), after[:6]...),
					checks.SetOp(lp.Child("failureThreshold"), strconv.Itoa(int(failure)), after...))
			out = append(out, f)
		}
		return out
	}),
}

// failTogether reports whether the liveness probe l gives up no later than
// the readiness probe r: a failure window (periodSeconds ×
// failureThreshold) no longer, and a timeout no larger. A longer window
// lets a pod that fails now and then leave the Service before it is
// killed; a larger timeout does the same for a pod that answers slowly.
func failTogether(r, l *corev1.Probe) bool {
	return periodSeconds(l)*failureThreshold(l) <= periodSeconds(r)*failureThreshold(r) &&
		timeoutSeconds(l) <= timeoutSeconds(r)
}

// sameProbeTarget reports whether probes r and l of container c ask the
// same thing (a named port counting as the number c declares for it), and
// describes it ("GET /healthz on port 8080").
func sameProbeTarget(c manifest.Container, r, l *corev1.Probe) (string, bool) {
	switch {
	case r.HTTPGet != nil && l.HTTPGet != nil:
		a, b := r.HTTPGet, l.HTTPGet
		port, ok := samePort(c, a.Port, b.Port)
		if !ok || httpPath(a.Path) != httpPath(b.Path) || httpScheme(a.Scheme) != httpScheme(b.Scheme) ||
			!strings.EqualFold(a.Host, b.Host) || !sameHeaders(a.HTTPHeaders, b.HTTPHeaders) {
			return "", false
		}
		scheme := ""
		if httpScheme(a.Scheme) == corev1.URISchemeHTTPS {
			scheme = " over HTTPS"
		}
		return fmt.Sprintf("GET %q on port %s%s", httpPath(a.Path), port, scheme), true
	case r.TCPSocket != nil && l.TCPSocket != nil:
		port, ok := samePort(c, r.TCPSocket.Port, l.TCPSocket.Port)
		if !ok || !strings.EqualFold(r.TCPSocket.Host, l.TCPSocket.Host) {
			return "", false
		}
		return "open a TCP connection to port " + port, true
	case r.GRPC != nil && l.GRPC != nil:
		if r.GRPC.Port != l.GRPC.Port || grpcService(r.GRPC) != grpcService(l.GRPC) {
			return "", false
		}
		return fmt.Sprintf("ask the gRPC health service on port %d", r.GRPC.Port), true
	case r.Exec != nil && l.Exec != nil:
		if !slices.Equal(r.Exec.Command, l.Exec.Command) {
			return "", false
		}
		return "run the same command", true
	}
	return "", false
}

// samePort reports whether two probe ports are one port of c, and names
// it: numbers compare as numbers, and a name as the containerPort c
// declares for it (an undeclared name only equals itself:
// probe-named-port-undeclared reports it).
func samePort(c manifest.Container, a, b intstr.IntOrString) (string, bool) {
	pa, pb := resolvePort(c, a), resolvePort(c, b)
	if pa != pb {
		return "", false
	}
	return pa, true
}

// resolvePort returns a probe port as the number it stands for, or the
// name when c declares no port of that name.
func resolvePort(c manifest.Container, p intstr.IntOrString) string {
	if p.Type == intstr.Int {
		return strconv.Itoa(int(p.IntVal))
	}
	for _, cp := range c.Ports {
		if cp.Name != "" && cp.Name == p.StrVal {
			return strconv.Itoa(int(cp.ContainerPort))
		}
	}
	return p.StrVal
}

func httpPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func httpScheme(s corev1.URIScheme) corev1.URIScheme {
	if s == "" {
		return corev1.URISchemeHTTP
	}
	return corev1.URIScheme(strings.ToUpper(string(s)))
}

func grpcService(g *corev1.GRPCAction) string {
	if g.Service == nil {
		return ""
	}
	return *g.Service
}

// sameHeaders reports whether two header lists send the same headers
// (names compare without case; order does not matter).
func sameHeaders(a, b []corev1.HTTPHeader) bool {
	if len(a) != len(b) {
		return false
	}
	norm := func(hs []corev1.HTTPHeader) []string {
		out := make([]string, len(hs))
		for i, h := range hs {
			out[i] = strings.ToLower(h.Name) + "\x00" + h.Value
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(norm(a), norm(b))
}

// probeDifferences names what differs between probes r and l whose target
// is the same: their timings, and how the target is written.
func probeDifferences(r, l *corev1.Probe) []string {
	var out []string
	add := func(name string, a, b int32) {
		if a != b {
			out = append(out, name)
		}
	}
	add("initialDelaySeconds", r.InitialDelaySeconds, l.InitialDelaySeconds)
	add("timeoutSeconds", timeoutSeconds(r), timeoutSeconds(l))
	add("periodSeconds", periodSeconds(r), periodSeconds(l))
	add("successThreshold", successThreshold(r), successThreshold(l))
	add("failureThreshold", failureThreshold(r), failureThreshold(l))
	if !reflect.DeepEqual(r.TerminationGracePeriodSeconds, l.TerminationGracePeriodSeconds) {
		out = append(out, "terminationGracePeriodSeconds")
	}
	if rp, _ := probePort(r); rp != nil {
		if lp, _ := probePort(l); lp != nil && *rp != *lp {
			out = append(out, "how the port is written (name or number)")
		}
	}
	if len(out) == 0 { // header order, the case of a host or scheme
		out = append(out, "how the handler is written")
	}
	return out
}

// joinAnd lists words as "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
