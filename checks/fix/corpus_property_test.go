package fix_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/manifest"
)

// TestFixCorpusProperties applies every fix to a copy of every plain
// manifest of the real-world corpus (to a fixpoint, as `prodready fix`
// does) and asserts, file by file:
//   - the fixed file still parses and decodes (no new yaml-invalid or
//     schema-invalid);
//   - the same documents are there, in the same order (kind and name);
//   - documents no fix touched are byte-identical;
//   - no rule that passed on a document before fails on it after;
//   - fixing again is a no-op.
func TestFixCorpusProperties(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("../shared/corpus not present (it sits beside the repository in development and CI only): %v", err)
	}
	if testing.Short() {
		t.Skip("the corpus property test takes about half a minute; skipped with -short")
	}
	all, err := checks.Load([]string{corpus}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Each project of the corpus is its own repository, as it would be in a
	// pull request: objects of unrelated projects do not see each other.
	// Sources such as gke-samples are collections of independent samples,
	// so a project is a source's first-level folder.
	repos := map[string][]checks.Input{}
	var names []string
	for _, in := range all {
		if strings.Contains(in.Path, "/helm-templates/") {
			continue
		}
		rel, _ := filepath.Rel(corpus, filepath.FromSlash(in.Path))
		parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
		repo := parts[0]
		if len(parts) == 3 {
			repo += "/" + parts[1]
		}
		if _, ok := repos[repo]; !ok {
			names = append(names, repo)
		}
		repos[repo] = append(repos[repo], in)
	}
	var inputs, fixed []checks.Input
	var outcome fix.Outcome
	var before, after checks.Result
	for _, repo := range names {
		in := repos[repo]
		b := checks.Run(in, checks.DefaultConfig(catalog.Default()), checks.Options{})
		out, o := fix.Converge(in, checks.DefaultConfig(catalog.Default()), nil)
		if !o.Converged {
			t.Errorf("%s: fixes still change the files after %d rounds", repo, fix.MaxRounds)
		}
		a := checks.Run(out, checks.DefaultConfig(catalog.Default()), checks.Options{})
		inputs, fixed = append(inputs, in...), append(fixed, out...)
		before.Findings = append(before.Findings, b.Findings...)
		after.Findings = append(after.Findings, a.Findings...)
		outcome.Fixed = append(outcome.Fixed, o.Fixed...)
		outcome.Failed = append(outcome.Failed, o.Failed...)
	}
	if len(outcome.Fixed) < 1000 {
		t.Fatalf("only %d fixes applied over the corpus; expected thousands", len(outcome.Fixed))
	}
	for _, fl := range outcome.Failed {
		t.Errorf("%s:%d %s: fix offered but not applicable: %v", fl.Finding.File, fl.Finding.Line, fl.Finding.RuleID, fl.Err)
	}

	touched := map[string]bool{} // file|doc of every applied fix
	for _, f := range outcome.Fixed {
		touched[fmt.Sprintf("%s|%d", f.File, f.Object.Doc)] = true
	}
	failing := func(res *checks.Result) map[string]bool {
		m := map[string]bool{}
		for _, f := range res.Findings {
			m[fmt.Sprintf("%s|%d|%s", f.File, f.Object.Doc, f.RuleID)] = true
		}
		return m
	}
	failedBefore, failedAfter := failing(&before), failing(&after)
	for k := range failedAfter {
		if !failedBefore[k] {
			t.Errorf("a rule that passed before fails after the fixes: %s", k)
		}
	}
	for i, in := range inputs {
		out := fixed[i].Data
		if bytes.Equal(out, in.Data) {
			continue
		}
		a, b := manifest.DocumentTexts(in.Data), manifest.DocumentTexts(out)
		if len(a) != len(b) {
			t.Errorf("%s: %d documents became %d", in.Path, len(a), len(b))
			continue
		}
		pa := manifest.Parse(in.Path, in.Data, manifest.Limits{})
		pb := manifest.Parse(in.Path, out, manifest.Limits{})
		if len(pa.Objects) != len(pb.Objects) {
			t.Errorf("%s: %d objects became %d", in.Path, len(pa.Objects), len(pb.Objects))
			continue
		}
		for k := range pa.Objects {
			oa, ob := pa.Objects[k], pb.Objects[k]
			if oa.Doc != ob.Doc || oa.Kind != ob.Kind || oa.Name != ob.Name {
				t.Errorf("%s: document %d was %s, is %s after the fixes", in.Path, oa.Doc, oa, ob)
			}
		}
		for d := range a {
			if !touched[fmt.Sprintf("%s|%d", in.Path, d)] && !bytes.Equal(a[d], b[d]) {
				t.Errorf("%s: document %d has no fix but changed", in.Path, d)
			}
		}
	}
	start := 0
	for _, repo := range names {
		n := len(repos[repo])
		again, second := fix.Converge(fixed[start:start+n], checks.DefaultConfig(catalog.Default()), nil)
		for i := range again {
			if !bytes.Equal(again[i].Data, fixed[start+i].Data) {
				t.Errorf("%s: a second fix run changes the file again", again[i].Path)
			}
		}
		if len(second.Fixed) != 0 {
			t.Errorf("%s: a second fix run applied %d fixes", repo, len(second.Fixed))
		}
		start += n
	}
}
