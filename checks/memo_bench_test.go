package checks_test

import (
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/manifest"
)

// BenchmarkMemoRecall runs the rules over 10,000 parsed objects
// (syntheticApps) without a memo and recalling from one filled by an
// earlier run: what a memo saves on a run whose files did not change.
func BenchmarkMemoRecall(b *testing.B) {
	cfg := checks.DefaultConfig(catalog.Default())
	inputs := syntheticApps(10000)
	memo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}}
	res := checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo})
	for i, f := range res.Files {
		inputs[i] = checks.Input{Path: f.Path, Parsed: f}
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees})
		}
	})
	b.Run("recalled", func(b *testing.B) {
		for b.Loop() {
			checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo})
		}
	})
}
