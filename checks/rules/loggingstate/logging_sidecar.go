package loggingstate

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var loggingSidecar = &checks.Rule{
	ID:       "logging-sidecar",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/cluster-administration/logging/#using-a-node-logging-agent",
	Why:      "a log shipper (fluentd, fluent-bit, filebeat, logstash, promtail, vector) runs as a sidecar in an application pod: log to stdout and ship logs from one node-level DaemonSet instead of one shipper per pod",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Patch {
			return nil
		}
		if _, ds := obj.Typed().(*appsv1.DaemonSet); ds {
			return nil // a node daemon is the recommended way to ship logs
		}
		pt := obj.PodTemplate()
		if pt == nil || len(pt.Spec.Containers) == 0 {
			return nil
		}
		if logShipper(pt.Spec.Containers[0].Image) != "" {
			return nil // the shipper is the app (an aggregator), not a sidecar
		}
		var out []checks.Finding
		for _, c := range pt.Containers() {
			s := logShipper(c.Image)
			if s == "" {
				continue
			}
			msg := fmt.Sprintf("container %q runs %s as a logging sidecar: have the app log to stdout/stderr and ship logs with one node-level DaemonSet instead (one shipper per pod costs resources and config in every app)", c.Name, s)
			out = append(out, checks.At(obj, c.Path, msg))
		}
		return out
	},
}
