package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shared is the project's shared read-only data (repo-root ../shared).
const shared = "../../../shared"

func readShared(t *testing.T, rel string) string {
	t.Helper()
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared not present: ", err)
	}
	b, err := os.ReadFile(filepath.Join(shared, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// kubescapeHybridOps is the fix written in the header of every
// fixhandler-hybrids input:
//
//	del(select(di==0).spec.containers[0].securityContext)
//	select(di==0).spec.securityContext.runAsRoot: false
var kubescapeHybridOps = []Op{
	del("spec.containers.0.securityContext"),
	set("spec.securityContext.runAsRoot", "false"),
}

// TestKubescapeFixtures expresses kubescape's fix expressions as Ops and
// expects kubescape's expected text exactly, except where noted.
func TestKubescapeFixtures(t *testing.T) {
	const dir = "peer-fixtures/kubescape/"
	tests := []struct {
		input, expected string
		ops             []Op
		// fixExpected adjusts a kubescape artefact in the expected file.
		fixExpected func(string) string
	}{
		{input: "fixhandler-hybrids/tc-01-00-input.yaml", expected: "fixhandler-hybrids/tc-01-01-expected.yaml", ops: kubescapeHybridOps},
		{input: "fixhandler-hybrids/tc-02-00-input-indented-list.yaml", expected: "fixhandler-hybrids/tc-02-01-expected.yaml", ops: kubescapeHybridOps},
		{input: "fixhandler-hybrids/tc-03-00-input-comments.yaml", expected: "fixhandler-hybrids/tc-03-01-expected.yaml", ops: kubescapeHybridOps},
		// In tc-04 and tc-05 the deleted securityContext sat between two
		// blank lines; kubescape leaves both, so "image" ends up two blank
		// lines below "name". That is an artefact of its line-based removal:
		// the author separated the keys by one blank line, and we keep one.
		{input: "fixhandler-hybrids/tc-04-00-input-separated-keys.yaml", expected: "fixhandler-hybrids/tc-04-01-expected.yaml", ops: kubescapeHybridOps, fixExpected: oneBlankLine},
		{input: "fixhandler-hybrids/tc-05-00-input-leading-doc-separator.yaml", expected: "fixhandler-hybrids/tc-05-01-expected.yaml", ops: kubescapeHybridOps, fixExpected: oneBlankLine},
		{
			// select(di==0).spec.containers[0].securityContext.allowPrivilegeEscalation |= false
			input: "fixhandler-inserts/tc-05-00-input-comment-blank-line-single-insert.yaml", expected: "fixhandler-inserts/tc-05-01-expected.yaml",
			ops: []Op{set("spec.containers.0.securityContext.allowPrivilegeEscalation", "false")},
		},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.input), func(t *testing.T) {
			in := readShared(t, dir+tt.input)
			want := readShared(t, dir+tt.expected)
			if tt.fixExpected != nil {
				fixed := tt.fixExpected(want)
				if fixed == want {
					t.Fatalf("the expected file no longer has the artefact this test corrects")
				}
				want = fixed
			}
			checkApply(t, applyCase{src: in, ops: tt.ops, want: want})
		})
	}
}

func oneBlankLine(s string) string {
	return strings.Replace(s, "nginx_container\n\n\n      image", "nginx_container\n\n      image", 1)
}

// TestPolarisFailuresDoNotHappen shows that the ways polaris's mutations
// (a yaml.v3 re-encode of the whole document) differ from the author's text
// do not happen with Apply: list style, trailing spaces, a missing final
// newline, a leading "---" and unrelated lines all stay; a replaced value's
// line comment stays on its line; a Set of the value already there changes
// no byte.
func TestPolarisFailuresDoNotHappen(t *testing.T) {
	const dir = "peer-fixtures/polaris/"
	t.Run("cpuLimitsMissing", func(t *testing.T) {
		in := readShared(t, dir+"cpuLimitsMissing/failure.yaml")
		mutated := readShared(t, dir+"cpuLimitsMissing/mutated.yaml")
		comment := "TODO: Set this to the maximum amount of CPU you want your workload to use"
		got := mustApply(t, in, Op{Action: Set, Path: split("spec.containers.0.resources.limits.cpu"), Value: "100m", Comment: comment})
		// Ours: one added line; the flush list, the trailing spaces after
		// "nginx", "resources:" and "limits:", and the missing final
		// newline all stay. Polaris re-indents the list and strips them.
		want := in + "\n        cpu: 100m # " + comment
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if got == mutated {
			t.Errorf("expected to differ from polaris's re-encoded output")
		}
		if cs := Changes([]byte(in), []byte(got)); len(cs) != 1 || cs[0].StartLine != 13 || cs[0].EndLine != 13 {
			t.Errorf("suggestion should touch only the last line: %+v", cs)
		}
	})
	t.Run("deploymentMissingReplicas", func(t *testing.T) {
		in := readShared(t, dir+"deploymentMissingReplicas/failure.yaml")
		mutated := readShared(t, dir+"deploymentMissingReplicas/mutated.yaml")
		if got := mustApply(t, in, set("spec.replicas", "3")); got != mutated {
			t.Errorf("got %q, want %q", got, mutated)
		}
		// A check that already passes is not edited: an equal Set is a
		// no-op, byte for byte.
		if got := mustApply(t, in, set("spec.replicas", "1")); got != in {
			t.Errorf("equal Set changed the text:\n%s", got)
		}
		if got := mustApply(t, in, set("spec.template.spec.containers", "[]")); got != in {
			t.Errorf("equal Set changed the text:\n%s", got)
		}
	})
	t.Run("livenessProbeMissing", func(t *testing.T) {
		in := readShared(t, dir+"livenessProbeMissing/failure.yaml")
		probe := "exec:\n  command:\n    - cat\n    - /tmp/healthy\ninitialDelaySeconds: 5\nperiodSeconds: 5\n"
		got := mustApply(t, in, Op{Action: Set, Path: split("spec.containers.0.livenessProbe"), Value: probe,
			Comment: "TODO: Change livenessProbe setting to reflect your health endpoints"})
		want := in + "\n    livenessProbe: # TODO: Change livenessProbe setting to reflect your health endpoints\n" +
			"      exec:\n        command:\n        - cat\n        - /tmp/healthy\n      initialDelaySeconds: 5\n      periodSeconds: 5"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("runAsRootAllowed with leading --- and a line comment", func(t *testing.T) {
		in := readShared(t, dir+"runAsRootAllowed/failure.yaml")
		in = "---\n" + strings.Replace(in, "runAsNonRoot: false", "runAsNonRoot: false # root is fine here", 1)
		got := mustApply(t, in, set("spec.template.spec.containers.0.securityContext.runAsNonRoot", "true"))
		want := strings.Replace(in, "runAsNonRoot: false # root is fine here", "runAsNonRoot: true # root is fine here", 1)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if !strings.HasPrefix(got, "---\n") {
			t.Errorf("leading --- lost")
		}
	})
	t.Run("tagNotSpecified", func(t *testing.T) {
		in := readShared(t, dir+"tagNotSpecified/failure.yaml")
		got := mustApply(t, in, set("spec.containers.0.image", "nginx:1.27"))
		if want := strings.Replace(in, "- image: nginx", "- image: nginx:1.27", 1); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func mustApply(t *testing.T, src string, ops ...Op) string {
	t.Helper()
	got, err := Apply([]byte(src), 0, ops)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	checkResult(t, []byte(src), got, 0)
	return string(got)
}
