package checks

import (
	"strings"
	"testing"
)

// TestLblFixes checks what the label fixes write: values from the object
// (metadata.name, the workload's own labels) where it has them, valid
// placeholders elsewhere, quoted where YAML would read a number, and no fix
// for a Job, whose pod template is immutable.
func TestLblFixes(t *testing.T) {
	rec := lsFixtureFindings(t, "recommended-labels-missing")
	cron := rec["workloads.yaml:50"]
	if cron.Fix == nil {
		t.Fatalf("CronJob: no fix: %+v", rec)
	}
	values := map[string]string{}
	for _, e := range cron.Fix.Edits {
		values[e.Path[len(e.Path)-1]] = e.Value
		if e.Action != "set" || strings.Join(e.Path[:len(e.Path)-1], ".") != "spec.jobTemplate.spec.template.metadata.labels" {
			t.Errorf("CronJob edit %+v: want a set under the pod template's labels", e)
		}
	}
	if values["app.kubernetes.io/name"] != "report" || values["app.kubernetes.io/version"] != lblPlaceholder || len(values) != 6 {
		t.Errorf("CronJob fix values %v: want name from metadata.name and placeholders for the rest", values)
	}
	tpl := lsFixtureFindings(t, "template-labels-not-propagated")
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
