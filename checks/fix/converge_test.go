package fix

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// TestConvergeDoesNotCallAFixAppliedLaterFailed runs both converges on a
// template whose two findings' fixes insert after one line (as a probe
// and a preStop hook do): the first round applies one and cannot apply
// the other, whose lines overlap; the next round applies it. Both are
// fixed, and neither is a fix that could not be applied.
func TestConvergeDoesNotCallAFixAppliedLaterFailed(t *testing.T) {
	check := func(cur []checks.Input) []checks.Finding {
		text := string(cur[0].Data)
		var fs []checks.Finding
		for _, key := range []string{"probe", "hook"} {
			if strings.Contains(text, key+":") {
				continue
			}
			fs = append(fs, checks.Finding{RuleID: key + "-missing", File: "t.yaml", Line: 1, Object: checks.ObjectRef{Kind: "Deployment", Name: "web"},
				Fix: &checks.Fix{Description: "add " + key, Lines: []edit.Change{{StartLine: 1, EndLine: 1, Text: "name: web\n" + key + ": x\n"}}}})
		}
		return fs
	}
	inputs := []checks.Input{{Path: "t.yaml", Data: []byte("name: web\n{{ end }}\n")}}
	for name, run := range bothConverges(inputs, check) {
		out, o := run()
		text := string(out[0].Data)
		if !strings.Contains(text, "probe: x") || !strings.Contains(text, "hook: x") {
			t.Errorf("%s: not both fixes applied:\n%s", name, text)
		}
		if len(o.Fixed) != 2 || len(o.Failed) != 0 {
			t.Errorf("%s: %d fixed and %d failed (%v); want 2 fixed, none failed", name, len(o.Fixed), len(o.Failed), o.Failed)
		}
	}
}

// bothConverges returns ConvergeWith and ConvergeStream on inputs, with
// the findings of each round given by check, by name.
func bothConverges(inputs []checks.Input, check func([]checks.Input) []checks.Finding) map[string]func() ([]checks.Input, Outcome) {
	return map[string]func() ([]checks.Input, Outcome){
		"ConvergeWith": func() ([]checks.Input, Outcome) { return ConvergeWith(inputs, check, nil) },
		"ConvergeStream": func() ([]checks.Input, Outcome) {
			return ConvergeStream(inputs, func(cur []checks.Input, emit func([]checks.Finding)) { emit(check(cur)) }, nil)
		},
	}
}
