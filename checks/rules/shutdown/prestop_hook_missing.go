package shutdown

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// preStopSleepSeconds is the sleep the fix puts in a preStop hook: long
// enough for endpoints to drop the pod before it gets SIGTERM.
const preStopSleepSeconds = 5

var prestopHookMissing = &checks.Rule{
	ID:       "prestop-hook-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination",
	Why:      "a serving container without a preStop hook gets SIGTERM while Services and load balancers still send it traffic, so in-flight and new requests fail during rollouts",
	Help:     "A short preStop sleep keeps the container serving until the endpoint removal has propagated. On Kubernetes 1.30+ use the sleep action; older clusters need `sh -c \"sleep 5\"`, which distroless images cannot run. Knative Services are skipped: Knative's queue-proxy drains their pods, and Knative refuses lifecycle hooks.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Patch || !obj.IsLongRunning() || kube.HelperPod(obj) || !ctx.IsSelected(obj) || obj.LikeKind() == manifest.LikeKnativeService {
			return nil // Knative's queue-proxy drains a Service's pods, and Knative refuses lifecycle hooks
		}
		pt := obj.PodTemplate()
		serving := servingContainers(ctx, obj, pt)
		var out []checks.Finding
		for _, c := range pt.Containers() {
			if !serving[c.Name] || (c.Lifecycle != nil && c.Lifecycle.PreStop != nil) {
				continue
			}
			path := c.Path.Child("lifecycle", "preStop")
			msg := fmt.Sprintf("container %q receives Service traffic but has no preStop hook: it gets SIGTERM while endpoints still route traffic to it, so requests fail during rollouts and scale-down (a short sleep lets the endpoint removal propagate first)", c.Name)
			var value, desc string
			if ctx.Config.TargetMinor() >= 30 {
				value = fmt.Sprintf("sleep:\n  seconds: %d\n", preStopSleepSeconds)
				desc = fmt.Sprintf("add a preStop sleep action of %d seconds (Kubernetes 1.30+)", preStopSleepSeconds)
			} else {
				value = fmt.Sprintf("exec:\n  command: [\"sh\", \"-c\", \"sleep %d\"]\n", preStopSleepSeconds)
				desc = fmt.Sprintf("add a preStop hook running `sh -c \"sleep %d\"` (the sleep action needs Kubernetes 1.30+); distroless and scratch images have no shell, so there use an app-level shutdown delay instead", preStopSleepSeconds)
			}
			ops := []edit.Op{preStopOp(obj, c.Path, value)}
			// The grace period must outlast the new sleep, or the kubelet
			// kills the app before it gets any time after the hook.
			if g := pt.Spec.TerminationGracePeriodSeconds; g != nil && *g <= preStopSleepSeconds {
				want := maxPreStopSleep(pt)
				if want < preStopSleepSeconds {
					want = preStopSleepSeconds
				}
				want += 25
				ops = append(ops, checks.SetOp(pt.SpecPath.Child("terminationGracePeriodSeconds"), fmt.Sprint(want)))
				desc += fmt.Sprintf(", and raise terminationGracePeriodSeconds to %d so the app still gets time after the hook", want)
			}
			out = append(out, checks.At(obj, path, msg).WithFix(desc, ops...))
		}
		return out
	},
}

// containerKeysBefore are container keys that usually precede lifecycle.
var containerKeysBefore = []string{"name", "image", "imagePullPolicy", "command", "args", "workingDir", "ports", "envFrom", "env", "resources", "volumeMounts", "livenessProbe", "readinessProbe", "startupProbe"}

// preStopOp inserts a preStop hook (value is the handler's YAML) into the
// container at cpath: under an existing lifecycle, or as a new lifecycle
// block placed after the container's usual keys.
func preStopOp(obj *manifest.Object, cpath manifest.Path, value string) edit.Op {
	if obj.Has(cpath.Child("lifecycle")...) {
		return checks.SetOp(cpath.Child("lifecycle", "preStop"), value, "postStart")
	}
	return checks.SetOp(cpath.Child("lifecycle"), "preStop:\n"+indent(value, "  "), containerKeysBefore...)
}

// indent prefixes every non-empty line of s with pad.
func indent(s, pad string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "")
}
