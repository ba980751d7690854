package checks_test

import (
	"io"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/internal/parallel"
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
		checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{})
	}
}

// BenchmarkParseCorpus is parsing and typed decoding alone.
func BenchmarkParseCorpus(b *testing.B) {
	inputs := corpusInputs(b)
	b.ResetTimer()
	for b.Loop() {
		parseAll(inputs)
	}
}

// parseAll parses inputs on every CPU, as a run does.
func parseAll(inputs []checks.Input) []checks.Input {
	parsed := make([]checks.Input, len(inputs))
	parallel.For(len(inputs), func(i int) {
		parsed[i] = checks.Input{Path: inputs[i].Path, Parsed: manifest.Parse(inputs[i].Path, inputs[i].Data, manifest.DefaultLimits)}
	})
	return parsed
}

// BenchmarkRulesCorpus is the rules alone, on files parsed once.
func BenchmarkRulesCorpus(b *testing.B) {
	parsed := parseAll(corpusInputs(b))
	cfg := checks.DefaultConfig(catalog.Default())
	b.ResetTimer()
	for b.Loop() {
		checks.Run(parsed, cfg, checks.Options{})
	}
}

// BenchmarkFixCorpus applies every fix of the corpus, file by file (what
// `prodready fix` does in one pass): each file's findings with a fix,
// applied to its text.
func BenchmarkFixCorpus(b *testing.B) {
	benchFixes(b, func(src []byte, fs []checks.Finding) { fix.Apply(src, fs) })
}

// BenchmarkSuggestCorpus turns the corpus's fixes into review suggestions,
// file by file, as a review of a pull request that changes every file
// would (install bundles of a hundred objects included).
func BenchmarkSuggestCorpus(b *testing.B) {
	benchFixes(b, func(src []byte, fs []checks.Finding) { fix.Suggest(src, fs) })
}

// benchFixes times do on every corpus file that has fixable findings, and
// reports the time per fix.
func benchFixes(b *testing.B, do func(src []byte, fs []checks.Finding)) {
	work, byFile, fixes := corpusFixes(b)
	b.ResetTimer()
	for b.Loop() {
		for _, in := range work {
			do(in.Data, byFile[in.Path])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*fixes), "ns/fix")
}

// corpusFixes checks the corpus and returns the files that have fixable
// findings, their findings by file, and how many fixes there are.
func corpusFixes(b *testing.B) (work []checks.Input, byFile map[string][]checks.Finding, fixes int) {
	b.Helper()
	inputs := corpusInputs(b)
	res := checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{})
	byFile = map[string][]checks.Finding{}
	for _, f := range res.Findings {
		if f.Fix != nil {
			byFile[f.File] = append(byFile[f.File], f)
		}
	}
	for _, in := range inputs {
		if fs := byFile[in.Path]; len(fs) > 0 {
			work = append(work, in)
			fixes += len(fs)
		}
	}
	if fixes == 0 {
		b.Fatal("the corpus has no fixable finding")
	}
	return work, byFile, fixes
}

// BenchmarkRenderCorpus renders the corpus's findings in every format.
func BenchmarkRenderCorpus(b *testing.B) {
	res := checks.Run(corpusInputs(b), checks.DefaultConfig(catalog.Default()), checks.Options{})
	for _, format := range report.Formats {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if err := report.Write(io.Discard, format, res, "bench"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(res.Findings)), "ns/finding")
		})
	}
}
