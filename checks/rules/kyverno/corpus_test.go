package kyverno

import (
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

// corpus is the shared corpus, relative to this package.
const corpus = "../../../../shared/corpus"

func skipWithoutCorpus(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("../shared/corpus not present: " + err.Error())
	}
}

// load parses the files under dirs (relative to the corpus) with a
// config text and returns the run's context and result.
func load(t *testing.T, cfgText string, dirs ...string) (*checks.Context, *checks.Result) {
	t.Helper()
	cfg, err := checks.ParseConfig([]byte(cfgText), sectionCatalog)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range dirs {
		paths = append(paths, path.Join(corpus, d))
	}
	inputs, err := checks.Load(paths, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := checks.Run(inputs, cfg, checks.Options{})
	var objects []*manifest.Object
	for _, f := range res.Files {
		objects = append(objects, f.Objects...)
	}
	return checks.NewContext(cfg, objects), res
}

// rel names a corpus file relative to kyverno-helm-values/.
func rel(p string) string {
	_, rel, _ := strings.Cut(p, "kyverno-helm-values/")
	return rel
}

// The config a repository holding these files would have: upstream's CI and
// e2e override files are for the chart on main, whose values.yaml is
// identical to 3.9.0's (corpus SOURCES.md). The chart-*/ folders need no
// config: their Chart.yaml names the version.
const corpusConfig = `helmValues:
  - {path: "kyverno-helm-values/main-*/**", chart: kyverno, version: 3.9.0}
`

// corpusGenerations is the generation of every values file of
// corpus/kyverno-helm-values (Doc 0 of each file; the 0-byte and
// comment-only files hold no document).
var corpusGenerations = map[string]int{
	"chart-2.3.4/values.yaml": 2,
	"chart-2.7.5/values.yaml": 2,
	"chart-3.0.0/values.yaml": 3,
	"chart-3.2.9/values.yaml": 3,
	"chart-3.9.0/values.yaml": 3,

	"main-ci-values/caCertsConfigMap-values.yaml":         3,
	"main-ci-values/cleanupController-values.yaml":        3,
	"main-ci-values/existingImagePullSecrets-values.yaml": 3,
	"main-ci-values/extraContainers-values.yaml":          3,
	"main-ci-values/hooks-values.yaml":                    3,
	"main-ci-values/imagePullSecrets-values.yaml":         3,
	"main-ci-values/imageRegistry-values.yaml":            3,
	"main-ci-values/lifecycle-values.yaml":                3,
	"main-ci-values/monitoring-values.yaml":               3,
	"main-ci-values/networkpolicy-values.yaml":            3,
	"main-ci-values/nodeSelector-global-values.yaml":      3,
	"main-ci-values/openreports-values.yaml":              3,
	"main-ci-values/replicas-values.yaml":                 3,
	"main-ci-values/reportsServer-values.yaml":            3,
	"main-ci-values/resourceFilters-values.yaml":          3,
	"main-ci-values/resourceFiltersInclude-values.yaml":   3,

	"main-e2e-overrides/custom-sigstore/kyverno.yaml":                      3,
	"main-e2e-overrides/default-with-profiling/kyverno.yaml":               3,
	"main-e2e-overrides/dev/kyverno.yaml":                                  3,
	"main-e2e-overrides/exclude-result/kyverno.yaml":                       3,
	"main-e2e-overrides/force-failure-policy-ignore/kyverno.yaml":          3,
	"main-e2e-overrides/generate-mutating-admission-policy/kyverno.yaml":   3,
	"main-e2e-overrides/generate-validating-admission-policy/kyverno.yaml": 3,
	"main-e2e-overrides/kyverno-cleanup/kyverno.yaml":                      3,
	"main-e2e-overrides/mutating-admission-policy-reports/kyverno.yaml":    3,
	"main-e2e-overrides/openreports/kyverno.yaml":                          3,
	"main-e2e-overrides/resources/kyverno.yaml":                            3,
	"main-e2e-overrides/service-monitor/kyverno.yaml":                      3,
	"main-e2e-overrides/sigstore-custom-tuf/kyverno.yaml":                  3,
	"main-e2e-overrides/standard-with-profiling/kyverno.yaml":              3,
	"main-e2e-overrides/standard/kyverno.yaml":                             3,
	"main-e2e-overrides/ttl/kyverno.yaml":                                  3,
	"main-e2e-overrides/validating-admission-policy-reports/kyverno.yaml":  3,
}

// corpusNoDocument are values files with no document to classify.
var corpusNoDocument = map[string]bool{
	"main-ci-values/default-values.yaml":      true, // comment only
	"main-e2e-overrides/default/kyverno.yaml": true, // 0 bytes
}

// corpusInferred is the generation inferred when the config names the
// chart without a version: 3 when the file uses admissionController or
// another key only 3.x charts have, else 0 (version-specific rules skip it).
var corpusInferred = map[string]int{
	"main-ci-values/caCertsConfigMap-values.yaml":         3, // global
	"main-ci-values/cleanupController-values.yaml":        0, // 2.7 has cleanupController too
	"main-ci-values/existingImagePullSecrets-values.yaml": 0,
	"main-ci-values/extraContainers-values.yaml":          3,
	"main-ci-values/hooks-values.yaml":                    0,
	"main-ci-values/imagePullSecrets-values.yaml":         0,
	"main-ci-values/imageRegistry-values.yaml":            3,
	"main-ci-values/lifecycle-values.yaml":                3,
	"main-ci-values/monitoring-values.yaml":               3,
	"main-ci-values/networkpolicy-values.yaml":            0,
	"main-ci-values/nodeSelector-global-values.yaml":      3,
	"main-ci-values/openreports-values.yaml":              3,
	"main-ci-values/replicas-values.yaml":                 3,
	"main-ci-values/reportsServer-values.yaml":            3,
	"main-ci-values/resourceFilters-values.yaml":          0,
	"main-ci-values/resourceFiltersInclude-values.yaml":   0,
	"main-e2e-overrides/kyverno-cleanup/kyverno.yaml":     0,
	"main-e2e-overrides/ttl/kyverno.yaml":                 0,
}

func TestKyvCorpusValuesGeneration(t *testing.T) {
	skipWithoutCorpus(t)
	ctx, _ := load(t, corpusConfig, "kyverno-helm-values")
	got := map[string]int{}
	docs := map[string]bool{}
	for _, o := range ctx.Objects() {
		rel := rel(o.File.Path)
		if !isValuesDoc(o) {
			continue
		}
		docs[rel] = true
		vs := valuesOf(ctx, o)
		if len(vs) != 1 {
			t.Errorf("%s doc %d: recognised %d times as Kyverno values, want once", rel, o.Doc, len(vs))
			continue
		}
		if o.Doc == 0 {
			got[rel] = vs[0].Gen
		} else if vs[0].Gen != got[rel] {
			t.Errorf("%s doc %d: generation %d differs from doc 0's %d", rel, o.Doc, vs[0].Gen, got[rel])
		}
		if strings.HasPrefix(rel, "chart-") != vs[0].ChartOwn {
			t.Errorf("%s: ChartOwn = %v", rel, vs[0].ChartOwn)
		}
	}
	for rel, want := range corpusGenerations {
		if got[rel] != want {
			t.Errorf("%s: generation %d, want %d", rel, got[rel], want)
		}
	}
	for rel := range got {
		if _, ok := corpusGenerations[rel]; !ok {
			t.Errorf("%s: values file not in the table (generation %d)", rel, got[rel])
		}
	}
	// Every values file of the folder is either classified or has no document.
	_ = walkFiles(t, path.Join(corpus, "kyverno-helm-values"), func(rel string) {
		if path.Base(rel) == "Chart.yaml" {
			return
		}
		if _, ok := corpusGenerations[rel]; !ok && !corpusNoDocument[rel] {
			t.Errorf("%s: not classified", rel)
		}
		if corpusNoDocument[rel] && docs[rel] {
			t.Errorf("%s: expected no document", rel)
		}
	})

	// Without a version, the generation is inferred from the keys.
	ctx, _ = load(t, "helmValues:\n  - {path: \"kyverno-helm-values/main-*/**\", chart: kyverno}\n", "kyverno-helm-values")
	for _, o := range ctx.Objects() {
		rel := rel(o.File.Path)
		if !strings.HasPrefix(rel, "main-") || !isValuesDoc(o) || o.Doc != 0 {
			continue
		}
		want, ok := corpusInferred[rel]
		if !ok {
			want = 3
		}
		if vs := valuesOf(ctx, o); len(vs) != 1 || vs[0].Gen != want {
			t.Errorf("%s without a version: inferred generation %v, want %d", rel, gens(vs), want)
		}
	}
}

func gens(vs []*values) []int {
	var out []int
	for _, v := range vs {
		out = append(out, v.Gen)
	}
	return out
}

// walkFiles calls fn with every .yaml file under root, relative to
// kyverno-helm-values/.
func walkFiles(t *testing.T, root string, fn func(rel string)) error {
	t.Helper()
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			if e.IsDir() {
				walk(p)
			} else if strings.HasSuffix(p, ".yaml") {
				fn(rel(p))
			}
		}
	}
	walk(root)
	return nil
}

// corpusValuesFindings are the only helm-values-unknown-key and
// kyverno-values-mixed-generation findings on the corpus values: each is a
// key chart 3.9.0 (main) really does not read.
var corpusValuesFindings = []string{
	// upstream CI still uses the 2.x spelling; 3.x templates read webhooksCleanup.enabled
	"helm-values-unknown-key main-ci-values/hooks-values.yaml:3",
	// 3.x reads admissionController.networkPolicy; top-level networkPolicy is 2.x
	"helm-values-unknown-key main-ci-values/networkpolicy-values.yaml:2",
	// 3.x moved logging to features.logging; <controller>.logging is a 2.7 leftover
	"helm-values-unknown-key main-e2e-overrides/dev/kyverno.yaml:18",
	"helm-values-unknown-key main-e2e-overrides/dev/kyverno.yaml:45",
	"helm-values-unknown-key main-e2e-overrides/dev/kyverno.yaml:57",
	// the admission-controller deployment ranges over admissionController.container.extraArgs only
	"helm-values-unknown-key main-e2e-overrides/exclude-result/kyverno.yaml:15",
	"helm-values-unknown-key main-e2e-overrides/openreports/kyverno.yaml:27",
	"helm-values-unknown-key main-e2e-overrides/standard-with-profiling/kyverno.yaml:8",
	"helm-values-unknown-key main-e2e-overrides/standard/kyverno.yaml:14",
}

// haRule are the rules that judge a vendored chart's own values.yaml: its
// defaults are what a repository holding the chart installs.
var haRule = map[string]bool{"kyverno-replicas": true, "kyverno-pdb": true, "kyverno-resources": true, "kyverno-spread": true, "kyverno-controller-resources": true, "kyverno-webhook-blocked-by-networkpolicy": true}

func TestCorpusNoFalseAlarmsKyvernoValues(t *testing.T) {
	skipWithoutCorpus(t)
	_, res := load(t, corpusConfig, "kyverno-helm-values")
	var got []string
	for _, f := range res.Findings {
		if f.RuleID == "helm-values-unknown-key" || f.RuleID == "kyverno-values-mixed-generation" {
			got = append(got, f.RuleID+" "+rel(f.File)+":"+strconv.Itoa(f.Line))
		}
		if strings.HasPrefix(rel(f.File), "chart-") && strings.HasPrefix(f.RuleID, "kyverno-") && !haRule[f.RuleID] {
			t.Errorf("the chart's own defaults are judged by a rule other than the HA rules: %s:%d %s", f.File, f.Line, f.RuleID)
		}
	}
	sort.Strings(got)
	want := append([]string{}, corpusValuesFindings...)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("unknown-key findings on the corpus values:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// familyRules are this family's rule IDs.
var familyRules = map[string]bool{
	"kyverno-values-mixed-generation": true, "helm-values-unknown-key": true, "kyverno-replicas": true,
	"kyverno-pdb": true, "kyverno-spread": true, "kyverno-resources": true, "kyverno-controller-resources": true,
	"kyverno-metrics-disabled": true, "kyverno-fail-open": true, "kyverno-webhook-blocked-by-networkpolicy": true,
	"kyverno-in-kube-system": true, "kyverno-ha-invisible": true, "webhook-timeout": true,
	"webhook-fail-closed-not-ha": true, "webhook-kube-system-not-excluded": true,
}

// corpusMustNotFire lists real objects on which a rule must stay
// silent: corpus folder, file, a text the finding's message would contain
// (the webhook or object name; "" for any), the rule, and why.
var corpusMustNotFire = []struct {
	dir, file, msgHas, rule, why string
}{
	{"kyverno-install", "", "", "*", "Kyverno's own install manifests: installed in kyverno, webhooks registered at runtime, replicas visible"},
	{"fluxcd-examples", "flux2-multi-tenancy/infrastructure/kyverno-policies/verify-flux-images.yaml", "", "webhook-timeout", "an image-verification policy needs its 30s timeout"},
	{"fluxcd-examples", "flux2-multi-tenancy/infrastructure/kyverno-policies/verify-git-repositories.yaml", "", "*", "a plain fail-closed validate policy"},
	{"cert-manager", "make/config/kyverno/policy.yaml", "", "*", "a Kyverno policy without fail-open or timeout settings"},
	{"kubeflow-vendored", "common/istio/istio-install/base/install.yaml", `"object.sidecar-injector.istio.io"`, "webhook-kube-system-not-excluded", "objectSelector sidecar.istio.io/inject=true: only opted-in pods are intercepted"},
	{"kubeflow-vendored", "common/istio/istio-install/base/install.yaml", `"rev.object.sidecar-injector.istio.io"`, "webhook-kube-system-not-excluded", "objectSelector on istio.io/rev: only opted-in pods are intercepted"},
	{"kubeflow-vendored", "common/istio/istio-install/base/install.yaml", `"namespace.sidecar-injector.istio.io"`, "webhook-kube-system-not-excluded", "namespaceSelector istio-injection=enabled does not match kube-system"},
	{"flux-install", "", "", "*", "Flux's controllers register no admission webhooks"},
	{"helm-values", "", "", "*", "values files of other charts are not Kyverno's"},
}

func TestCorpusNoFalseAlarmsKyverno(t *testing.T) {
	skipWithoutCorpus(t)
	dirs := map[string]bool{}
	for _, c := range corpusMustNotFire {
		dirs[c.dir] = true
	}
	for dir := range dirs {
		_, res := load(t, "", dir)
		for _, c := range corpusMustNotFire {
			if c.dir != dir {
				continue
			}
			for _, f := range res.Findings {
				if !familyRules[f.RuleID] || (c.rule != "*" && f.RuleID != c.rule) {
					continue
				}
				if c.file != "" && !strings.HasSuffix(f.File, c.file) {
					continue
				}
				if c.msgHas != "" && !strings.Contains(f.Message, c.msgHas) {
					continue
				}
				t.Errorf("%s:%d %s fired (%s): %s", f.File, f.Line, f.RuleID, c.why, f.Message)
			}
		}
	}
}

// One install manifest per provider folder: the fail-closed webhook is
// matched to the Service and Deployment of its own folder, so each copy is
// reported once, not once per copy in the repository.
func TestCorpusKyvWebhookMatchesItsOwnUnit(t *testing.T) {
	skipWithoutCorpus(t)
	_, res := load(t, "", "ingress-nginx")
	perFile := map[string]int{}
	for _, f := range res.Findings {
		if f.RuleID == "webhook-fail-closed-not-ha" {
			perFile[f.File]++
		}
	}
	if len(perFile) == 0 {
		t.Fatal("expected the ingress-nginx admission webhook (1 replica, fail-closed) to be reported")
	}
	for file, n := range perFile {
		if n != 1 {
			t.Errorf("%s: %d webhook-fail-closed-not-ha findings, want 1", file, n)
		}
	}
}
