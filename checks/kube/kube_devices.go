package kube

import (
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

// DeviceResource returns an extended resource (a GPU or other device a
// device plugin provides, such as nvidia.com/gpu) the pod requests, or "".
func DeviceResource(pt *manifest.PodTemplate) string {
	for _, c := range pt.AllContainers() {
		for _, l := range []map[string]bool{keys(c.Resources.Limits), keys(c.Resources.Requests)} {
			for n := range l {
				if strings.Contains(n, "/") && !strings.HasPrefix(n, "kubernetes.io/") && !strings.Contains(n, ".kubernetes.io/") {
					return n
				}
			}
		}
	}
	return ""
}
