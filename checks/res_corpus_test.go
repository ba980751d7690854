package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prodready/prodready/checks"
)

// resCorpusDir is the shared real-world corpus (third-party YAML).
const resCorpusDir = "../../shared/corpus"

// resNoAlarm is an object of the corpus on which a rule must not fire (or,
// with noFix, must not offer a fix): a false alarm once, narrowed since.
type resNoAlarm struct {
	repo   string // the corpus folder checked as one repository
	file   string // relative to repo
	kind   string
	name   string
	rule   string
	noFix  bool // the rule may fire, but must not offer a fix
	reason string
}

var (
	resCorpusMu    sync.Mutex
	resCorpusCache = map[string]*checks.Result{}
)

// resCheckCorpusRepo checks one corpus folder as a repository, the way the
// bot checks one repository, with every opt-in rule of the families on.
func resCheckCorpusRepo(t *testing.T, repo string) *checks.Result {
	t.Helper()
	resCorpusMu.Lock()
	defer resCorpusMu.Unlock()
	if r, ok := resCorpusCache[repo]; ok {
		return r
	}
	cfg, err := checks.ParseConfig([]byte("rules:\n  cpu-limit-set: {enabled: true}\n  priority-class-missing: {enabled: true}\n"), checks.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := checks.Load([]string{filepath.Join(resCorpusDir, repo)}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := checks.Run(inputs, cfg, checks.Options{})
	resCorpusCache[repo] = r
	return r
}

func resRunCorpusTable(t *testing.T, table []resNoAlarm) {
	t.Helper()
	if _, err := os.Stat(resCorpusDir); err != nil {
		t.Skip("../shared/corpus not present: ", err)
	}
	for _, tc := range table {
		t.Run(tc.rule+"/"+tc.file+"/"+tc.name, func(t *testing.T) {
			if checks.DefaultCatalog().Lookup(tc.rule) == nil {
				t.Fatalf("unknown rule %s", tc.rule)
			}
			if _, err := os.Stat(filepath.Join(resCorpusDir, tc.repo, tc.file)); err != nil {
				t.Fatalf("corpus file missing: %v", err)
			}
			res := resCheckCorpusRepo(t, tc.repo)
			for _, f := range res.Findings {
				if f.RuleID != tc.rule || !strings.HasSuffix(filepath.ToSlash(f.File), tc.repo+"/"+tc.file) || f.Object.Kind != tc.kind || f.Object.Name != tc.name {
					continue
				}
				if tc.noFix && f.Fix == nil {
					continue
				}
				t.Errorf("%s:%d %s fires on %s %s (%s): %s", tc.file, f.Line, tc.rule, tc.kind, tc.name, tc.reason, f.Message)
			}
		})
	}
}

// TestCorpusNoFalseAlarmsResources holds the corpus objects on which the
// resources rules once gave false alarms.
func TestCorpusNoFalseAlarmsResources(t *testing.T) {
	resRunCorpusTable(t, []resNoAlarm{
		{repo: "gke-samples", file: "ai-ml/llm-serving-gemma/tgi/tgi-2b.yaml", kind: "Deployment", name: "tgi-gemma-deployment", rule: "cpu-request-too-high",
			reason: "a GPU inference server is the compute-heavy case 004 exempts"},
		{repo: "gke-samples", file: "ai-ml/llm-multiple-gpus/falcon-40b/text-generation-inference.yaml", kind: "Deployment", name: "llm", rule: "cpu-request-too-high",
			reason: "10 CPUs beside GPUs: compute-heavy"},
		{repo: "gke-samples", file: "ai-ml/gke-online-serving-single-gpu/src/gke-config/deployment-triton.yaml", kind: "Deployment", name: "triton-deployment", rule: "cpu-request-too-high",
			reason: "GPU inference"},
		{repo: "kubernetes-examples", file: "_archived/cpu-manager/exclusive-2.yaml", kind: "Pod", name: "exclusive-2", rule: "cpu-request-too-high",
			reason: "whole dedicated cores with Guaranteed QoS: deliberate CPU pinning"},
		{repo: "gke-samples", file: "ai-ml/t5-model-serving/kubernetes/serving-cpu.yaml", kind: "Deployment", name: "t5-inference", rule: "cpu-request-too-high",
			reason: "CPU inference with request = limit on whole cores: pinned, compute-heavy"},
		{repo: "radix-flux", file: "components/flux/flux-patches.yaml", kind: "Deployment", name: "helm-controller", rule: "cpu-requests-missing",
			reason: "a kustomize patch (no containers), not a whole Deployment"},
		{repo: "metrics-server", file: "master-kustomize-parts/manifests/components/high-availability/patch.yaml", kind: "Deployment", name: "metrics-server", rule: "memory-requests-missing",
			reason: "a kustomize component's patch"},
	})
}
