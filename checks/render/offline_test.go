package render

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// loopback is an HTTP server on the loopback interface that counts the
// requests it receives and answers each with a ConfigMap (what a fetched
// patch or resource would hold).
func loopback(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\ndata: {secret: from-the-metadata-service}\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestKustomizeURLsRefusedInEveryPathField gives every path-taking field of
// a kustomization (and of the builtin plugins' configurations, Components
// and bases it reaches) a URL on a loopback server: each is refused before
// krusty runs, naming the field, and the server receives nothing.
func TestKustomizeURLsRefusedInEveryPathField(t *testing.T) {
	srv, hits := loopback(t)
	u := srv.URL + "/x.yaml"
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	for _, c := range []struct {
		name  string
		kust  string            // app/kustomization.yaml
		extra map[string]string // other files
		field string            // the field the problem must name
	}{
		{"resources", "resources:\n- cm.yaml\n- " + u + "\n", nil, "resources[1]"},
		{"bases", "resources:\n- cm.yaml\nbases:\n- " + u + "\n", nil, "bases[0]"},
		{"components", "resources:\n- cm.yaml\ncomponents:\n- " + u + "\n", nil, "components[0]"},
		{"patchesStrategicMerge", "resources:\n- cm.yaml\npatchesStrategicMerge:\n- " + u + "\n", nil, "patchesStrategicMerge[0]"},
		{"patchesJson6902", "resources:\n- cm.yaml\npatchesJson6902:\n- target: {version: v1, kind: ConfigMap, name: c}\n  path: " + u + "\n", nil, "patchesJson6902[0].path"},
		{"patches", "resources:\n- cm.yaml\npatches:\n- patch: |\n    - op: add\n      path: /data\n      value: {}\n  target: {kind: ConfigMap}\n- path: " + u + "\n", nil, "patches[1].path"},
		{"configMapGenerator files", "configMapGenerator:\n- name: g\n  files:\n  - cm.yaml\n  - " + u + "\n", nil, "configMapGenerator[0].files[1]"},
		{"configMapGenerator files key=path", "configMapGenerator:\n- name: g\n  files:\n  - token=" + u + "\n", nil, "configMapGenerator[0].files[0]"},
		{"configMapGenerator envs", "configMapGenerator:\n- name: g\n  envs:\n  - " + u + "\n", nil, "configMapGenerator[0].envs[0]"},
		{"configMapGenerator env", "configMapGenerator:\n- name: g\n  literals: [a=b]\n- name: h\n  envs: [app.env]\n  env: " + u + "\n", map[string]string{"app/app.env": "A=1\n"}, "configMapGenerator[1].env"},
		{"secretGenerator files", "secretGenerator:\n- name: s\n  files:\n  - " + u + "\n", nil, "secretGenerator[0].files[0]"},
		{"secretGenerator envs", "secretGenerator:\n- name: s\n  envs:\n  - " + u + "\n", nil, "secretGenerator[0].envs[0]"},
		{"replacements", "resources:\n- cm.yaml\nreplacements:\n- path: r.yaml\n- path: r.yaml\n- path: " + u + "\n", map[string]string{"app/r.yaml": "source: {kind: ConfigMap, name: c}\ntargets: []\n"}, "replacements[2].path"},
		{"openapi", "resources:\n- cm.yaml\nopenapi:\n  path: " + u + "\n", nil, "openapi.path"},
		{"configurations", "resources:\n- cm.yaml\nconfigurations:\n- " + u + "\n", nil, "configurations[0]"},
		{"crds", "resources:\n- cm.yaml\ncrds:\n- " + u + "\n", nil, "crds[0]"},
		{"generators", "generators:\n- " + u + "\n", nil, "generators[0]"},
		{"transformers", "resources:\n- cm.yaml\ntransformers:\n- " + u + "\n", nil, "transformers[0]"},
		{"validators", "resources:\n- cm.yaml\nvalidators:\n- " + u + "\n", nil, "validators[0]"},
		{"inline PatchTransformer path", "resources:\n- cm.yaml\ntransformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: p}\n  path: " + u + "\n", nil, "transformers[0].path"},
		{"inline ConfigMapGenerator files", "generators:\n- |\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n  metadata: {name: g}\n  files:\n  - k=" + u + "\n", nil, "generators[0].files[0]"},
		{"ReplacementTransformer file", "resources:\n- cm.yaml\ntransformers:\n- repl.yaml\n", map[string]string{"app/repl.yaml": "apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: r}\nreplacements:\n- path: " + u + "\n"}, "transformers[0].replacements[0].path"},
		{"ValueAddTransformer", "resources:\n- cm.yaml\ntransformers:\n- |\n  apiVersion: builtin\n  kind: ValueAddTransformer\n  metadata: {name: v}\n  value: x\n  targetFilePath: " + u + "\n", nil, "transformers[0].targetFilePath"},
		{"Component reached through components", "resources:\n- cm.yaml\ncomponents:\n- ../comp\n", map[string]string{"comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: " + u + "\n"}, "patches[0].path"},
		{"base reached through resources", "resources:\n- ../base\n", map[string]string{"base/kustomization.yaml": "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: g\n  files:\n  - " + u + "\n", "base/cm.yaml": cm}, "configMapGenerator[0].files[0]"},
		{"key in another case", "Resources:\n- cm.yaml\nPatches:\n- Path: " + u + "\n", nil, "patches[0].path"},
		{"scheme in capitals", "resources:\n- cm.yaml\npatches:\n- path: " + strings.Replace(u, "http://", "HTTP://", 1) + "\n", nil, "patches[0].path"},
		{"scheme without slashes", "resources:\n- cm.yaml\npatches:\n- path: http:" + strings.TrimPrefix(u, "http://") + "\n", nil, "patches[0].path"},
		{"multi-line generator entry", "generators:\n- |\n  " + u + "\n  x\n", nil, "generators[0]"},
		{"helmChartInflationGenerator", "helmChartInflationGenerator:\n- chartName: x\n  chartRepoUrl: " + u + "\n", nil, "helm"},
		{"builtin HelmChartInflationGenerator", "generators:\n- |\n  apiVersion: builtin\n  kind: HelmChartInflationGenerator\n  metadata: {name: h}\n  additionalValuesFiles: [" + u + "]\n", nil, "generators[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := rendered.Files{"app/kustomization.yaml": []byte(c.kust), "app/cm.yaml": []byte(cm)}
			for p, d := range c.extra {
				files[p] = []byte(d)
			}
			r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
			if n := hits.Load(); n != 0 {
				t.Fatalf("the loopback server received %d requests", n)
			}
			found := false
			for _, p := range r.Problems {
				if strings.HasPrefix(p.Message, c.field) && p.Line > 0 {
					found = true
				}
			}
			if !found {
				t.Errorf("problems %+v name no %s at a line", r.Problems, c.field)
			}
			if len(r.Documents) != 0 {
				t.Errorf("refused overlay rendered %d documents", len(r.Documents))
			}
		})
	}
}

// TestKustomizeGitReferencesRefused checks that what kustomize's git cloner
// takes for a repository is refused, also where the pull request adds a
// folder of that name with a kustomization in it (the walk would otherwise
// take it for a local base, and krusty run git).
func TestKustomizeGitReferencesRefused(t *testing.T) {
	for _, ref := range []string{
		"github.com/org/repo//deploy?ref=v1",
		"GitHub.com/org/repo",
		"git@github.com:org/repo",
		"me@example.com/org/repo",
		"ssh://git@example.com/org/repo",
		"git::https://example.com/org/repo",
		"file:///srv/repo",
		"oci://example.com/x",
		"s3://bucket/x",
	} {
		files := rendered.Files{
			"app/kustomization.yaml":                     []byte("resources:\n- " + ref + "\n"),
			"app/" + ref + "/kustomization.yaml":         []byte("resources:\n- cm.yaml\n"),
			"app/" + ref + "/cm.yaml":                    []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
			"app/github.com/org/repo/kustomization.yaml": []byte("resources: []\n"),
		}
		r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
		if len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0].Message, "resources[0]: ") || !strings.Contains(r.Problems[0].Message, "remote resource") {
			t.Errorf("%s: problems = %+v, want resources[0] refused as remote", ref, r.Problems)
		}
	}
}

// TestKustomizeMissingPathsRefused checks that a path-taking entry naming a
// file the set lacks is refused rather than built as an empty file.
func TestKustomizeMissingPathsRefused(t *testing.T) {
	for _, c := range []struct{ kust, field string }{
		{"resources:\n- cm.yaml\npatches:\n- path: gone.yaml\n", "patches[0].path"},
		{"configMapGenerator:\n- name: g\n  files: [k=gone.conf]\n", "configMapGenerator[0].files[0]"},
		{"resources:\n- cm.yaml\npatchesStrategicMerge:\n- gone.yaml\n", "patchesStrategicMerge[0]"},
		{"resources:\n- cm.yaml\nreplacements:\n- path: /etc/passwd\n", "replacements[0].path"},
	} {
		files := rendered.Files{"app/kustomization.yaml": []byte(c.kust), "app/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")}
		r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
		if len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0].Message, c.field+": ") {
			t.Errorf("%q: problems = %+v, want one naming %s", c.kust, r.Problems, c.field)
		}
	}
	// A generator's folder is refused (kustomize wants a file); a file in a
	// folder and an inline patch are read.
	files := rendered.Files{
		"app/kustomization.yaml": []byte("configMapGenerator:\n- name: g\n  files: [conf]\n"),
		"app/conf/a.conf":        []byte("x=1\n"),
	}
	if r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{}); len(r.Problems) != 1 || r.Problems[0].Message != `configMapGenerator[0].files[0]: "conf" is a folder, not a file` {
		t.Errorf("problems %+v, want the folder refused", r.Problems)
	}
	files = rendered.Files{
		"app/kustomization.yaml": []byte("resources:\n- cm.yaml\nconfigMapGenerator:\n- name: g\n  files: [conf/a.conf]\npatchesStrategicMerge:\n- |\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {a: b}\n"),
		"app/cm.yaml":            []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
		"app/conf/a.conf":        []byte("x=1\n"),
	}
	if r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{}); len(r.Problems) != 0 || len(r.Documents) != 2 {
		t.Errorf("problems %+v, %d documents; want none and 2", r.Problems, len(r.Documents))
	}
}

// TestDenyNetwork checks the backstop: krusty, given a URL the walk would
// refuse, gets it from the loopback server; after DenyNetwork the same build
// sends nothing and fails saying why.
func TestDenyNetwork(t *testing.T) {
	srv, hits := loopback(t)
	fs := filesys.MakeFsInMemory()
	fs.WriteFile("/app/kustomization.yaml", []byte("resources:\n- "+srv.URL+"/x.yaml\n"))
	if _, err := runKrusty(context.Background(), fs, "app"); err != nil || hits.Load() != 1 {
		t.Fatalf("without DenyNetwork: err %v, %d requests; want the harness to see krusty's request", err, hits.Load())
	}
	transport, client := http.DefaultTransport, http.DefaultClient.Transport
	t.Cleanup(func() { http.DefaultTransport, http.DefaultClient.Transport = transport, client })
	DenyNetwork()
	_, err := runKrusty(context.Background(), fs, "app")
	if hits.Load() != 1 {
		t.Errorf("the loopback server received %d requests after DenyNetwork", hits.Load()-1)
	}
	if err == nil || !strings.Contains(err.Error(), "prodready renders offline: GET "+srv.URL+"/x.yaml refused") {
		t.Errorf("err = %v, want the offline refusal", err)
	}
	if _, err := http.Get(srv.URL); err == nil || hits.Load() != 1 {
		t.Errorf("http.Get after DenyNetwork: err %v", err)
	}
}

// TestHelmReachesNoNetwork renders charts that ask for the network: a
// dependency in an HTTP repository (on a loopback server, which must
// receive nothing: dependencies come from the chart's own charts/ folder
// or are reported missing), getHostByName (Helm's engine has DNS off, see
// runEngine: it answers "" without a lookup), lookup (no cluster client:
// an empty map) and env (removed from Helm's function map).
func TestHelmReachesNoNetwork(t *testing.T) {
	srv, hits := loopback(t)
	chartYAML := "apiVersion: v2\nname: c\nversion: 0.1.0\n"
	files := rendered.Files{
		"dep/Chart.yaml":        []byte(chartYAML + "dependencies:\n- name: redis\n  version: 1.0.0\n  repository: " + srv.URL + "/charts\n"),
		"dep/values.yaml":       []byte("{}\n"),
		"dep/templates/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
		"dns/Chart.yaml":        []byte(chartYAML),
		"dns/values.yaml":       []byte("{}\n"),
		"dns/templates/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n" +
			"  host: \"{{ getHostByName \"localhost\" }}\"\n" +
			"  lookup: \"{{ lookup \"v1\" \"Secret\" \"default\" \"token\" | toJson }}\"\n"),
		"env/Chart.yaml":        []byte(chartYAML),
		"env/values.yaml":       []byte("{}\n"),
		"env/templates/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {home: \"{{ env \"HOME\" }}\"}\n"),
	}
	dep := RenderChart(context.Background(), files, "dep", nil, rendered.Options{})
	if len(dep.Problems) == 0 || !strings.Contains(dep.Problems[0].Message, "redis") {
		t.Errorf("dependency in an HTTP repository: problems %+v, want the missing redis named", dep.Problems)
	}
	dns := RenderChart(context.Background(), files, "dns", nil, rendered.Options{})
	if s := string(dns.Stream); !strings.Contains(s, `host: ""`) || !strings.Contains(s, `lookup: '{}'`) && !strings.Contains(s, `lookup: "{}"`) {
		t.Errorf("getHostByName and lookup rendered:\n%s\nproblems %+v", s, dns.Problems)
	}
	env := RenderChart(context.Background(), files, "env", nil, rendered.Options{})
	if len(env.Problems) == 0 || !strings.Contains(env.Problems[0].Message, `function "env" not defined`) {
		t.Errorf("env: problems %+v, want the function undefined", env.Problems)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server received %d requests", n)
	}
}
