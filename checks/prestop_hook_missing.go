package checks

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// sdPreStopSleepSeconds is the sleep the fix puts in a preStop hook: long
// enough for endpoints to drop the pod before it gets SIGTERM.
const sdPreStopSleepSeconds = 5

var prestopHookMissing = &Rule{
	ID:       "prestop-hook-missing",
	Section:  sdSection,
	Severity: Info,
	Why:      "a serving container without a preStop hook gets SIGTERM while Services and load balancers still send it traffic, so in-flight and new requests fail during rollouts",
	Help:     "A short preStop sleep keeps the container serving until the endpoint removal has propagated. On Kubernetes 1.30+ use the sleep action; older clusters need `sh -c \"sleep 5\"`, which distroless images cannot run.",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		if obj.Patch || !obj.IsLongRunning() || !ctx.IsServing(obj) {
			return nil
		}
		pt := obj.PodTemplate()
		serving := sdServingContainers(ctx, obj, pt)
		var out []Finding
		for _, c := range pt.Containers() {
			if !serving[c.Name] || (c.Lifecycle != nil && c.Lifecycle.PreStop != nil) {
				continue
			}
			path := c.Path.Child("lifecycle", "preStop")
			msg := fmt.Sprintf("container %q receives Service traffic but has no preStop hook: it gets SIGTERM while endpoints still route traffic to it, so requests fail during rollouts and scale-down (a short sleep lets the endpoint removal propagate first)", c.Name)
			var value, desc string
			if ctx.Config.TargetMinor() >= 30 {
				value = fmt.Sprintf("sleep:\n  seconds: %d\n", sdPreStopSleepSeconds)
				desc = fmt.Sprintf("add a preStop sleep action of %d seconds (Kubernetes 1.30+)", sdPreStopSleepSeconds)
			} else {
				value = fmt.Sprintf("exec:\n  command: [\"sh\", \"-c\", \"sleep %d\"]\n", sdPreStopSleepSeconds)
				desc = fmt.Sprintf("add a preStop hook running `sh -c \"sleep %d\"` (the sleep action needs Kubernetes 1.30+); distroless and scratch images have no shell, so there use an app-level shutdown delay instead", sdPreStopSleepSeconds)
			}
			ops := []edit.Op{sdPreStopOp(obj, c.Path, value)}
			// The grace period must outlast the new sleep, or the kubelet
			// kills the app before it gets any time after the hook.
			if g := pt.Spec.TerminationGracePeriodSeconds; g != nil && *g <= sdPreStopSleepSeconds {
				want := sdMaxPreStopSleep(pt)
				if want < sdPreStopSleepSeconds {
					want = sdPreStopSleepSeconds
				}
				want += 25
				ops = append(ops, SetOp(pt.SpecPath.Child("terminationGracePeriodSeconds"), fmt.Sprint(want)))
				desc += fmt.Sprintf(", and raise terminationGracePeriodSeconds to %d so the app still gets time after the hook", want)
			}
			out = append(out, At(obj, path, msg).WithFix(desc, ops...))
		}
		return out
	},
}

// sdContainerKeysBefore are container keys that usually precede lifecycle.
var sdContainerKeysBefore = []string{"name", "image", "imagePullPolicy", "command", "args", "workingDir", "ports", "envFrom", "env", "resources", "volumeMounts", "livenessProbe", "readinessProbe", "startupProbe"}

// sdPreStopOp inserts a preStop hook (value is the handler's YAML) into the
// container at cpath: under an existing lifecycle, or as a new lifecycle
// block placed after the container's usual keys.
func sdPreStopOp(obj *manifest.Object, cpath manifest.Path, value string) edit.Op {
	if obj.Has(cpath.Child("lifecycle")...) {
		return SetOp(cpath.Child("lifecycle", "preStop"), value, "postStart")
	}
	return SetOp(cpath.Child("lifecycle"), "preStop:\n"+sdIndent(value, "  "), sdContainerKeysBefore...)
}

// sdIndent prefixes every non-empty line of s with pad.
func sdIndent(s, pad string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "")
}
