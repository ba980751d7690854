package network_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestCorpusNoFalseAlarmsNetworkAccess lists corpus objects on which a
// naive form of a network/access or API/cluster rule fired although the
// YAML is legitimate; each names the narrowing that keeps it quiet.
func TestCorpusNoFalseAlarmsNetworkAccess(t *testing.T) {
	checkstest.RunCorpusCases(t, catalog.Default(), []checkstest.CorpusCase{
		// networkpolicy-missing
		{File: "fluxcd-examples/flux2-kustomize-helm-example/infrastructure/controllers/cert-manager.yaml", Kind: "Namespace", Name: "cert-manager", Rule: "networkpolicy-missing",
			Why: "the namespace's pods come from a HelmRelease beside it; the cert-manager Deployments of other repos are not its workloads"},
		{File: "kube-prometheus/manifests/setup/namespace.yaml", Kind: "Namespace", Name: "monitoring", Rule: "networkpolicy-missing",
			Why: "every workload under kube-prometheus/ has its NetworkPolicy; a prometheus-adapter of another repo in a namespace of the same name is not this namespace's"},
		{File: "radix-flux/components/third-party/istio/namespace.yaml", Kind: "Namespace", Name: "istio-system", Rule: "networkpolicy-missing",
			Why: "istio is installed by the HelmReleases of the same kustomization"},
		// networkpolicy-selects-nothing
		{File: "kube-prometheus/manifests/prometheus-networkPolicy.yaml", Kind: "NetworkPolicy", Name: "prometheus-k8s", Rule: "networkpolicy-selects-nothing",
			Why: "selects the Prometheus pods the operator creates from the Prometheus resource of the same unit"},
		{File: "prometheus-operator/example/networkpolicies/alertmanager.yaml", Kind: "NetworkPolicy", Name: "alertmanager-web", Rule: "networkpolicy-selects-nothing",
			Why: "selects alertmanager: main, a key no pod template of the repository sets (the operator adds it)"},
		{File: "gke-samples/networking/network-policies/hello-allow-from-foo.yaml", Kind: "NetworkPolicy", Name: "hello-allow-from-foo", Rule: "networkpolicy-selects-nothing",
			Why: "a folder with no workloads: the tutorial starts its pods with kubectl run"},
		// statefulset-service-not-headless
		{File: "gke-samples/databases/gke-stateful-mysql/kubernetes/c1-mysql.yaml", Kind: "StatefulSet", Name: "dbc1", Rule: "statefulset-service-not-headless",
			Why: "its headless Service mysql is in the same file (other examples' mysql Services have cluster IPs)"},
		{File: "gke-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-local/app-v1/statefulset.yaml", Kind: "StatefulSet", Name: "my-nginx", Rule: "statefulset-service-not-headless", Fire: true,
			Why: "no Service named nginx in its folder: the headless one of kubernetes-examples is another example's"},
		// service-selects-nothing
		{File: "argo-cd/manifests/ha/namespace-install.yaml", Kind: "Service", Name: "argocd-redis-ha-announce-0", Rule: "service-selects-nothing",
			Why: "selects statefulset.kubernetes.io/pod-name, which the StatefulSet controller adds to pods at run time"},
		{File: "gke-samples/ai-ml/gke-a100-jax/kubernetes/service.yaml", Kind: "Service", Name: "service-name", Rule: "service-selects-nothing",
			Why: "selects job-name, which the Job controller adds at run time"},
		{File: "gke-samples/databases/qdrant/manifests/02-values-file/ilb.yaml", Kind: "Service", Name: "qdrant-ilb", Rule: "service-selects-nothing",
			Why: "an extra load balancer in a folder without workloads: the pods come from a Helm chart"},
		{File: "kubernetes-examples/_archived/openshift-origin/etcd-service.yaml", Kind: "Service", Name: "etcd", Rule: "service-selects-nothing",
			Why: "its Deployment has a duplicate key (schema-invalid, no typed value); its pod labels are read from the YAML"},
		{File: "kubernetes-examples/_archived/storage/vitess/vtgate-service.yaml", Kind: "Service", Name: "vtgate", Rule: "service-selects-nothing",
			Why: "its workload is a sed template of the same repo (placeholders, read from the YAML)"},
		{File: "kubernetes-examples/AI/vllm-deployment/hpa/gpu-dcgm-exporter-service-gke.yaml", Kind: "Service", Name: "gke-managed-dcgm-exporter", Rule: "service-selects-nothing",
			Why: "a Service for the exporter GKE deploys, beside ServiceMonitors (monitoring resources keep a unit's Services unjudged)"},
		{File: "kubernetes-examples/AI/vllm-deployment/hpa/gpu-dcgm-exporter-service-generic.yaml", Kind: "Service", Name: "gpu-dcgm-exporter-service", Rule: "service-selects-nothing",
			Why: "a Service for an exporter a Helm chart deploys, beside ServiceMonitors"},
		// ingress-backend-missing
		{File: "ingress-nginx/docs/examples/openpolicyagent/tests/should-allow.yaml", Kind: "Ingress", Name: "simple", Rule: "ingress-backend-missing",
			Why: "an Ingress alone in its folder: its Services are deployed elsewhere"},
		// ingress-host-duplicate
		{File: "ingress-nginx/docs/examples/auth/oauth-external-auth/oauth2-proxy.yaml", Kind: "Ingress", Name: "oauth2-proxy", Rule: "ingress-host-duplicate",
			Why: "__INGRESS_HOST__ is a placeholder"},
		{File: "ingress-nginx/docs/examples/chashsubset/deployment.yaml", Kind: "Ingress", Name: "nginxhello-ingress", Rule: "ingress-host-duplicate",
			Why: "foo.bar.com is the documentation's sample host: the examples are alternatives, never deployed together"},
		// ingress-tls-missing
		{File: "ingress-nginx/docs/examples/auth/oauth-external-auth/vouch-proxy.yaml", Kind: "Ingress", Name: "external-auth-oauth2", Rule: "ingress-tls-missing",
			Why: "__INGRESS_HOST__ is a placeholder"},
		{File: "ingress-nginx/docs/examples/affinity/cookie/ingress.yaml", Kind: "Ingress", Name: "nginx-test", Rule: "ingress-tls-missing",
			Why: "stickyingress.example.com is reserved for documentation (RFC 2606)"},
		{File: "ingress-nginx/docs/examples/customization/external-auth-headers/echo-service.yaml", Kind: "Ingress", Name: "public-demo-echo-service", Rule: "ingress-tls-missing",
			Why: ".local names get no public certificate"},
		// image-tag-mutable
		{File: "microservices-demo/kustomize/components/shopping-assistant/shoppingassistantservice.yaml", Kind: "Deployment", Name: "shoppingassistantservice", Rule: "image-tag-mutable",
			Why: "a bare build-time name in a kustomize component: skaffold/kustomize replace it"},
		{File: "gke-samples/workloads/migrate-x86-app-to-multi-arch/k8s/base/hello-deployment.yaml", Kind: "Deployment", Name: "hello-deployment", Rule: "image-tag-mutable",
			Why: "a bare build-time name in a kustomize base"},
		{File: "gke-samples/networking/grpc-gke-nlb-tutorial/echo-grpc/k8s/echo-deployment.yaml", Kind: "Deployment", Name: "echo-grpc", Rule: "image-tag-mutable",
			Why: "image echo-grpc is no Docker Hub official image: the tutorial's build replaces it"},
		// serviceaccount-shared
		{File: "istio-samples/samples/bookinfo/platform/kube/bookinfo.yaml", Kind: "Deployment", Name: "reviews-v1", Rule: "serviceaccount-shared",
			Why: "reviews-v1/v2/v3 are versions of one app (same app label)"},
		{File: "descheduler/kubernetes/deployment/deployment.yaml", Kind: "Deployment", Name: "descheduler", Rule: "serviceaccount-shared",
			Why: "the Deployment, CronJob and Job folders are alternative installs of one tool"},
		{File: "ingress-nginx/deploy/static/provider/cloud/deploy.yaml", Kind: "Job", Name: "ingress-nginx-admission-create", Rule: "serviceaccount-shared",
			Why: "the create and patch Jobs are parts of one component (same name and component labels)"},
		{File: "kyverno-install/v1.12.7/config/install-latest-testing.yaml", Kind: "CronJob", Name: "kyverno-cleanup-admission-reports", Rule: "serviceaccount-shared",
			Why: "the cleanup CronJobs are one component of one instance"},
		// rbac-cluster-admin-binding
		{File: "flux-install/gotk-components.yaml", Kind: "ClusterRoleBinding", Name: "cluster-reconciler-flux-system", Rule: "rbac-cluster-admin-binding",
			Why: "Flux's reconcilers need cluster-admin by design (default allowlist)"},
		// api-deprecated
		{File: "kubernetes-examples/_archived/volumes/glusterfs/glusterfs-endpoints.yaml", Kind: "Endpoints", Name: "glusterfs-cluster", Rule: "api-deprecated",
			Why: "v1 Endpoints is a GA kind deprecated in favour of another kind, not an apiVersion to change"},
	})
}
