package fix

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// twoFiles are a chart's values file and template, as a fix of two files
// edits them: a key set in the values, a line added to the template.
var twoFiles = []checks.Input{
	{Path: "c/templates/deployment.yaml", Data: []byte("spec:\n  {{- with .Values.sc }}\n  sc: {{ toYaml . }}\n  {{- end }}\n  containers: []\n")},
	{Path: "c/values.yaml", Data: []byte("sc: {}\nreplicas: 1\n")},
}

// readOnly is the finding of a fix made in two files: its values part
// sets sc.readOnly, its template part adds the volumes line after line 5
// (a line change, as a chart's template fix is).
func readOnly(tmplLine int) checks.Finding {
	return checks.Finding{RuleID: "readonly", File: "c/values.yaml", Line: 1, Object: checks.ObjectRef{Kind: "Deployment", Name: "web"},
		Fix: &checks.Fix{Description: "read only", Edits: []edit.Op{{Action: edit.Set, Path: []string{"sc", "readOnly"}, Value: "true"}},
			Also: []checks.FilePart{{File: "c/templates/deployment.yaml", Line: tmplLine,
				Lines: []edit.Change{{StartLine: tmplLine, EndLine: tmplLine, Text: "  containers: []\n  volumes: []\n"}}}}}}
}

// TestConvergeAppliesAFixOfTwoFilesWhole runs both converges on a fix
// made in two files: both files change, and it is fixed once.
func TestConvergeAppliesAFixOfTwoFilesWhole(t *testing.T) {
	check := func(cur []checks.Input) []checks.Finding {
		if strings.Contains(string(cur[1].Data), "readOnly") {
			return nil
		}
		return []checks.Finding{readOnly(5)}
	}
	for name, run := range bothConverges(twoFiles, check) {
		out, o := run()
		if !strings.Contains(string(out[0].Data), "  volumes: []\n") || !strings.Contains(string(out[1].Data), "readOnly: true") {
			t.Errorf("%s: not both parts applied:\n%s\n%s", name, out[0].Data, out[1].Data)
		}
		if len(o.Fixed) != 1 || len(o.Failed) != 0 || !o.Converged {
			t.Errorf("%s: %d fixed, %d failed (%v), converged %v; want 1 fixed", name, len(o.Fixed), len(o.Failed), o.Failed, o.Converged)
		}
	}
}

// TestConvergeAppliesNoHalfOfAFix runs both converges on a fix of two
// files whose template part does not apply (its line is past the end):
// neither file changes, and the fix is one that could not be applied,
// naming the file whose part failed.
func TestConvergeAppliesNoHalfOfAFix(t *testing.T) {
	check := func([]checks.Input) []checks.Finding { return []checks.Finding{readOnly(40)} }
	for name, run := range bothConverges(twoFiles, check) {
		out, o := run()
		for i := range out {
			if string(out[i].Data) != string(twoFiles[i].Data) {
				t.Errorf("%s: %s changed:\n%s", name, out[i].Path, out[i].Data)
			}
		}
		if len(o.Fixed) != 0 || len(o.Failed) != 1 || !strings.Contains(o.Failed[0].Err.Error(), "its part in c/templates/deployment.yaml does not apply") {
			t.Errorf("%s: %d fixed, failed %v; want none fixed and the template part failed", name, len(o.Fixed), o.Failed)
		}
		if len(o.Remaining) != 1 || o.Remaining[0].RuleID != "readonly" {
			t.Errorf("%s: remaining %v, want the finding", name, o.Remaining)
		}
	}
}

// TestConvergeWaitsWithAFixOfTwoFiles runs both converges where a fix of
// one file changes the template in the round that finds the fix of two
// files, whose template line it moves: that fix waits for the next
// round, made on the template as the first left it (its line one lower).
func TestConvergeWaitsWithAFixOfTwoFiles(t *testing.T) {
	check := func(cur []checks.Input) []checks.Finding {
		tmpl, values := string(cur[0].Data), string(cur[1].Data)
		var fs []checks.Finding
		if !strings.Contains(tmpl, "labels:") {
			fs = append(fs, checks.Finding{RuleID: "labels", File: "c/templates/deployment.yaml", Line: 1, Object: checks.ObjectRef{Kind: "Deployment", Name: "web"},
				Fix: &checks.Fix{Description: "labels", Lines: []edit.Change{{StartLine: 1, EndLine: 1, Text: "spec:\n  labels: {}\n"}}}})
		}
		if !strings.Contains(values, "readOnly") {
			line := 5
			if strings.Contains(tmpl, "labels:") {
				line = 6
			}
			fs = append(fs, readOnly(line))
		}
		return fs
	}
	for name, run := range bothConverges(twoFiles, check) {
		out, o := run()
		want := "spec:\n  labels: {}\n  {{- with .Values.sc }}\n  sc: {{ toYaml . }}\n  {{- end }}\n  containers: []\n  volumes: []\n"
		if string(out[0].Data) != want || !strings.Contains(string(out[1].Data), "readOnly: true") {
			t.Errorf("%s: the template is\n%s\nwant\n%s\nvalues:\n%s", name, out[0].Data, want, out[1].Data)
		}
		if len(o.Fixed) != 2 || len(o.Failed) != 0 || o.Rounds != 2 {
			t.Errorf("%s: %d fixed, failed %v, in %d rounds; want 2 fixed in 2", name, len(o.Fixed), o.Failed, o.Rounds)
		}
	}
}

// TestSuggestLeavesOutAFixOfTwoFiles checks that a review suggests no
// half of a fix made in two files, and still suggests the file's others.
func TestSuggestLeavesOutAFixOfTwoFiles(t *testing.T) {
	other := checks.Finding{RuleID: "replicas", File: "c/values.yaml", Line: 2, Object: checks.ObjectRef{Kind: "Deployment", Name: "web"},
		Fix: &checks.Fix{Description: "3", Edits: []edit.Op{{Action: edit.Set, Path: []string{"replicas"}, Value: "3"}}}}
	sugs, failed := Suggest(twoFiles[1].Data, []checks.Finding{readOnly(5), other})
	if len(failed) != 0 || len(sugs) != 1 || len(sugs[0].Findings) != 1 || sugs[0].Findings[0] != 1 || strings.Contains(sugs[0].Text, "readOnly") {
		t.Errorf("suggestions %+v, failed %v; want one, of the replicas alone", sugs, failed)
	}
}
