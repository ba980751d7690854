package shutdown_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestCorpusNoFalseAlarmsShutdown pins the narrowings of the shutdown rules
// on real manifests.
func TestCorpusNoFalseAlarmsShutdown(t *testing.T) {
	checkstest.RunCorpusCases(t, catalog.Default(), []checkstest.CorpusCase{
		{File: "istio-samples/samples/addons/prometheus.yaml", Kind: "Deployment", Name: "prometheus", Rule: "prestop-hook-missing", Container: "prometheus-server-configmap-reload",
			Why: "a config-reload sidecar declares no port the Service targets: it receives no traffic"},
		{File: "gke-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-github/wordpress/mysql-statefulset.yaml", Kind: "StatefulSet", Name: "mysql", Rule: "prestop-hook-missing", Container: "xtrabackup",
			Why: "the backup sidecar's port 3307 is not a Service target"},
		{File: "gke-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-github/wordpress/wordpress_deployment.yaml", Kind: "Deployment", Name: "wordpress", Rule: "prestop-hook-missing", Container: "cloudsql-proxy",
			Why: "the Cloud SQL proxy sidecar is not behind the Service"},
		{File: "gke-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-github/wordpress/wordpress_deployment.yaml", Kind: "Deployment", Name: "wordpress", Rule: "prestop-hook-missing", Container: "wordpress", Fire: true,
			Why: "the container behind the Service still needs a preStop hook"},
		{File: "gke-samples/databases/gke-stateful-mysql/kubernetes/c1-mysql.yaml", Kind: "StatefulSet", Name: "dbc1", Rule: "shell-wrapped-entrypoint",
			Why: "one command (a folded scalar): the shell execs it itself"},
		{File: "cert-manager/make/config/bind/deployment.yaml", Kind: "Deployment", Name: "bind", Rule: "shell-wrapped-entrypoint",
			Why: "the last command is already exec'd"},
		{File: "gke-samples/databases/gke-stateful-mysql/kubernetes/prepare-for-ha.yaml", Kind: "Deployment", Name: "prepare-three-zone-ha", Rule: "shell-wrapped-entrypoint",
			Why: "ends in a while loop, which exec cannot prefix"},
		{File: "gke-samples/troubleshooting/nfs-mount-workaround/daemonset.yaml", Kind: "DaemonSet", Name: "modify-mount", Rule: "shell-wrapped-entrypoint",
			Why: "ends in a loop (the exec inside a heredoc is not the script's)"},
		{File: "radix-flux/components/third-party/security-mitigation/kernel-lpe-mitigate.yaml", Kind: "DaemonSet", Name: "kernel-lpe-mitigate", Rule: "shell-wrapped-entrypoint", Fire: true,
			Why: "a script ending in `sleep infinity` keeps sh as PID 1"},
	})
}
