package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// usesRe is a `uses:` line: the action, its ref, and the comment after it.
var usesRe = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(\S+?)@(\S+)[ \t]*(#.*)?$`)

// usesKeyRe is any `uses:` key, pinned or not.
var usesKeyRe = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:`)

// TestActionsPinned keeps every action that action.yml and the workflows
// use pinned by full commit SHA, with a comment naming its tag (# vX.Y.Z),
// and each action at one SHA everywhere, so that a tag moved upstream
// changes nothing here and a bump is one visible edit.
func TestActionsPinned(t *testing.T) {
	files, err := filepath.Glob("../../.github/workflows/*.yml")
	if err != nil || len(files) < 2 {
		t.Fatalf("workflows %v (%v), want ci.yml and release.yml at least", files, err)
	}
	files = append(files, "../../action.yml")
	pins := map[string]string{} // action -> "sha # tag"
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(usesKeyRe.FindAllIndex(data, -1)); n != len(usesRe.FindAllIndex(data, -1)) {
			t.Errorf("%s: %d uses:, %d of the form action@ref", f, n, len(usesRe.FindAllIndex(data, -1)))
		}
		for _, m := range usesRe.FindAllStringSubmatch(string(data), -1) {
			action, ref, comment := m[1], m[2], strings.TrimSpace(m[3])
			if strings.HasPrefix(action, "./") {
				continue
			}
			if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ref) {
				t.Errorf("%s: %s@%s is not pinned by a full commit SHA", filepath.Base(f), action, ref)
			}
			if !regexp.MustCompile(`^# v\d+\.\d+\.\d+$`).MatchString(comment) {
				t.Errorf("%s: %s@%s has comment %q, want # vX.Y.Z", filepath.Base(f), action, ref, comment)
			}
			// actions/cache/restore and actions/cache/save are actions/cache.
			repo := strings.Join(strings.SplitN(action, "/", 3)[:2], "/")
			pin := ref + " " + comment
			if prev, ok := pins[repo]; ok && prev != pin {
				t.Errorf("%s is pinned at %s and at %s", repo, prev, pin)
			}
			pins[repo] = pin
		}
	}
	for _, want := range []string{"actions/checkout", "actions/setup-go", "actions/cache", "sigstore/cosign-installer", "docker/setup-buildx-action", "docker/login-action"} {
		if _, ok := pins[want]; !ok {
			t.Errorf("no workflow uses %s (pins %v)", want, pins)
		}
	}
}

// workflow is what the tests read of a GitHub workflow.
type workflow struct {
	On          map[string]map[string][]string `yaml:"on"`
	Permissions map[string]string              `yaml:"permissions"`
	Jobs        map[string]struct {
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, name string) workflow {
	t.Helper()
	data, err := os.ReadFile("../../.github/workflows/" + name)
	if err != nil {
		t.Fatal(err)
	}
	// `on:` stays a key (YAML 1.1 would make it true).
	var w workflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w
}

// TestReleaseWorkflow: on a release tag only (not the major tag it moves),
// with the permissions a release, the image push and keyless cosign need,
// running `make release` after cosign is installed, and moving the major tag.
func TestReleaseWorkflow(t *testing.T) {
	w := readWorkflow(t, "release.yml")
	if tags := w.On["push"]["tags"]; !slices.Equal(tags, []string{"v*.*.*"}) || len(w.On) != 1 {
		t.Errorf("on %v, want push of tags v*.*.* only", w.On)
	}
	want := map[string]string{"contents": "write", "packages": "write", "id-token": "write"}
	if len(w.Permissions) != len(want) {
		t.Errorf("permissions %v, want %v", w.Permissions, want)
	}
	for k, v := range want {
		if w.Permissions[k] != v {
			t.Errorf("permissions %v, want %v", w.Permissions, want)
		}
	}
	var cosign, release, major bool
	for _, s := range w.Jobs["release"].Steps {
		cosign = cosign || strings.HasPrefix(s.Uses, "sigstore/cosign-installer@")
		if strings.TrimSpace(s.Run) == "make release" {
			release = cosign && s.Env["GITHUB_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"
		}
		major = major || strings.Contains(s.Run, `git push -f origin "refs/tags/$major"`)
	}
	if !release || !major {
		t.Errorf("release job: make release with GITHUB_TOKEN after cosign-installer %v, major tag moved %v", release, major)
	}
}

// TestCIWorkflow: .ci/run on pull requests and pushes to main, read-only.
func TestCIWorkflow(t *testing.T) {
	w := readWorkflow(t, "ci.yml")
	if _, ok := w.On["pull_request"]; !ok || !slices.Equal(w.On["push"]["branches"], []string{"main"}) {
		t.Errorf("on %v, want pull_request and push to main", w.On)
	}
	if len(w.Permissions) != 1 || w.Permissions["contents"] != "read" {
		t.Errorf("permissions %v, want contents: read", w.Permissions)
	}
	ran := false
	for _, s := range w.Jobs["ci"].Steps {
		ran = ran || strings.Contains(s.Run, "bash .ci/run")
	}
	if !ran {
		t.Error("the ci job does not run .ci/run")
	}
	fuzzed := false
	for _, s := range w.Jobs["fuzz"].Steps {
		fuzzed = fuzzed || strings.Contains(s.Run, "make fuzz")
	}
	if !fuzzed {
		t.Error("no fuzz job runs make fuzz: the short fuzzing pass is not a step of .ci/run")
	}
}
