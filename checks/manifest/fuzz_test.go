package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser: it must never panic,
// every document must be an object or a problem, and the check command's
// ways (ParseDeferred, Pack, DecodePending; ParsePacked, DecodePending)
// must end as Parse does: equal trees, typed values and problems.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		deployment,
		"a: &a [*a]\n",
		"--- {a: 1}\n...\n---\n- x\n",
		"key: [unclosed\n",
		"\xef\xbb\xbfa: 1\r\n",
		"apiVersion: v1\nkind: Service\nspec: {ports: [{port: \"80\"}]}\n",
		kubectlList,
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
			if _, ok := appendNodeJSON(nil, o.Root()); nodeJSONOK(o.Root()) != ok {
				t.Fatalf("nodeJSONOK says %v, appendNodeJSON %v", !ok, ok)
			}
		}
		lim := Limits{MaxFileBytes: 1 << 16, MaxDepth: 64, MaxExpandedNodes: 10000}
		deferred := ParseDeferred("fuzz.yaml", src, lim)
		deferred.Pack()
		for _, packed := range []*File{deferred, ParsePacked("fuzz.yaml", src, lim)} {
			packed.DecodePending()
			if len(packed.Problems) != len(file.Problems) {
				t.Fatalf("deferred decode: %d problems, Parse %d", len(packed.Problems), len(file.Problems))
			}
			for i, p := range packed.Problems {
				w := file.Problems[i]
				if p.RuleID != w.RuleID || p.Doc != w.Doc || p.Line != w.Line || p.Column != w.Column || p.Message != w.Message {
					t.Fatalf("deferred decode: problem %d is %+v, Parse's %+v", i, p, w)
				}
			}
			for i, o := range packed.Objects {
				w := file.Objects[i]
				if err := sameTree(w.Root(), o.Root(), "fuzz"); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(o.Typed(), w.Typed()) || o.Templated != w.Templated || o.Patch != w.Patch {
					t.Fatalf("deferred decode: object %d decoded differently", i)
				}
			}
		}
	})
}
