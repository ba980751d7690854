package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prodready/prodready/checks"
)

// sdCorpusDir is the shared corpus of real-world manifests, relative to
// this package (../shared from the worktree root).
const sdCorpusDir = "../../shared/corpus"

// sdCorpusCase is one object of the corpus on which a rule must not fire
// (Fire false) or must still fire (Fire true, keeping the narrowing honest).
type sdCorpusCase struct {
	File, Kind, Name, Rule string
	// Container, when set, limits the case to findings naming this
	// container (`container "x"` in the message).
	Container string
	Fire      bool
	Why       string
}

var sdCorpus struct {
	once     sync.Once
	findings []checks.Finding
	err      error
}

// sdCorpusFindings checks the whole corpus once (every rule, opt-in rules
// included) and returns the findings, or skips when the corpus is absent.
func sdCorpusFindings(t *testing.T) []checks.Finding {
	t.Helper()
	if _, err := os.Stat(sdCorpusDir); err != nil {
		t.Skip("../shared/corpus not present: " + err.Error())
	}
	sdCorpus.once.Do(func() {
		var cfg strings.Builder
		cfg.WriteString("rules:\n")
		for _, r := range checks.DefaultCatalog().Rules() {
			if r.OptIn && r.ID != "required-labels-missing" {
				cfg.WriteString("  " + r.ID + ": true\n")
			}
		}
		c, err := checks.ParseConfig([]byte(cfg.String()), checks.DefaultCatalog())
		if err != nil {
			sdCorpus.err = err
			return
		}
		inputs, err := checks.Load([]string{sdCorpusDir}, c, nil)
		if err != nil {
			sdCorpus.err = err
			return
		}
		sdCorpus.findings = checks.Run(inputs, c, checks.Options{}).Findings
	})
	if sdCorpus.err != nil {
		t.Fatal(sdCorpus.err)
	}
	return sdCorpus.findings
}

// sdRunCorpusCases asserts each case against the corpus findings.
func sdRunCorpusCases(t *testing.T, cases []sdCorpusCase) {
	fs := sdCorpusFindings(t)
	for _, c := range cases {
		if _, err := os.Stat(filepath.Join(sdCorpusDir, c.File)); err != nil {
			t.Errorf("%s: corpus file missing: %v", c.File, err)
			continue
		}
		var hits []string
		for _, f := range fs {
			if f.RuleID != c.Rule || !strings.HasSuffix(filepath.ToSlash(f.File), "/"+c.File) || f.Object.Kind != c.Kind || f.Object.Name != c.Name {
				continue
			}
			if c.Container != "" && !strings.Contains(f.Message, `container "`+c.Container+`"`) {
				continue
			}
			hits = append(hits, f.Message)
		}
		switch {
		case c.Fire && len(hits) == 0:
			t.Errorf("%s %s/%s: %s no longer fires (%s)", c.File, c.Kind, c.Name, c.Rule, c.Why)
		case !c.Fire && len(hits) > 0:
			t.Errorf("%s %s/%s: false alarm %s (%s): %s", c.File, c.Kind, c.Name, c.Rule, c.Why, hits[0])
		}
	}
}

// TestCorpusNoFalseAlarmsShutdown pins the narrowings of the shutdown rules
// on real manifests.
func TestCorpusNoFalseAlarmsShutdown(t *testing.T) {
	sdRunCorpusCases(t, []sdCorpusCase{
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
