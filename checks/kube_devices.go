package checks

import (
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

// secDeviceResource returns an extended resource (a GPU or other device a
// device plugin provides, such as nvidia.com/gpu) the pod requests, or "".
func secDeviceResource(pt *manifest.PodTemplate) string {
	for _, c := range pt.AllContainers() {
		for _, l := range []map[string]bool{secKeys(c.Resources.Limits), secKeys(c.Resources.Requests)} {
			for n := range l {
				if strings.Contains(n, "/") && !strings.HasPrefix(n, "kubernetes.io/") && !strings.Contains(n, ".kubernetes.io/") {
					return n
				}
			}
		}
	}
	return ""
}
