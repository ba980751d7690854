package shutdown

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/plural"
)

var terminationGraceTooShort = &checks.Rule{
	ID:       "termination-grace-too-short",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/#hook-handler-execution",
	Why:      "terminationGracePeriodSeconds is not longer than the preStop sleep, so the kubelet kills the app right after the hook without giving it any time to shut down",
	Help:     "The grace period counts from the start of the preStop hook. Set it to the sleep plus the time the app needs to drain (25 seconds is a common starting point).",
	Check: kube.OnPodTemplatesSkippingPatches(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		sleep, who := maxPreStopSleepOf(pt)
		if sleep <= 0 {
			return nil
		}
		grace, set := int64(defaultGrace), false
		if g := pt.Spec.TerminationGracePeriodSeconds; g != nil {
			grace, set = *g, true
		}
		if grace > sleep {
			return nil
		}
		path := pt.SpecPath.Child("terminationGracePeriodSeconds")
		what := fmt.Sprintf("terminationGracePeriodSeconds is %d", grace)
		if !set {
			what = fmt.Sprintf("terminationGracePeriodSeconds is unset (%d seconds)", grace)
		}
		msg := fmt.Sprintf("%s but the preStop hook of container %q sleeps %s: the grace period includes the hook, so the app is killed without any time to shut down", what, who, plural.Count(int(sleep), "second", "seconds"))
		want := sleep + 25
		f := checks.At(obj, path, msg).WithFix(
			fmt.Sprintf("set terminationGracePeriodSeconds to %d (the preStop sleep plus 25 seconds for the app to drain; a starting point)", want),
			checks.SetOp(path, fmt.Sprint(want), "serviceAccountName", "restartPolicy", "dnsPolicy", "priorityClassName", "securityContext"))
		return []checks.Finding{f}
	}),
}

// maxPreStopSleepOf returns the longest preStop sleep among the pod's
// long-running containers and the container that has it (0, "" for none).
func maxPreStopSleepOf(pt *manifest.PodTemplate) (sleep int64, who string) {
	for _, c := range pt.Containers() {
		if c.Lifecycle == nil {
			continue
		}
		if s, ok := preStopSleep(c.Lifecycle.PreStop); ok && s > sleep {
			sleep, who = s, c.Name
		}
	}
	return sleep, who
}

// maxPreStopSleep returns the longest preStop sleep of the pod.
func maxPreStopSleep(pt *manifest.PodTemplate) int64 {
	s, _ := maxPreStopSleepOf(pt)
	return s
}
