package network_test

import (
	"os"
	"sync"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// naCorpusDir is the shared corpus of real-world manifests.
const naCorpusDir = "../../../../shared/corpus"

var (
	naCorpusOnce   sync.Once
	naCorpusResult *checks.Result
	naCorpusErr    error
)

// naCorpus checks the whole corpus once (as `prodready check` does) and
// returns the result; it skips when the corpus is not present.
func naCorpus(t *testing.T) *checks.Result {
	t.Helper()
	if _, err := os.Stat(naCorpusDir); err != nil {
		t.Skip("../shared/corpus not present: " + err.Error())
	}
	naCorpusOnce.Do(func() {
		cfg := checks.DefaultConfig(catalog.Default())
		inputs, err := checks.Load([]string{naCorpusDir}, cfg, nil)
		if err != nil {
			naCorpusErr = err
			return
		}
		naCorpusResult = checks.Run(inputs, cfg, checks.Options{})
	})
	if naCorpusErr != nil {
		t.Fatal(naCorpusErr)
	}
	return naCorpusResult
}

// TestCorpusNoFalseAlarmsNetworkAccess lists corpus objects on which a
// naive form of a network/access or API/cluster rule fired although the
// YAML is legitimate; each names the narrowing that keeps it quiet.
func TestCorpusNoFalseAlarmsNetworkAccess(t *testing.T) {
	res := naCorpus(t)
	cases := []struct {
		file, kind, name, rule, why string
	}{
		// networkpolicy-missing
		{"fluxcd-examples/flux2-kustomize-helm-example/infrastructure/controllers/cert-manager.yaml", "Namespace", "cert-manager", "networkpolicy-missing",
			"the namespace's pods come from a HelmRelease beside it; the cert-manager Deployments of other repos are not its workloads"},
		{"kube-prometheus/manifests/setup/namespace.yaml", "Namespace", "monitoring", "networkpolicy-missing",
			"every workload under kube-prometheus/ has its NetworkPolicy; a prometheus-adapter of another repo in a namespace of the same name is not this namespace's"},
		{"radix-flux/components/third-party/istio/namespace.yaml", "Namespace", "istio-system", "networkpolicy-missing",
			"istio is installed by the HelmReleases of the same kustomization"},
		// service-selects-nothing
		{"argo-cd/manifests/ha/namespace-install.yaml", "Service", "argocd-redis-ha-announce-0", "service-selects-nothing",
			"selects statefulset.kubernetes.io/pod-name, which the StatefulSet controller adds to pods at run time"},
		{"gke-samples/ai-ml/gke-a100-jax/kubernetes/service.yaml", "Service", "service-name", "service-selects-nothing",
			"selects job-name, which the Job controller adds at run time"},
		{"gke-samples/databases/qdrant/manifests/02-values-file/ilb.yaml", "Service", "qdrant-ilb", "service-selects-nothing",
			"an extra load balancer in a folder without workloads: the pods come from a Helm chart"},
		{"kubernetes-examples/_archived/openshift-origin/etcd-service.yaml", "Service", "etcd", "service-selects-nothing",
			"its Deployment has a duplicate key (schema-invalid, no typed value); its pod labels are read from the YAML"},
		{"kubernetes-examples/_archived/storage/vitess/vtgate-service.yaml", "Service", "vtgate", "service-selects-nothing",
			"its workload is a sed template of the same repo (placeholders, read from the YAML)"},
		{"kubernetes-examples/AI/vllm-deployment/hpa/gpu-dcgm-exporter-service-gke.yaml", "Service", "gke-managed-dcgm-exporter", "service-selects-nothing",
			"a Service for the exporter GKE deploys, beside ServiceMonitors (monitoring resources keep a unit's Services unjudged)"},
		{"kubernetes-examples/AI/vllm-deployment/hpa/gpu-dcgm-exporter-service-generic.yaml", "Service", "gpu-dcgm-exporter-service", "service-selects-nothing",
			"a Service for an exporter a Helm chart deploys, beside ServiceMonitors"},
		// ingress-backend-missing
		{"ingress-nginx/docs/examples/openpolicyagent/tests/should-allow.yaml", "Ingress", "simple", "ingress-backend-missing",
			"an Ingress alone in its folder: its Services are deployed elsewhere"},
		// ingress-host-duplicate
		{"ingress-nginx/docs/examples/auth/oauth-external-auth/oauth2-proxy.yaml", "Ingress", "oauth2-proxy", "ingress-host-duplicate",
			"__INGRESS_HOST__ is a placeholder"},
		{"ingress-nginx/docs/examples/chashsubset/deployment.yaml", "Ingress", "nginxhello-ingress", "ingress-host-duplicate",
			"foo.bar.com is the documentation's sample host: the examples are alternatives, never deployed together"},
		// ingress-tls-missing
		{"ingress-nginx/docs/examples/auth/oauth-external-auth/vouch-proxy.yaml", "Ingress", "external-auth-oauth2", "ingress-tls-missing",
			"__INGRESS_HOST__ is a placeholder"},
		{"ingress-nginx/docs/examples/affinity/cookie/ingress.yaml", "Ingress", "nginx-test", "ingress-tls-missing",
			"stickyingress.example.com is reserved for documentation (RFC 2606)"},
		{"ingress-nginx/docs/examples/customization/external-auth-headers/echo-service.yaml", "Ingress", "public-demo-echo-service", "ingress-tls-missing",
			".local names get no public certificate"},
		// image-tag-mutable
		{"microservices-demo/kustomize/components/shopping-assistant/shoppingassistantservice.yaml", "Deployment", "shoppingassistantservice", "image-tag-mutable",
			"a bare build-time name in a kustomize component: skaffold/kustomize replace it"},
		{"gke-samples/workloads/migrate-x86-app-to-multi-arch/k8s/base/hello-deployment.yaml", "Deployment", "hello-deployment", "image-tag-mutable",
			"a bare build-time name in a kustomize base"},
		{"gke-samples/networking/grpc-gke-nlb-tutorial/echo-grpc/k8s/echo-deployment.yaml", "Deployment", "echo-grpc", "image-tag-mutable",
			"image echo-grpc is no Docker Hub official image: the tutorial's build replaces it"},
		// serviceaccount-shared
		{"istio-samples/samples/bookinfo/platform/kube/bookinfo.yaml", "Deployment", "reviews-v1", "serviceaccount-shared",
			"reviews-v1/v2/v3 are versions of one app (same app label)"},
		{"descheduler/kubernetes/deployment/deployment.yaml", "Deployment", "descheduler", "serviceaccount-shared",
			"the Deployment, CronJob and Job folders are alternative installs of one tool"},
		{"ingress-nginx/deploy/static/provider/cloud/deploy.yaml", "Job", "ingress-nginx-admission-create", "serviceaccount-shared",
			"the create and patch Jobs are parts of one component (same name and component labels)"},
		{"kyverno-install/v1.12.7/config/install-latest-testing.yaml", "CronJob", "kyverno-cleanup-admission-reports", "serviceaccount-shared",
			"the cleanup CronJobs are one component of one instance"},
		// rbac-cluster-admin-binding
		{"flux-install/gotk-components.yaml", "ClusterRoleBinding", "cluster-reconciler-flux-system", "rbac-cluster-admin-binding",
			"Flux's reconcilers need cluster-admin by design (default allowlist)"},
		// api-deprecated
		{"kubernetes-examples/_archived/volumes/glusterfs/glusterfs-endpoints.yaml", "Endpoints", "glusterfs-cluster", "api-deprecated",
			"v1 Endpoints is a GA kind deprecated in favour of another kind, not an apiVersion to change"},
	}
	for _, c := range cases {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			found := false
			for _, f := range res.Files {
				if f.Path != naCorpusDir+"/"+c.file {
					continue
				}
				for _, o := range f.Objects {
					found = found || (o.Kind == c.kind && o.Name == c.name)
				}
			}
			if !found {
				t.Fatalf("%s %s not found in %s: the corpus changed", c.kind, c.name, c.file)
			}
			for _, fd := range res.Findings {
				if fd.RuleID == c.rule && fd.File == naCorpusDir+"/"+c.file && fd.Object.Kind == c.kind && fd.Object.Name == c.name {
					t.Errorf("%s fired on %s %s (%s:%d) but must not: %s\n  message: %s", c.rule, c.kind, c.name, c.file, fd.Line, c.why, fd.Message)
				}
			}
		})
	}
}
