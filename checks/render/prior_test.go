package render

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prodready/prodready/checks/rendered"
)

// TestPriorDocumentsTakenByText renders a chart for its stream with the
// documents of an earlier render: a document of the same template and
// text takes the earlier one's kind and names (here changed, so that the
// test sees it taken), and one whose text differs is parsed.
func TestPriorDocumentsTakenByText(t *testing.T) {
	files := fixtures(t)
	opts := rendered.Options{StreamOnly: true}
	plain := RenderChart(context.Background(), files, "helm/web", nil, opts)
	if len(plain.Documents) < 2 {
		t.Fatalf("want at least two documents, got %d; problems: %+v", len(plain.Documents), plain.Problems)
	}
	prior := append([]rendered.Document(nil), plain.Documents...)
	prior[0].Kind = "TakenFromPrior"
	prior[1].Kind = "NotTaken"
	prior[1].YAML = append([]byte("# another text\n"), prior[1].YAML...)
	opts.Prior = prior
	got := RenderChart(context.Background(), files, "helm/web", nil, opts)
	if string(got.Stream) != string(plain.Stream) || len(got.Documents) != len(plain.Documents) {
		t.Fatalf("the stream or its documents changed with Prior: %d documents, want %d", len(got.Documents), len(plain.Documents))
	}
	if got.Documents[0].Kind != "TakenFromPrior" {
		t.Errorf("document 0 is a %s: the earlier render's document of the same text was not taken", got.Documents[0].Kind)
	}
	if got.Documents[1].Kind != plain.Documents[1].Kind {
		t.Errorf("document 1 is a %s, want %s: an earlier document of another text was taken", got.Documents[1].Kind, plain.Documents[1].Kind)
	}
	if diff := cmp.Diff(plain.Problems, got.Problems); diff != "" {
		t.Errorf("problems with Prior (-without +with):\n%s", diff)
	}
	for i := range got.Documents {
		if string(got.Documents[i].YAML) != string(plain.Documents[i].YAML) || got.Documents[i].Line != plain.Documents[i].Line {
			t.Errorf("document %d: text or line differs with Prior", i)
		}
	}
}

// TestCorpusPriorDocumentsAsParsed renders every chart of the corpus for
// its stream (as a fix's check renders it again) with and without the
// documents of its values.yaml render as Prior: the two renders are the
// same, document for document (the earlier parse found what the parse
// finds), stream and problems.
func TestCorpusPriorDocumentsAsParsed(t *testing.T) {
	files := corpus(t, "helm-charts")
	res := Run(context.Background(), files, rendered.Options{ValuesYAMLOnly: true, MaxRenders: 1000})
	compared := 0
	for _, r := range res.Renders {
		if r.Kind != Helm || len(r.ValuesFiles) > 0 || len(r.Documents) == 0 {
			continue
		}
		opts := rendered.Options{StreamOnly: true}
		plain := RenderChart(context.Background(), files, r.Root, nil, opts)
		if again := RenderChart(context.Background(), files, r.Root, nil, opts); string(again.Stream) != string(plain.Stream) {
			continue // random output (a generated password): not comparable
		}
		opts.Prior = r.Documents
		got := RenderChart(context.Background(), files, r.Root, nil, opts)
		if string(got.Stream) != string(plain.Stream) {
			t.Errorf("%s: another stream with Prior", r.Root)
			continue
		}
		if diff := cmp.Diff(plain.Documents, got.Documents); diff != "" {
			t.Errorf("%s: documents with Prior (-without +with):\n%s", r.Root, diff)
		}
		if diff := cmp.Diff(plain.Problems, got.Problems); diff != "" {
			t.Errorf("%s: problems with Prior (-without +with):\n%s", r.Root, diff)
		}
		compared++
	}
	if compared < 40 {
		t.Errorf("%d charts compared, want the corpus's (at least 40)", compared)
	}
}
