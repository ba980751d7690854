package github_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// bigConfigMap is a ConfigMap of more lines than GitHub gives a patch for
// (3,000): the review cannot derive its head version from the base and
// the patch, so it reads the file's blob.
func bigConfigMap() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: shop\ndata:\n")
	for i := range 3100 {
		fmt.Fprintf(&b, "  key%d: value%d\n", i, i)
	}
	return b.String()
}

// TestChangedFileThatCannotBeReadIsOneFinding: a file the pull request
// changes that cannot be read (its blob gone, over the size bound, content
// that does not decode, not UTF-8) is one yaml-invalid finding on that file
// saying why, in the check run where findings are said; the other changed
// file is still reviewed, and the run fails as an error finding makes it.
func TestChangedFileThatCannotBeReadIsOneFinding(t *testing.T) {
	big := bigConfigMap()
	bigBlob := blobOf(big)
	huge := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  blob: " + strings.Repeat("a", bot.MaxFileBytes) + "\n"
	latin1 := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n  namespace: shop\n"
	for _, tc := range []struct {
		name, path, content string
		fault               *fakegithub.Fault
		want                string
		line                int
		inline              bool
	}{
		{name: "blob gone", path: "deploy/big.yaml", content: big,
			fault: &fakegithub.Fault{Method: "GET", PathPrefix: "/repos/" + rigOwner + "/" + rigRepo + "/git/blobs/" + bigBlob, Status: 404, Times: 100},
			want:  "could not be read, so it was not checked: GitHub answered 404", line: 1},
		{name: "content that does not decode", path: "deploy/big.yaml", content: big,
			fault: &fakegithub.Fault{Method: "GET", PathPrefix: "/repos/" + rigOwner + "/" + rigRepo + "/git/blobs/" + bigBlob, Times: 100,
				Answer: map[string]any{"sha": bigBlob, "encoding": "base64", "content": "this is no base64!"}},
			want: "its base64 content does not decode", line: 1},
		{name: "over the size bound", path: "deploy/huge.yaml", content: huge,
			want: "over the 10.0 MiB a file is read to", line: 1},
		{name: "not UTF-8", path: "deploy/latin1.yaml", content: latin1,
			want: "file is not UTF-8: byte 0xE9 at line 4, column 12", line: 4, inline: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{"deploy/web.yaml": webApp, ".prodready.yaml": testconfig.OnlyRules("probe-named-port-undeclared", "yaml-invalid")}
			g := newThreadRig(t, base)
			if tc.fault != nil {
				g.fake.Inject(*tc.fault)
			}
			head := map[string]string{"deploy/api.yaml": apiApp("metrics", false), tc.path: tc.content}
			for k, v := range base {
				head[k] = v
			}
			g.push(head)
			run := g.run()
			if run.Status != "completed" || run.Conclusion != "failure" {
				t.Errorf("check run %s/%s, want completed/failure (an error finding)", run.Status, run.Conclusion)
			}
			var said []string
			for _, a := range run.Annotations {
				if a.Path == tc.path && a.Title == "yaml-invalid" && a.StartLine == tc.line {
					said = append(said, a.Message)
				}
			}
			for _, c := range g.threads() {
				if c.Path == tc.path && c.Line == tc.line && strings.Contains(c.Body, "yaml-invalid") {
					said = append(said, c.Body)
					if !tc.inline {
						t.Errorf("an inline comment on a line the diff does not show: %s", c.Body)
					}
				}
			}
			if len(said) == 0 {
				t.Fatalf("no yaml-invalid finding on %s:%d; annotations %+v; threads %v", tc.path, tc.line, run.Annotations, g.threads())
			}
			if !strings.Contains(strings.Join(said, "\n"), tc.want) {
				t.Errorf("the finding does not say why (%q):\n%s", tc.want, strings.Join(said, "\n"))
			}
			if strings.Contains(run.Summary, tc.path+"` — could not be read") || strings.Contains(run.Summary, "could not be read: ") {
				t.Errorf("the file is a finding, and also a not-checked entry:\n%s", run.Summary)
			}
			if _, ok := byRule(g.threads(), "probe-named-port-undeclared"); !ok {
				t.Errorf("the other changed file was not reviewed: %v", g.threads())
			}
		})
	}
}
