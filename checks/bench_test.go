package checks_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// corpusInputs loads the plain manifests of the corpus (Helm templates left
// out: they are not YAML).
func corpusInputs(b *testing.B) []checks.Input {
	b.Helper()
	dir := needShared(b, "corpus")
	all, err := checks.Load([]string{dir}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var out []checks.Input
	size := 0
	for _, in := range all {
		if !strings.Contains(in.Path, "/helm-templates/") {
			out = append(out, in)
			size += len(in.Data)
		}
	}
	b.SetBytes(int64(size))
	return out
}

// BenchmarkCheckCorpus is the whole job over the corpus: parse, decode and
// every rule.
func BenchmarkCheckCorpus(b *testing.B) {
	inputs := corpusInputs(b)
	b.ResetTimer()
	for b.Loop() {
		checks.Run(inputs, nil)
	}
}

// BenchmarkParseCorpus is parsing and typed decoding alone.
func BenchmarkParseCorpus(b *testing.B) {
	inputs := corpusInputs(b)
	b.ResetTimer()
	for b.Loop() {
		checks.ParseAll(inputs, manifest.DefaultLimits)
	}
}

// BenchmarkRulesCorpus is the rules alone, on files parsed once.
func BenchmarkRulesCorpus(b *testing.B) {
	files := checks.ParseAll(corpusInputs(b), manifest.DefaultLimits)
	b.ResetTimer()
	for b.Loop() {
		checks.Evaluate(files, nil)
	}
}
