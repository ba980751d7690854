package loggingstate

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

// shippers are the log shippers logging-sidecar recognises by image name.
var shippers = []string{"fluentd", "fluent-bit", "fluentbit", "filebeat", "logstash", "promtail", "vector"}

// logShipper returns the log shipper an image runs, or "".
func logShipper(image string) string {
	base := kube.ImageBase(image)
	for _, s := range shippers {
		if base == s || strings.HasPrefix(base, s+"-") || strings.HasPrefix(base, s+"_") {
			return s
		}
	}
	return ""
}

// hpaOnCPUOrMemory reports whether an HPA scales on CPU or memory: a v1
// HPA always does (CPU, 80% by default), a v2 HPA with no metrics defaults
// to CPU, else a Resource or ContainerResource metric on cpu or memory.
func hpaOnCPUOrMemory(h *manifest.Object) bool {
	switch v := h.Typed().(type) {
	case *autoscalingv1.HorizontalPodAutoscaler:
		return true
	case *autoscalingv2.HorizontalPodAutoscaler:
		if len(v.Spec.Metrics) == 0 {
			return true
		}
		for _, m := range v.Spec.Metrics {
			var name corev1.ResourceName
			switch {
			case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
				name = m.Resource.Name
			case m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil:
				name = m.ContainerResource.Name
			}
			if name == corev1.ResourceCPU || name == corev1.ResourceMemory {
				return true
			}
		}
	}
	return false
}

// vpaOnCPUOrMemory reports whether a VerticalPodAutoscaler may change CPU
// or memory: containers without a policy, and policies whose mode is not
// Off, control cpu and memory unless controlledResources says otherwise.
func vpaOnCPUOrMemory(vpa *manifest.Object) bool {
	pols := vpa.Node("spec", "resourcePolicy", "containerPolicies")
	if pols == nil || pols.Kind != yaml.SequenceNode || len(pols.Content) == 0 {
		return true
	}
	wildcard := false
	for _, p := range pols.Content {
		_, name := manifest.MapEntry(p, "containerName")
		_, mode := manifest.MapEntry(p, "mode")
		if name != nil && name.Value == "*" {
			wildcard = true
		}
		if mode != nil && mode.Value == "Off" {
			continue
		}
		_, res := manifest.MapEntry(p, "controlledResources")
		if res == nil || res.Kind != yaml.SequenceNode {
			return true
		}
		for _, r := range res.Content {
			if r.Value == "cpu" || r.Value == "memory" {
				return true
			}
		}
	}
	return !wildcard // containers no policy names get the default (cpu and memory)
}
