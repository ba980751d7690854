package yamlpath

import (
	"strings"
	"testing"
)

// FuzzSourceFixHelpers feeds arbitrary YAML to the helpers that read
// values files and templates for VerifyFixes: none may panic.
func FuzzSourceFixHelpers(f *testing.F) {
	for _, s := range []string{
		"replicaCount: 1\nresources:\n  limits:\n    cpu: 100m\n",
		"a: &x {b: [1, 2]}\nc: *x\n",
		"a: &x\n  b: *x\n",
		"- 1\n- [2, {k: v}]\n",
		"---\n---\na: 1\n",
		"k: !!binary aGk=\n",
		"",
	} {
		f.Add(s, "a.b.0.c", 1)
	}
	f.Fuzz(func(t *testing.T, data, p string, line int) {
		path := strings.Split(p, ".")
		for _, root := range append(ParseDocs([]byte(data), 4), ParseDoc([]byte(data))) {
			if root == nil {
				continue
			}
			segs, nodes := Walk(root, path)
			if len(segs) != len(path) || len(nodes) != len(path)+1 {
				t.Fatalf("Walk: %d segments, %d nodes for %d keys", len(segs), len(nodes), len(path))
			}
			KeyAt(root, line, root)
			NearestLine(root, path)
			Plain(root)
		}
	})
}
