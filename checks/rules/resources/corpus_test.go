package resources_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// corpusConfig turns on the opt-in rules of the section for the corpus
// tables of this package and of security.
const corpusConfig = "rules:\n  cpu-limit-set: {enabled: true}\n  priority-class-missing: {enabled: true}\n"

// TestCorpusNoFalseAlarmsResources holds the corpus objects on which the
// resources rules once gave false alarms.
func TestCorpusNoFalseAlarmsResources(t *testing.T) {
	checkstest.RunNoAlarms(t, catalog.Default(), corpusConfig, []checkstest.NoAlarm{
		{Repo: "gke-samples", File: "ai-ml/llm-serving-gemma/tgi/tgi-2b.yaml", Kind: "Deployment", Name: "tgi-gemma-deployment", Rule: "cpu-request-too-high",
			Reason: "a GPU inference server is the compute-heavy case cpu-request-too-high exempts"},
		{Repo: "gke-samples", File: "ai-ml/llm-multiple-gpus/falcon-40b/text-generation-inference.yaml", Kind: "Deployment", Name: "llm", Rule: "cpu-request-too-high",
			Reason: "10 CPUs beside GPUs: compute-heavy"},
		{Repo: "gke-samples", File: "ai-ml/gke-online-serving-single-gpu/src/gke-config/deployment-triton.yaml", Kind: "Deployment", Name: "triton-deployment", Rule: "cpu-request-too-high",
			Reason: "GPU inference"},
		{Repo: "kubernetes-examples", File: "_archived/cpu-manager/exclusive-2.yaml", Kind: "Pod", Name: "exclusive-2", Rule: "cpu-request-too-high",
			Reason: "whole dedicated cores with Guaranteed QoS: deliberate CPU pinning"},
		{Repo: "gke-samples", File: "ai-ml/t5-model-serving/kubernetes/serving-cpu.yaml", Kind: "Deployment", Name: "t5-inference", Rule: "cpu-request-too-high",
			Reason: "CPU inference with request = limit on whole cores: pinned, compute-heavy"},
		{Repo: "radix-flux", File: "components/flux/flux-patches.yaml", Kind: "Deployment", Name: "helm-controller", Rule: "cpu-requests-missing",
			Reason: "a kustomize patch (no containers), not a whole Deployment"},
		{Repo: "metrics-server", File: "master-kustomize-parts/manifests/components/high-availability/patch.yaml", Kind: "Deployment", Name: "metrics-server", Rule: "memory-requests-missing",
			Reason: "a kustomize component's patch"},
	})
}
