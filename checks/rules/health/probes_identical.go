package health

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var probesIdentical = &checks.Rule{
	ID:       "probes-identical",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://learnk8s.io/production-best-practices#application-development",
	Why:      "equal readiness and liveness probes restart a pod exactly when it should only stop getting traffic, dropping its connections",
	Help:     "Make the livenessProbe slower to give up than the readinessProbe (a larger periodSeconds and failureThreshold), so a busy pod is taken out of the Service before it is killed.",
	Check: longRunningPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.Containers() {
			r, l := c.ReadinessProbe, c.LivenessProbe
			if r == nil || l == nil || !reflect.DeepEqual(withDefaults(r), withDefaults(l)) {
				continue
			}
			lp := c.Path.Child("livenessProbe")
			period, failure := 2*periodSeconds(l), failureThreshold(l)+2
			after := []string{"httpGet", "tcpSocket", "exec", "grpc", "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold"}
			f := checks.At(obj, lp, fmt.Sprintf("container %q has identical readiness and liveness probes: when it is busy it is restarted instead of only taken out of the Service", c.Name)).
				WithExactFix(fmt.Sprintf("make the livenessProbe slower to give up (periodSeconds %d, failureThreshold %d)", period, failure),
					checks.SetOp(lp.Child("periodSeconds"), strconv.Itoa(int(period)), after[:6]...),
					checks.SetOp(lp.Child("failureThreshold"), strconv.Itoa(int(failure)), after...))
			out = append(out, f)
		}
		return out
	}),
}
