package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// corpusChunks returns the document chunks of the shared corpus's plain
// manifests (Helm templates left out), and the bytes they hold.
func corpusChunks(b *testing.B) []chunk {
	b.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("../shared/corpus not present (it sits beside the repository in development and CI only): %v", err)
	}
	var out []chunk
	size := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "/helm-templates/") || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, c := range splitDocuments(src) {
			out = append(out, c)
			size += len(c.text)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	return out
}

// BenchmarkYAMLNodes is the node-tree parse alone (yaml.v3), every
// document of the corpus.
func BenchmarkYAMLNodes(b *testing.B) {
	chunks := corpusChunks(b)
	b.ResetTimer()
	for b.Loop() {
		for _, c := range chunks {
			var n yaml.Node
			_ = yaml.Unmarshal(c.text, &n)
		}
	}
}

// BenchmarkDecodeTyped is the typed decode alone (YAML → JSON → k8s.io/api
// value, as the API server reads it), every built-in document of the corpus
// (CRDs, which are not decoded, left out).
func BenchmarkDecodeTyped(b *testing.B) {
	type doc struct {
		root *yaml.Node
		text []byte
		b    *builtin
	}
	var docs []doc
	for _, c := range corpusChunks(b) {
		var n yaml.Node
		if isCRD(c.text) || yaml.Unmarshal(c.text, &n) != nil || len(n.Content) == 0 {
			continue
		}
		o := &Object{root: n.Content[0]}
		o.readHeader()
		if bt, ok := builtins[o.APIVersion+"/"+o.Kind]; ok {
			docs = append(docs, doc{o.root, c.text, bt})
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, d := range docs {
			j, ok := appendNodeJSON(nil, d.root)
			if !ok {
				j, _ = textJSON(nil, d.text)
			}
			_ = decodeJSON(j, d.b.newValue(), d.b.strict)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/doc")
}
