package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var hostPort = &checks.Rule{
	ID:       "host-port",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/overview/#services",
	Why:      "a hostPort ties the pod to nodes where the port is free (one per node) and exposes it on the node's address, bypassing Services and NetworkPolicies",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := kube.WholePodTemplate(ctx, obj)
		// With hostNetwork the hostPort is the container port itself (the
		// API server defaults it): host-namespace reports the real issue.
		if pt == nil || pt.Spec.HostNetwork {
			return nil
		}
		var out []checks.Finding
		for _, c := range pt.AllContainers() {
			for j, port := range c.Ports {
				if port.HostPort == 0 {
					continue
				}
				p := c.Path.Child("ports", manifest.Index(j), "hostPort")
				out = append(out, checks.At(obj, p, fmt.Sprintf("container %q binds host port %d: expose it through a Service (NodePort or LoadBalancer) instead, unless the pod is a node agent", c.Name, port.HostPort)))
			}
		}
		return out
	},
}
