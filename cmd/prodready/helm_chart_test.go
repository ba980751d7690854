package main

import (
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
)

// chartDir is prodready's own Helm chart.
const chartDir = "deploy/helm/prodready"

// TestHelmChartPassesItsOwnCheck runs what a user runs on the chart, as a
// process: `prodready check --fail-on info deploy/helm/prodready` renders
// it with values.yaml and each ci/*-values.yaml (the NATS sub-chart, one
// replica with the embedded server, the ServiceMonitor) and finds nothing
// at any severity; the JUnit report lists the objects the default values
// make, so the pass is about a rendered chart and not an empty one.
func TestHelmChartPassesItsOwnCheck(t *testing.T) {
	out, errOut, code := runCLI(t, "../..", "check", "--fail-on", "info", chartDir)
	if code != 0 || !strings.Contains(out, "0 errors, 0 warnings, 0 info") || strings.Contains(out, "not checked") {
		t.Fatalf("prodready check --fail-on info %s: exit %d\n%s%s", chartDir, code, out, errOut)
	}
	junit, errOut, code := runCLI(t, "../..", "check", "--fail-on", "info", "--format", "junit", chartDir)
	if code != 0 {
		t.Fatalf("--format junit: exit %d\n%s%s", code, junit, errOut)
	}
	validJenkinsJUnit(t, junit)
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(junit), &doc); err != nil {
		t.Fatalf("JUnit report: %v\n%s", err, junit)
	}
	var got []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			got = append(got, c.Name)
		}
	}
	for _, want := range []string{
		"Deployment default/release-prodready", "PodDisruptionBudget default/release-prodready",
		"NetworkPolicy default/release-prodready", "NetworkPolicy default/release-prodready-default-deny",
		"Service default/release-prodready", "ServiceAccount default/release-prodready", "ConfigMap default/release-prodready",
		"StatefulSet default/release-nats", "PodDisruptionBudget default/release-nats", "NetworkPolicy default/release-nats",
		"Service default/release-nats", "Service default/release-nats-headless",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("checked objects lack %q: %v", want, got)
		}
	}
}

// TestHelmChartObjects renders the chart with each values set as check
// does (checks/render) and holds it to the kustomize base's shape: three
// replicas spread over nodes and zones behind a PDB with the NATS cluster;
// one replica, a Recreate strategy and a volume without it; a
// ServiceMonitor only when asked for; and a refusal of several replicas
// sharing the embedded server.
func TestHelmChartObjects(t *testing.T) {
	files, err := rendered.ReadDir("../../" + chartDir)
	if err != nil {
		t.Fatal(err)
	}
	renderWith := func(values ...string) string {
		t.Helper()
		r := render.RenderChart(context.Background(), files, "", values, rendered.Options{})
		if len(r.Problems) > 0 {
			t.Fatalf("render with %v: %v", values, r.Problems)
		}
		return string(r.Stream)
	}
	has := func(stream, re string) bool { return regexp.MustCompile(re).MatchString(stream) }

	def := renderWith()
	for _, re := range []string{
		`(?m)^kind: Deployment$`, `(?m)^  replicas: 3$`, `topologyKey: kubernetes.io/hostname`, `topologyKey: topology.kubernetes.io/zone`,
		`(?m)^kind: PodDisruptionBudget$`, `(?m)^kind: NetworkPolicy$`, `(?m)^kind: StatefulSet$`,
		`PRODREADY_NATS_URL: nats://release-nats:4222`, `nats://release-nats-2\.release-nats-headless\.default\.svc\.cluster\.local:6222`,
		`(?m)^        - port: 4222$`,
		`values: \["release", "release-nats"\]`, // the default deny covers both
	} {
		if !has(def, re) {
			t.Errorf("values.yaml render lacks %s", re)
		}
	}
	if has(def, `kind: ServiceMonitor`) || has(def, `kind: PersistentVolumeClaim`) {
		t.Error("values.yaml render has a ServiceMonitor or a claim")
	}

	single := renderWith("ci/single-values.yaml")
	for _, re := range []string{`(?m)^  replicas: 1$`, `type: Recreate`, `(?m)^kind: PersistentVolumeClaim$`, `PRODREADY_DATA_DIR: /var/lib/prodready`} {
		if !has(single, re) {
			t.Errorf("single render lacks %s", re)
		}
	}
	if has(single, `kind: StatefulSet`) || has(single, `PRODREADY_NATS_URL`) || has(single, `kind: PodDisruptionBudget`) {
		t.Error("single render still has the NATS cluster or a PDB of one replica")
	}

	mon := renderWith("ci/monitoring-values.yaml")
	for _, re := range []string{`(?m)^kind: ServiceMonitor$`, `release: kube-prometheus-stack`, `path: /metrics`, `--gitlab-token-file=`, `kubernetes.io/metadata.name: ingress-nginx`} {
		if !has(mon, re) {
			t.Errorf("monitoring render lacks %s", re)
		}
	}

	bad := render.RenderChart(context.Background(), withValues(files, "too-many.yaml", "replicaCount: 2\nnats: {enabled: false}\n"), "", []string{"too-many.yaml"}, rendered.Options{})
	if len(bad.Problems) == 0 || !strings.Contains(bad.Problems[0].Message, "needs the NATS cluster") {
		t.Errorf("2 replicas without NATS: problems %v, want the chart's refusal", bad.Problems)
	}
}

// withValues is files with one more file.
func withValues(files rendered.Files, name, text string) rendered.Files {
	out := rendered.Files{name: []byte(text)}
	for k, v := range files {
		out[k] = v
	}
	return out
}

// validJenkinsJUnit validates a JUnit report of the binary against Jenkins'
// junit-10.xsd (checks/report/testdata) with xmllint, when it is installed.
func validJenkinsJUnit(t *testing.T, report string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Log("xmllint is not installed (apt-get install libxml2-utils): the JUnit report is not validated against junit-10.xsd")
		return
	}
	f := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(f, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(xmllint, "--noout", "--schema", "../../checks/report/testdata/junit-10.xsd", f).CombinedOutput(); err != nil {
		t.Errorf("the binary's JUnit report is not valid under junit-10.xsd: %v\n%s", err, out)
	}
}
