package checks_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// TestCorpusEveryDocumentAccountedFor checks the whole real-world corpus
// (plain manifests, Helm values and Helm templates): nothing panics, no rule
// hits an internal error, and every document is either checked (an object)
// or reported (a finding), and every file is read, reported or skipped with
// a reason.
func TestCorpusEveryDocumentAccountedFor(t *testing.T) {
	dir := needShared(t, "corpus")
	inputs, err := checks.Load([]string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 1500 {
		t.Fatalf("loaded %d files from the corpus; expected about 1,690", len(inputs))
	}
	res := checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{})
	problemDocs := map[string]map[int]bool{}
	for _, f := range res.Findings {
		if strings.Contains(f.Message, "internal error") {
			t.Errorf("%s:%d %s: %s", f.File, f.Line, f.RuleID, f.Message)
		}
		if f.RuleID == "yaml-invalid" || f.RuleID == "schema-invalid" {
			if problemDocs[f.File] == nil {
				problemDocs[f.File] = map[int]bool{}
			}
			problemDocs[f.File][f.Object.Doc] = true
		}
	}
	for _, file := range res.Files {
		if file.Skipped != "" {
			if !strings.Contains(file.Path, "/templates/") {
				t.Errorf("%s skipped outside a chart's templates folder: %s", file.Path, file.Skipped)
			}
			continue
		}
		if problemDocs[file.Path][-1] {
			continue // the whole file was refused, with a finding
		}
		checked := map[int]bool{}
		for _, o := range file.Objects {
			checked[o.Doc] = true
		}
		// Empty documents are neither: count only those with content.
		for doc := 0; doc < file.Docs; doc++ {
			if !checked[doc] && !problemDocs[file.Path][doc] && documentHasContent(file.Source, doc) {
				t.Errorf("%s document %d was neither checked nor reported", file.Path, doc)
			}
		}
	}
	// Outside the template folder, only genuine schema errors are reported
	// as invalid: keep that number from creeping up with false alarms.
	invalid := 0
	for _, f := range res.Findings {
		if (f.RuleID == "yaml-invalid" || f.RuleID == "schema-invalid") && !strings.Contains(f.File, "helm-templates/") {
			invalid++
		}
	}
	// The eleventh is kustomize's validationTransformer example, a
	// ConfigMap made invalid on purpose.
	if invalid > 11 {
		t.Errorf("%d yaml-invalid/schema-invalid findings outside helm-templates; the corpus has 11 genuine ones", invalid)
	}
}

// documentHasContent reports whether document doc of src holds anything
// besides comments and blank lines (a rough check used only by the test).
func documentHasContent(src []byte, doc int) bool {
	docs := strings.Split("\n"+string(src), "\n---")
	if doc >= len(docs) {
		return false
	}
	for _, l := range strings.Split(docs[doc], "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && l != "---" && l != "..." {
			return true
		}
	}
	return false
}
