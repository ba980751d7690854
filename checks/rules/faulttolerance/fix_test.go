package faulttolerance_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"

	"github.com/prodready/prodready/checks"
)

// ftFixRules are the rules of the health and fault-tolerance families that
// suggest fixes.
var ftFixRules = []string{
	"readiness-probe-missing", "liveness-probe-missing", "probes-identical", "liveness-probe-too-eager",
	"replicas-too-few", "replicas-with-hpa", "spread-missing", "spread-zone-missing",
	"pdb-blocks-eviction", "pdb-unhealthy-eviction-policy",
}

// TestFixesMakeRulesPassHealthFaultTolerance applies every fix of these
// rules in their fixture folders, one at a time: each finding goes, and
// the fixed object still decodes strictly.
func TestFixesMakeRulesPassHealthFaultTolerance(t *testing.T) {
	checkstest.FixesResolve(t, catalog.Default(), ftFixRules)
}

// TestPDBMissingMessageCarriesWorkingPDB adds the PodDisruptionBudget that
// pdb-missing's message carries as a new file and checks that the finding
// goes away and the PDB itself is valid and draws no PDB finding.
func TestPDBMissingMessageCarriesWorkingPDB(t *testing.T) {
	dir := filepath.Join(checkstest.RulesDir(t), "pdb-missing")
	cfg := checks.DefaultConfig(catalog.Default())
	inputs, err := checks.Load([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := checks.Run(inputs, cfg, checks.Options{})
	n := 0
	for _, f := range res.Findings {
		if f.RuleID != "pdb-missing" {
			continue
		}
		n++
		_, pdb, ok := strings.Cut(f.Message, "Add this PodDisruptionBudget:\n")
		if !ok {
			t.Fatalf("message carries no PDB: %s", f.Message)
		}
		added := append(append([]checks.Input{}, inputs...), checks.Input{Path: filepath.Join(dir, "new-pdb.yaml"), Data: []byte(pdb)})
		for _, g := range checks.Run(added, cfg, checks.Options{}).Findings {
			if (g.RuleID == "pdb-missing" && g.Object.Name == f.Object.Name) || (strings.HasSuffix(g.File, "new-pdb.yaml") && (strings.HasPrefix(g.RuleID, "pdb-") || g.RuleID == "schema-invalid")) {
				t.Errorf("with the suggested PDB added, still: %s %s\nPDB:\n%s", g.RuleID, g.Message, pdb)
			}
		}
	}
	if n == 0 {
		t.Fatal("no pdb-missing finding in the fixture")
	}
}

// TestFixPresenceHealthFaultTolerance pins where these families offer no
// fix on purpose (no guessed value that may not run).
func TestFixPresenceHealthFaultTolerance(t *testing.T) {
	tests := []struct {
		rule, file string
		line       int
		wantFix    bool
		why        string
	}{
		{"readiness-probe-missing", "app.yaml", 26, true, "tcpSocket on the first TCP port"},
		{"readiness-probe-missing", "app.yaml", 91, false, "UDP only: no TCP port for a tcpSocket probe"},
		{"replicas-too-few", "app.yaml", 16, true, "replicas: 3"},
		{"replicas-too-few", "app.yaml", 179, false, "a StatefulSet needs the app's clustering"},
		{"replicas-too-few", "app.yaml", 241, false, "a ReadWriteOnce claim cannot follow more replicas"},
		{"replicas-too-few", "app.yaml", 281, true, "a ReadWriteMany claim can"},
		{"replicas-too-few", "app.yaml", 148, false, "a single-instance datastore (redis): more replicas are more databases"},
		{"replicas-too-few", "app.yaml", 312, false, "a database by its -db name"},
		{"replicas-too-few", "app.yaml", 337, false, "grafana with no external database"},
		{"replicas-too-few", "app.yaml", 392, false, "data in an emptyDir: each replica would keep its own"},
		{"replicas-too-few", "app.yaml", 425, true, "scratch emptyDirs (/tmp, a cache) are not data"},
		{"replicas-too-few", "app.yaml", 458, false, "a claim not in the run: its access modes are unknown"},
		{"liveness-probe-missing", "app.yaml", 19, false, "the native sidecar has no TCP port"},
	}
	for _, tt := range tests {
		dir := filepath.Join(checkstest.RulesDir(t), tt.rule)
		inputs, err := checks.Load([]string{dir}, checks.DefaultConfig(catalog.Default()), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{}).Findings {
			if f.RuleID == tt.rule && filepath.Base(f.File) == tt.file && f.Line == tt.line {
				found = true
				if (f.Fix != nil) != tt.wantFix {
					t.Errorf("%s %s:%d: fix present = %v, want %v (%s)", tt.rule, tt.file, tt.line, f.Fix != nil, tt.wantFix, tt.why)
				}
			}
		}
		if !found {
			t.Errorf("%s %s:%d: no finding", tt.rule, tt.file, tt.line)
		}
	}
}

// TestReplicasTooFewThresholdParam checks the minReplicas parameter.
func TestReplicasTooFewThresholdParam(t *testing.T) {
	src := []byte(`apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "ghcr.io/example/web:1.0.0"}]
`)
	for _, tt := range []struct {
		config  string
		want    bool
		wantFix string
	}{
		{"", false, ""},
		{"rules: {replicas-too-few: {minReplicas: 3}}", true, "3"},
		{"rules: {replicas-too-few: {minReplicas: 4}}", true, "4"},
	} {
		cfg, err := checks.ParseConfig([]byte(tt.config), catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, f := range checks.Run([]checks.Input{{Path: "web.yaml", Data: src}}, cfg, checks.Options{}).Findings {
			if f.RuleID != "replicas-too-few" {
				continue
			}
			got = true
			if f.Fix == nil || len(f.Fix.Edits) != 1 || f.Fix.Edits[0].Value != tt.wantFix {
				t.Errorf("config %q: fix %+v, want replicas %s", tt.config, f.Fix, tt.wantFix)
			}
		}
		if got != tt.want {
			t.Errorf("config %q: fired = %v, want %v", tt.config, got, tt.want)
		}
	}
}

// TestPDBBlocksEvictionOptOut checks the two ways to say that a PDB that
// lets no pod be evicted is deliberate: the annotation on the PDB, and the
// rule parameter allowMaxUnavailableZero (which covers maxUnavailable 0
// only, not a minAvailable that covers every pod).
func TestPDBBlocksEvictionOptOut(t *testing.T) {
	pdb := func(name, annotations, spec string) string {
		return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: " + name + "\n" + annotations +
			"spec:\n  " + spec + "\n  selector: {matchLabels: {app: db}}\n---\n"
	}
	src := pdb("zero", "", "maxUnavailable: 0") +
		pdb("zero-percent", "", `maxUnavailable: "0%"`) +
		pdb("zero-annotated", "  annotations: {prodready.dev/allow-no-eviction: \"true\"}\n", "maxUnavailable: 0") +
		pdb("all", "", "minAvailable: 100%")
	for _, tt := range []struct {
		config string
		want   []string
	}{
		{"", []string{"zero", "zero-percent", "all"}},
		{"rules: {pdb-blocks-eviction: {allowMaxUnavailableZero: true}}", []string{"all"}},
	} {
		cfg, err := checks.ParseConfig([]byte(tt.config), catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range checks.Run([]checks.Input{{Path: "pdb.yaml", Data: []byte(src)}}, cfg, checks.Options{}).Findings {
			if f.RuleID == "pdb-blocks-eviction" {
				got = append(got, f.Object.Name)
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("config %q: fired on %v, want %v", tt.config, got, tt.want)
		}
	}
}

// TestHealthFaultToleranceOddInputs runs the rules over half-written
// objects: none may panic (a panic becomes an "internal error" finding).
func TestHealthFaultToleranceOddInputs(t *testing.T) {
	docs := []string{
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {}\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\nspec:\n  replicas: 3\n  selector: {}\n  template:\n    spec:\n      containers: [{name: c, ports: [{containerPort: 80, hostPort: 80}], readinessProbe: {}, livenessProbe: {}}]\n",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: c}\nspec:\n  replicas: 2\n  template:\n    metadata: {labels: {app: c}}\n    spec:\n      affinity: {podAntiAffinity: {}}\n      topologySpreadConstraints: [{}]\n      containers: [{name: c, readinessProbe: {initialDelaySeconds: 30}, livenessProbe: {httpGet: {port: 80}}}]\n      volumes: [{name: v, persistentVolumeClaim: {claimName: x}}]\n",
		"apiVersion: v1\nkind: ReplicationController\nmetadata: {name: d}\nspec: {replicas: 2}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: e}\nspec: {selector: {app: c}}\n",
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: f}\nspec: {maxReplicas: 3}\n",
		"apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: c}\nspec: {scaleTargetRef: {kind: StatefulSet, name: c}, minReplicas: 0, maxReplicas: 3}\n",
		"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: g}\n",
		"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: h}\nspec: {minAvailable: \"abc%\", selector: {matchLabels: {app: c}}}\n",
		"apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: i}\nspec: {maxUnavailable: \"x\", selector: {matchExpressions: [{key: app, operator: Bogus}]}}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: j}\n",
		"apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: k}\nspec: {scaleTargetRef: {}}\n",
		"apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: l}\nspec: {selector: {matchLabels: {}}, endpoints: [{}]}\n",
		"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nreplicas: [{}, {name: a, count: 2}]\n",
		"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: m}\nspec: {schedule: \"* * * * *\", jobTemplate: {spec: {template: {spec: {containers: [{name: m}]}}}}}\n",
	}
	cfg, err := checks.ParseConfig([]byte("rules: {pdb-unhealthy-eviction-policy: true}"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	var inputs []checks.Input
	for i, d := range docs {
		inputs = append(inputs, checks.Input{Path: "odd/" + strconv.Itoa(i) + ".yaml", Data: []byte(d)})
	}
	inputs = append(inputs, checks.Input{Path: "odd/all.yaml", Data: []byte(strings.Join(docs, "---\n"))})
	for _, f := range checks.Run(inputs, cfg, checks.Options{}).Findings {
		if strings.Contains(f.Message, "internal error") {
			t.Errorf("%s:%d %s: %s", f.File, f.Line, f.RuleID, f.Message)
		}
	}
}
