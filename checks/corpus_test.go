package checks_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

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
	// ConfigMap made invalid on purpose. The realworld/ repositories add
	// four, each a duplicate key upstream: local-path-provisioner's
	// examples/quota/local-path-storage.yaml lacks the "---" between its
	// two ConfigMaps (kind, apiVersion, metadata and data twice in
	// document 8), and spring-petclinic-cloud's customers-, vets- and
	// visits-service-deployment.yaml give their container "resources"
	// twice (the limits, then {}).
	if invalid > 15 {
		t.Errorf("%d yaml-invalid/schema-invalid findings outside helm-templates; the corpus has 15 genuine ones", invalid)
	}
}

// documentHasContent reports whether document doc of src holds anything
// besides comments and blank lines. It counts documents as yaml.v3 does
// (a "---" that opens the file after a comment header starts document 0,
// not 1; a marker-like line inside a block scalar splits nothing), which
// is how the parser numbers them. A document at or after one yaml.v3
// cannot read is taken to have content: the test cannot tell, so the
// product must account for it.
func documentHasContent(src []byte, doc int) bool {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for i := 0; ; i++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			return true
		}
		if i == doc {
			return len(node.Content) > 0 && !isEmptyScalar(node.Content[0])
		}
	}
}

// isEmptyScalar reports whether n is the null yaml.v3 gives a document of
// only comments (or nothing) after its marker.
func isEmptyScalar(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == ""
}

// TestDocumentHasContent holds the corpus test's helper to the parser's
// numbering of documents, which the rough split on "\n---" it replaced got
// wrong: longhorn.yaml opens with "---" and ends in a comment-only document.
func TestDocumentHasContent(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []bool // per document, and false one past the last
	}{
		{"opening marker, comment-only last document", "---\na: 1\n---\nb: 2\n---\n# Source: x.yaml\n#\n", []bool{true, true, false, false}},
		{"comment header before the opening marker", "# licence\n---\na: 1\n", []bool{true, false}},
		{"empty document between two", "a: 1\n---\n---\nb: 2\n", []bool{true, false, true, false}},
		{"key that starts with ---", "a: 1\n---x: 2\n", []bool{true, false}},
		{"block scalar holding a marker-like line", "a: |\n  ---\n  b\nc: 1\n", []bool{true, false}},
		{"only comments", "# nothing\n", []bool{false}},
		{"a document yaml.v3 cannot read, and the next", "a: 1\n---\nb: [\n---\nc: 1\n", []bool{true, true, true}},
	}
	for _, c := range cases {
		for doc, want := range c.want {
			if got := documentHasContent([]byte(c.src), doc); got != want {
				t.Errorf("%s: document %d has content = %v, want %v", c.name, doc, got, want)
			}
		}
	}
}
