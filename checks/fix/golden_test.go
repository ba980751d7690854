package fix_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/fix"
)

var update = flag.Bool("update", false, "rewrite the fixtures' .golden files from the current fixes")

// TestFixGoldens proves every rule fixture's fixes: for each input file with
// fixable findings, <file>.golden holds the input with all fixes applied
// (regenerated with -update, never edited by hand), and
//   - re-running the checks on the fixed folder finds none of the fixed
//     findings again (same rule, same object),
//   - the fixed text decodes strictly into the Kubernetes types (no
//     yaml-invalid or schema-invalid),
//   - fixing it again changes nothing (fixes run to a fixpoint, as
//     `prodready fix` does: some are offered only after another applied),
//   - committing one round's suggestions as GitHub would gives exactly one
//     round of fixes.
func TestFixGoldens(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
			before := checks.Run(inputs, cfg, checks.Options{})
			fixedInputs, outcome := fix.Converge(inputs, cfg, nil)
			if !outcome.Converged {
				t.Fatalf("fixes still change the text after %d rounds", fix.MaxRounds)
			}
			for _, fl := range outcome.Failed {
				t.Errorf("%s: fix of %s at line %d does not apply: %v", fl.Finding.File, fl.Finding.RuleID, fl.Finding.Line, fl.Err)
			}
			fixedKeys := map[string]bool{}
			for _, f := range outcome.Fixed {
				fixedKeys[key(f)] = true
			}
			for k, in := range inputs {
				out := fixedInputs[k].Data
				golden := in.Path + ".golden"
				if bytes.Equal(out, in.Data) {
					if _, err := os.Stat(golden); err == nil {
						t.Errorf("%s exists but nothing in %s is fixable: delete it (go test -update)", golden, in.Path)
						if *update {
							os.Remove(golden)
						}
					}
					continue
				}
				if *update {
					if err := os.WriteFile(golden, out, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./checks/fix -update to create it)", err)
				}
				if !bytes.Equal(out, want) {
					t.Errorf("%s: fixed text differs from %s (run with -update if the change is intended):\n%s", in.Path, golden, out)
				}
				// One round's suggestions, committed as GitHub would, give
				// exactly one round of `fix`.
				fs := findingsOf(before, in.Path)
				oneRound, _, _ := fix.Apply(in.Data, fs)
				checkSuggestions(t, in.Data, fs, oneRound)
			}
			after := checks.Run(fixedInputs, cfg, checks.Options{})
			invalidBefore := map[string]bool{}
			for _, f := range before.Findings {
				if f.RuleID != "yaml-invalid" && f.RuleID != "schema-invalid" {
					continue
				}
				invalidBefore[fmt.Sprintf("%s|%d", f.File, f.Object.Doc)] = true
			}
			for _, f := range after.Findings {
				if (f.RuleID == "yaml-invalid" || f.RuleID == "schema-invalid") && !invalidBefore[fmt.Sprintf("%s|%d", f.File, f.Object.Doc)] {
					t.Errorf("fixed %s does not decode: %s:%d %s", filepath.Base(f.File), f.RuleID, f.Line, f.Message)
				}
				if fixedKeys[key(f)] && f.Fix != nil {
					t.Errorf("%s:%d %s still fires after its fix: %s", filepath.Base(f.File), f.Line, f.RuleID, f.Message)
				}
			}
			for _, in := range fixedInputs {
				fs := findingsOf(after, in.Path)
				again, applied, _ := fix.Apply(in.Data, fs)
				if !bytes.Equal(again, in.Data) {
					var which []string
					for _, i := range applied {
						which = append(which, fmt.Sprintf("%s at line %d: %s", fs[i].RuleID, fs[i].Line, fs[i].Message))
					}
					t.Errorf("%s: fixing the fixed file changes it again, by:\n  %s", in.Path, strings.Join(which, "\n  "))
				}
			}
		})
	}
}

// checkSuggestions commits every suggestion as GitHub would (replace the
// line range with the text) and expects the fix's own result, without the
// fixes whose changes lie apart (shown as separate places, not committed).
func checkSuggestions(t *testing.T, src []byte, fs []checks.Finding, want []byte) {
	t.Helper()
	sugg, _ := fix.Suggest(src, fs)
	var cs []edit.Change
	var rest []checks.Finding // fs but the fixes whose changes lie apart: they are shown, not committed
	for _, s := range sugg {
		if s.Apart {
			if rest == nil {
				rest = slices.Clone(fs)
			}
			rest[s.Findings[0]].Fix = nil
			continue
		}
		cs = append(cs, edit.Change{StartLine: s.StartLine, EndLine: s.EndLine, Text: s.Text})
	}
	if rest != nil {
		want, _, _ = fix.Apply(src, rest)
	}
	if got := edit.ApplyChanges(src, cs); !bytes.Equal(got, want) {
		t.Errorf("committing the suggestions gives\n%s\nwant\n%s", got, want)
	}
}

func findingsOf(res *checks.Result, path string) []checks.Finding {
	var out []checks.Finding
	for _, f := range res.Findings {
		if f.File == path {
			out = append(out, f)
		}
	}
	return out
}

// key identifies a finding by rule, object, path and message, not by line
// (a fix moves lines).
func key(f checks.Finding) string {
	return fmt.Sprintf("%s|%s|%d|%s/%s|%s|%s", f.RuleID, f.File, f.Object.Doc, f.Object.Kind, f.Object.Name, f.Path, f.Message)
}
