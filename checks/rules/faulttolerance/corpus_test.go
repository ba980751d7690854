package faulttolerance_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// ftCorpusDir is the shared real-world corpus (see its README.md).
const ftCorpusDir = "../../../../shared/corpus"

var (
	ftCorpusOnce sync.Once
	ftCorpusRes  *checks.Result
)

// ftCorpus runs every rule over the corpus once (Helm templates excluded:
// they are not YAML).
func ftCorpus(t *testing.T) *checks.Result {
	t.Helper()
	if _, err := os.Stat(ftCorpusDir); err != nil {
		t.Skip("../shared/corpus not present: " + err.Error())
	}
	ftCorpusOnce.Do(func() {
		cfg := checks.DefaultConfig(catalog.Default())
		cfg.Exclude = []string{"helm-templates/**"}
		inputs, err := checks.Load([]string{ftCorpusDir}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var keep []checks.Input
		for _, in := range inputs {
			if !strings.Contains(filepath.ToSlash(in.Path), "/helm-templates/") {
				keep = append(keep, in)
			}
		}
		ftCorpusRes = checks.Run(keep, cfg, checks.Options{})
	})
	if ftCorpusRes == nil {
		t.Fatal("corpus run failed")
	}
	return ftCorpusRes
}

// ftNoAlarm is an object of the corpus on which a rule must not fire, and
// why a naive reading of the rule would.
type ftNoAlarm struct {
	file, kind, name, rule string
	// container, when set, limits the entry to findings about that container.
	container string
	why       string
}

func ftCheckNoAlarms(t *testing.T, table []ftNoAlarm) {
	res := ftCorpus(t)
	for _, tt := range table {
		exists := false
		for _, f := range res.Files {
			if !strings.HasSuffix(filepath.ToSlash(f.Path), "/"+tt.file) {
				continue
			}
			for _, o := range f.Objects {
				exists = exists || (o.Kind == tt.kind && o.Name == tt.name)
			}
		}
		if !exists {
			t.Errorf("%s %s/%s is not in the corpus any more: update the table", tt.file, tt.kind, tt.name)
			continue
		}
		for _, f := range res.Findings {
			if f.RuleID != tt.rule || !strings.HasSuffix(filepath.ToSlash(f.File), "/"+tt.file) || f.Object.Kind != tt.kind || f.Object.Name != tt.name {
				continue
			}
			if tt.container != "" && !strings.Contains(f.Message, `container "`+tt.container+`"`) {
				continue
			}
			t.Errorf("false alarm: %s on %s %s/%s (line %d): %s\nnot an alarm because %s", tt.rule, tt.file, tt.kind, tt.name, f.Line, f.Message, tt.why)
		}
	}
}

// TestCorpusNoFalseAlarmsHealth lists corpus objects that naive readings
// of the health rules flagged and that are fine.
func TestCorpusNoFalseAlarmsHealth(t *testing.T) {
	ftCheckNoAlarms(t, []ftNoAlarm{
		{"gke-samples/networking/dpv2-observability/hubble-ui-std.yaml", "Deployment", "hubble-ui", "readiness-probe-missing", "backend",
			"the Service targets the frontend container's port; the backend sidecar gets no Service traffic"},
		{"gke-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-github/wordpress/mysql-statefulset.yaml", "StatefulSet", "mysql", "readiness-probe-missing", "xtrabackup",
			"the xtrabackup sidecar's port is not a target of the mysql Service"},
		{"istio-samples/samples/extauthz/local-ext-authz.yaml", "Deployment", "httpbin", "readiness-probe-missing", "ext-authz",
			"the ext-authz sidecar is reached over localhost, no Service targets its ports"},
		{"kyverno-install/v1.15.0/config/install-latest-testing.yaml", "Deployment", "kyverno-background-controller", "readiness-probe-missing", "",
			"its only Service (…-metrics, port metrics-port) is for scraping, not traffic"},
		{"cert-manager-static/cert-manager.yaml", "Deployment", "cert-manager", "readiness-probe-missing", "",
			"its Service only exposes tcp-prometheus-servicemonitor"},
		{"gke-samples/autopilot/daemonset-best-practices/deployment.yaml", "Deployment", "hello-app", "readiness-probe-missing", "",
			"the Service that matches its labels belongs to another example (gke-samples/quickstarts/languages/), no namespace"},
	})
}

// TestCorpusNoFalseAlarmsFaultTolerance lists corpus objects that naive
// readings of the fault-tolerance rules flagged and that are fine.
func TestCorpusNoFalseAlarmsFaultTolerance(t *testing.T) {
	ftCheckNoAlarms(t, []ftNoAlarm{
		{"kyverno-install/v1.15.0/config/install-latest-testing.yaml", "Deployment", "kyverno-background-controller", "replicas-too-few", "",
			"a controller whose only Service exposes metrics: not serving"},
		{"kube-prometheus/manifests/prometheusOperator-deployment.yaml", "Deployment", "prometheus-operator", "replicas-too-few", "",
			"an operator without leader election (three replicas would fight); its Service's port is the one a ServiceMonitor scrapes"},
		{"kube-prometheus/manifests/kubeStateMetrics-deployment.yaml", "Deployment", "kube-state-metrics", "replicas-too-few", "",
			"its Service's ports are all scraped by its ServiceMonitor: a metrics endpoint, not traffic"},
		{"argo-cd/manifests/install.yaml", "Deployment", "argocd-applicationset-controller", "replicas-too-few", "",
			"leader-elected (ARGOCD_APPLICATIONSET_CONTROLLER_ENABLE_LEADER_ELECTION)"},
		{"argo-cd/manifests/install.yaml", "Deployment", "argocd-redis", "replicas-too-few", "",
			"a single-instance redis (the HA install uses redis-ha): three replicas are three caches, not HA"},
		{"kubernetes-examples/web/guestbook/redis-master-deployment.yaml", "Deployment", "redis-master", "replicas-too-few", "",
			"a single-instance datastore: more replicas would be more masters"},
		{"gke-samples/quickstarts/wordpress-persistent-disks/mysql.yaml", "Deployment", "mysql", "replicas-too-few", "",
			"a single-instance MySQL on a ReadWriteOnce disk"},
		{"gke-samples/ai-ml/llm-serving-gemma/vllm/vllm-2b.yaml", "Deployment", "vllm-gemma-deployment", "replicas-with-hpa", "",
			"the HPAs naming vllm-gemma-deployment live in kubernetes-examples/AI/vllm-deployment/hpa/, another repository's example"},
		{"gke-samples/quickstarts/guestbook/frontend-deployment.yaml", "Deployment", "frontend", "replicas-with-hpa", "",
			"the HPAs naming frontend belong to other examples in other folders, no namespace"},
		{"metrics-server/master-kustomize-parts/manifests/components/high-availability/pdb.yaml", "PodDisruptionBudget", "metrics-server", "pdb-blocks-eviction", "",
			"the same component's patch.yaml raises replicas to 2, so minAvailable 1 leaves one pod evictable"},
		{"kubernetes-examples/_archived/sysdig-cloud/sysdig-rc.yaml", "ReplicationController", "sysdig-agent", "spread-missing", "",
			"hostNetwork with a hostPort: two pods can never share a node"},
		{"kubernetes-examples/_archived/storm/storm-worker-controller.yaml", "Deployment", "storm-worker-controller", "spread-missing", "",
			"host ports keep its pods on different nodes"},
		{"microservices-demo/release/kubernetes-manifests.yaml", "Deployment", "currencyservice", "spread-missing", "",
			"one replica; the HPAs naming it are another example's"},
		{"gke-samples/workloads/migrate-x86-app-to-multi-arch/k8s/overlays/multiarch/increase_replicas.yaml", "Deployment", "hello-deployment", "spread-missing", "",
			"a kustomize patch (no containers): the base it patches is judged, not the fragment"},
	})
}
