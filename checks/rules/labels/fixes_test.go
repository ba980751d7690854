package labels

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/edit"

	"go.yaml.in/yaml/v3"
)

// TestLblFixes checks what the label fixes write: into the pod template,
// only values from the object (metadata.name, the workload's own labels);
// valid placeholders on the workload's own metadata, where changing them
// restarts no pod, never in the pod template; quoted where YAML would read
// a number; and no fix for a Job, whose pod template is immutable.
func TestLblFixes(t *testing.T) {
	rec := checkstest.Findings(t, sectionCatalog, "recommended-labels-missing")
	cron := rec["workloads.yaml:50"]
	if cron.Fix == nil {
		t.Fatalf("CronJob: no fix: %+v", rec)
	}
	template, meta := map[string]string{}, map[string]string{}
	for _, e := range cron.Fix.Edits {
		key := e.Path[len(e.Path)-1]
		switch parent := strings.Join(e.Path[:len(e.Path)-1], "."); {
		case e.Action != "set":
			t.Errorf("CronJob edit %+v: want a set", e)
		case parent == "spec.jobTemplate.spec.template.metadata.labels":
			template[key] = e.Value
		case parent == "metadata.labels":
			meta[key] = e.Value
		default:
			t.Errorf("CronJob edit %+v: want the pod template's or the CronJob's labels", e)
		}
	}
	if len(template) != 1 || template["app.kubernetes.io/name"] != "report" {
		t.Errorf("CronJob pod-template labels %v: want only name, from metadata.name (never a placeholder)", template)
	}
	if len(meta) != 5 || meta["app.kubernetes.io/version"] != placeholder {
		t.Errorf("CronJob metadata labels %v: want the other five as placeholders", meta)
	}
	tpl := checkstest.Findings(t, sectionCatalog, "template-labels-not-propagated")
	web := tpl["workloads.yaml:16"]
	if web.Fix == nil || len(web.Fix.Edits) != 2 || web.Fix.Edits[0].Value != `"1.0"` || web.Fix.Edits[1].Value != "frontend" {
		t.Errorf("web: fix %+v, want version \"1.0\" (quoted) and tier frontend copied", web.Fix)
	}
	if !strings.Contains(web.Message, "restarts the pods") {
		t.Errorf("web: message %q must say the pods restart", web.Message)
	}
	job := tpl["workloads.yaml:64"]
	if job.Fix != nil || !strings.Contains(job.Message, "cannot be changed") {
		t.Errorf("Job: want no fix and a note that its template is immutable, got %q %+v", job.Message, job.Fix)
	}
}

// TestPlainScalarSafeAgreesWithYAML checks the fast path of edit.StringScalar
// against yaml.Marshal on label-like values, YAML's special words and
// random strings of the fast path's alphabet.
func TestPlainScalarSafeAgreesWithYAML(t *testing.T) {
	values := []string{"web", "v1", "a-b", "a-", "frontend-2", "y", "n", "yes", "no", "on", "off", "true", "false", "null",
		"inf", "nan", "e1", "x1e3", "b0", "o17", "x0", "a", strings.Repeat("a", 63), strings.Repeat("a", 64),
		"app.kubernetes.io/name", "a.b", "a_b", "a/b", "a/", "a.", "a..b", "a.1e3", "n.a", "y.y", "x/..", "a_1.5"}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "abcdefghijklmnopqrstuvwxyz0123456789-._/"
	for i := 0; i < 20000; i++ {
		b := make([]byte, 1+rng.IntN(8))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		values = append(values, string(b))
	}
	fast := 0
	for _, v := range values {
		out, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(string(out), "\n")
		if edit.PlainScalarSafe(v) {
			fast++
			if want != v {
				t.Errorf("%q: the fast path writes it plain, yaml.Marshal writes %q", v, want)
			}
		}
		if got := edit.StringScalar(v); got != want {
			t.Errorf("yamlScalar(%q) = %q, want %q", v, got, want)
		}
	}
	if fast < len(values)/2 {
		t.Errorf("the fast path took only %d of %d values", fast, len(values))
	}
}
