package checks

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/prodready/prodready/checks/manifest"
)

var probesIdentical = &Rule{
	ID:       "probes-identical",
	Section:  sectionHealth,
	Severity: Warning,
	Why:      "equal readiness and liveness probes restart a pod exactly when it should only stop getting traffic, dropping its connections",
	Help:     "Make the livenessProbe slower to give up than the readinessProbe (a larger periodSeconds and failureThreshold), so a busy pod is taken out of the Service before it is killed.",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := obj.PodTemplate()
		if pt == nil || !obj.IsLongRunning() {
			return nil
		}
		var out []Finding
		for _, c := range pt.Containers() {
			r, l := c.ReadinessProbe, c.LivenessProbe
			if r == nil || l == nil || !reflect.DeepEqual(hcWithDefaults(r), hcWithDefaults(l)) {
				continue
			}
			lp := c.Path.Child("livenessProbe")
			period, failure := 2*hcPeriod(l), hcFailure(l)+2
			after := []string{"httpGet", "tcpSocket", "exec", "grpc", "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold"}
			f := At(obj, lp, fmt.Sprintf("container %q has identical readiness and liveness probes: when it is busy it is restarted instead of only taken out of the Service", c.Name)).
				WithFix(fmt.Sprintf("make the livenessProbe slower to give up (periodSeconds %d, failureThreshold %d)", period, failure),
					SetOp(lp.Child("periodSeconds"), strconv.Itoa(int(period)), after[:6]...),
					SetOp(lp.Child("failureThreshold"), strconv.Itoa(int(failure)), after...))
			out = append(out, f)
		}
		return out
	},
}
