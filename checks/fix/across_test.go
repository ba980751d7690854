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

// TestConvergeMovesAFixOfTwoFilesPastTheRoundsOthers runs both
// converges where a fix of one file changes the template in the round
// that finds the fix of two files: made above its line, the other fix
// moves it down a line, and both are applied in that round; made on its
// line (an insertion after it too), the fix of two files waits for the
// next round, made on the template as the first left it.
func TestConvergeMovesAFixOfTwoFilesPastTheRoundsOthers(t *testing.T) {
	for _, tc := range []struct {
		name, key, other, want string
		at, rounds             int
	}{
		{"above", "labels:", "spec:\n  labels: {}\n", "spec:\n  labels: {}\n  {{- with .Values.sc }}\n  sc: {{ toYaml . }}\n  {{- end }}\n  containers: []\n  volumes: []\n", 1, 1},
		{"on its line", "tolerations:", "  containers: []\n  tolerations: []\n", "spec:\n  {{- with .Values.sc }}\n  sc: {{ toYaml . }}\n  {{- end }}\n  containers: []\n  volumes: []\n  tolerations: []\n", 5, 2},
	} {
		check := func(cur []checks.Input) []checks.Finding {
			tmpl, values := string(cur[0].Data), string(cur[1].Data)
			var fs []checks.Finding
			if !strings.Contains(tmpl, tc.key) {
				fs = append(fs, checks.Finding{RuleID: "other", File: "c/templates/deployment.yaml", Line: tc.at, Object: checks.ObjectRef{Kind: "Deployment", Name: "web"},
					Fix: &checks.Fix{Description: "other", Lines: []edit.Change{{StartLine: tc.at, EndLine: tc.at, Text: tc.other}}}})
			}
			if !strings.Contains(values, "readOnly") {
				fs = append(fs, readOnly(strings.Count(tmpl[:strings.Index(tmpl, "  containers:")], "\n")+1))
			}
			return fs
		}
		for name, run := range bothConverges(twoFiles, check) {
			out, o := run()
			if string(out[0].Data) != tc.want || !strings.Contains(string(out[1].Data), "readOnly: true") {
				t.Errorf("%s, %s: the template is\n%s\nwant\n%s\nvalues:\n%s", tc.name, name, out[0].Data, tc.want, out[1].Data)
			}
			if len(o.Fixed) != 2 || len(o.Failed) != 0 || o.Rounds != tc.rounds {
				t.Errorf("%s, %s: %d fixed, failed %v, in %d rounds; want 2 fixed in %d", tc.name, name, len(o.Fixed), o.Failed, o.Rounds, tc.rounds)
			}
			for _, f := range o.Fixed {
				if f.RuleID == "readonly" && (f.File != "c/values.yaml" || f.Line != 1) {
					t.Errorf("%s, %s: the fix of two files is reported at %s:%d, want c/values.yaml:1", tc.name, name, f.File, f.Line)
				}
			}
		}
	}
}

// TestRebaseMovesLinesPastOtherChanges checks rebase and movedLine: a
// change below another is moved by the lines that one added, one above
// it stays, and one the other changes too is refused.
func TestRebaseMovesLinesPastOtherChanges(t *testing.T) {
	others := []edit.Change{{StartLine: 3, EndLine: 3, Text: "c\nx\ny\n"}} // two lines inserted after line 3
	got, ok := rebase([]edit.Change{{StartLine: 1, EndLine: 1, Text: "a\n"}, {StartLine: 5, EndLine: 6, Text: "e\n"}}, others)
	if !ok || got[0].StartLine != 1 || got[1].StartLine != 7 || got[1].EndLine != 8 {
		t.Errorf("rebase: %+v, %v; want lines 1 and 7-8", got, ok)
	}
	if _, ok := rebase([]edit.Change{{StartLine: 2, EndLine: 3, Text: "b\n"}}, others); ok {
		t.Error("rebase took a change of a line another changed")
	}
	for line, want := range map[int]int{2: 2, 3: 3, 4: 6} {
		if got := movedLine(line, others); got != want {
			t.Errorf("movedLine(%d) = %d, want %d", line, got, want)
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

// TestConvergeAppliesNoFixOfAFileNotGiven runs both converges on a fix of
// two files whose template is not among the inputs (a file the config
// excludes): the values file does not change, and the fix is one that
// could not be applied, naming the file.
func TestConvergeAppliesNoFixOfAFileNotGiven(t *testing.T) {
	inputs := twoFiles[1:]
	check := func([]checks.Input) []checks.Finding { return []checks.Finding{readOnly(5)} }
	for name, run := range bothConverges(inputs, check) {
		out, o := run()
		if string(out[0].Data) != string(inputs[0].Data) {
			t.Errorf("%s: the values changed:\n%s", name, out[0].Data)
		}
		if len(o.Fixed) != 0 || len(o.Failed) != 1 || o.Failed[0].Err.Error() != "c/templates/deployment.yaml, which its fix also edits: not among the files fixed" {
			t.Errorf("%s: %d fixed, failed %v; want the fix failed for the template not given", name, len(o.Fixed), o.Failed)
		}
	}
}
