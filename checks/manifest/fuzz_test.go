package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser: it must never panic,
// every document must be an object or a problem, and packing each object's
// tree (as check does) must give back an equal tree.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		deployment,
		"a: &a [*a]\n",
		"--- {a: 1}\n...\n---\n- x\n",
		"key: [unclosed\n",
		"\xef\xbb\xbfa: 1\r\n",
		"apiVersion: v1\nkind: Service\nspec: {ports: [{port: \"80\"}]}\n",
	} {
		f.Add([]byte(seed))
	}
	seeds, _ := filepath.Glob("../../fixtures/rules/*/*.yaml")
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file := Parse("fuzz.yaml", src, Limits{MaxFileBytes: 1 << 16, MaxDepth: 64, MaxExpandedNodes: 10000})
		if file.Skipped != "" {
			return
		}
		for _, o := range file.Objects {
			if o.Doc < 0 || o.Doc >= file.Docs || o.StartLine < 1 {
				t.Fatalf("object out of range: doc %d of %d, line %d", o.Doc, file.Docs, o.StartLine)
			}
			_, _, _ = o.Pos("spec", "template", "spec", "containers", "0")
			_ = o.PodTemplate()
		}
		packed := Parse("fuzz.yaml", src, Limits{MaxFileBytes: 1 << 16, MaxDepth: 64, MaxExpandedNodes: 10000})
		packed.Pack()
		for i, o := range packed.Objects {
			if err := sameTree(file.Objects[i].Root(), o.Root(), "fuzz"); err != nil {
				t.Fatal(err)
			}
		}
	})
}
