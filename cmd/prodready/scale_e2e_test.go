package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/synthrepo"
)

// TestCheckStreamsAGeneratedRepository runs prodready check as a process
// on a generated repository of 2,000 objects in 500 files, whose report
// is written file by file as the rules finish with each (hundreds of
// batches, many times the report's 64 KiB buffer), with a YAML file that
// holds no object: in json, sarif and text the report is whole and valid,
// its findings come in the documented order (by file, then line, column
// and rule), its counts are those of the findings it lists, and the file
// not checked is named after them.
func TestCheckStreamsAGeneratedRepository(t *testing.T) {
	dir := t.TempDir()
	const objects = 2_000
	if err := synthrepo.Write(dir, objects, false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "apps", "notes.yaml"), []byte("owner: shop\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := runCLI(t, dir, "check", "-o", "json", ".")
	var rep struct {
		Findings []struct {
			Rule, File   string
			Line, Column int
		}
		Summary struct {
			Files, Objects, Errors, Warnings, Infos int
			NotChecked                              []struct{ Path, Reason string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("check -o json: exit %d, %v\n%s", code, err, errOut)
	}
	if len(out) < 10*64<<10 {
		t.Fatalf("the JSON report is %d bytes: too small to be written in many batches", len(out))
	}
	fs := rep.Findings
	if n := rep.Summary.Errors + rep.Summary.Warnings + rep.Summary.Infos; n != len(fs) || len(fs) < objects {
		t.Fatalf("%d findings listed, %d counted in the summary; want the same, and at least %d", len(fs), n, objects)
	}
	for i := 1; i < len(fs); i++ {
		a, b := fs[i-1], fs[i]
		if a.File > b.File || a.File == b.File && (a.Line > b.Line || a.Line == b.Line && (a.Column > b.Column || a.Column == b.Column && a.Rule > b.Rule)) {
			t.Fatalf("finding %d (%s:%d:%d %s) comes after %s:%d:%d %s: not in file, line, column, rule order", i, b.File, b.Line, b.Column, b.Rule, a.File, a.Line, a.Column, a.Rule)
		}
	}
	if rep.Summary.Objects != objects || len(rep.Summary.NotChecked) != 1 || rep.Summary.NotChecked[0].Path != "apps/notes.yaml" {
		t.Errorf("summary: %d objects, not checked %v; want %d and apps/notes.yaml", rep.Summary.Objects, rep.Summary.NotChecked, objects)
	}
	if i, j := strings.LastIndex(out, `"findings"`), strings.LastIndex(out, `"summary"`); i < 0 || j < i || strings.Contains(out[j:], `"rule"`) {
		t.Errorf("the summary is not the last member, after every finding")
	}

	out, errOut, code = runCLI(t, dir, "check", "-o", "sarif", ".")
	var log struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
			Invocations []struct {
				ToolExecutionNotifications []struct {
					Locations []struct {
						PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || code != 0 || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("check -o sarif: exit %d, %v, version %q\n%s", code, err, log.Version, errOut)
	}
	results := log.Runs[0].Results
	if len(results) != len(fs) {
		t.Fatalf("SARIF has %d results, the JSON report %d findings", len(results), len(fs))
	}
	for i, r := range results {
		loc := r.Locations[0].PhysicalLocation
		if r.RuleID != fs[i].Rule || loc.ArtifactLocation.URI != fs[i].File || loc.Region.StartLine != fs[i].Line {
			t.Fatalf("SARIF result %d is %s %s:%d, the JSON report's %s %s:%d: not in the same order", i, r.RuleID, loc.ArtifactLocation.URI, loc.Region.StartLine, fs[i].Rule, fs[i].File, fs[i].Line)
		}
	}
	if inv := log.Runs[0].Invocations; len(inv) != 1 || len(inv[0].ToolExecutionNotifications) != 1 ||
		inv[0].ToolExecutionNotifications[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "apps/notes.yaml" {
		t.Errorf("SARIF invocations %+v: want apps/notes.yaml not checked", inv)
	}

	out, _, code = runCLI(t, dir, "check", "-o", "compact", ".")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) < len(fs) || !strings.HasPrefix(lines[0], fs[0].File+":") {
		t.Fatalf("check -o compact: exit %d, %d lines, first %q", code, len(lines), lines[0])
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "501 files (1 not checked), 2000 objects:") {
		t.Errorf("compact report ends with %q", last)
	}
}
