package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// sameAsSlowPath checks that when appendNodeJSON writes a document, the slow path
// (sigs.k8s.io/yaml over the text) accepts it and writes the same JSON, key
// order included, and that the packed tree writes what the node tree
// writes, refusing what it refuses. It returns whether the fast path was
// taken.
func sameAsSlowPath(t *testing.T, name string, text []byte) bool {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) == 0 {
		return false
	}
	fast, ok := appendNodeJSON(nil, doc.Content[0])
	if nodeJSONOK(doc.Content[0]) != ok {
		t.Errorf("%s: nodeJSONOK says %v, appendNodeJSON wrote %s (%v)", name, !ok, fast, ok)
	}
	p := &packer{interns: map[string]span{}, tagIdx: map[string]int{}}
	o := &Object{root: doc.Content[0]}
	if p.packObject(o); o.packed != nil {
		tree := o.packed
		p.finish()
		packed, next, packedOK := tree.appendJSON(nil, 0)
		if packedOK != ok || (ok && (!bytes.Equal(packed, fast) || next != len(tree.nodes))) {
			t.Errorf("%s: the packed tree writes %s (%v, next %d of %d), the node tree %s (%v)", name, packed, packedOK, next, len(tree.nodes), fast, ok)
		}
	}
	if !ok {
		return false
	}
	slow, err := sigsyaml.YAMLToJSONStrict(text)
	if err != nil {
		t.Errorf("%s: the fast path wrote %s, the slow path fails: %v", name, fast, err)
		return true
	}
	if !bytes.Equal(fast, slow) && !jsonEqual(fast, slow) {
		t.Errorf("%s:\nfast %s\nslow %s", name, fast, slow)
	}
	return true
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestNodeJSONScalars compares both paths on YAML 1.1's tricky scalars, as
// values, keys and list items.
func TestNodeJSONScalars(t *testing.T) {
	scalars := []string{
		"web", "Web Server", "/healthz", "$(POD_IP)", "_x", "<your-value>", "<<", "'<<'",
		"yes", "Yes", "YES", "no", "No", "NO", "y", "Y", "n", "N", "on", "On", "ON", "off", "Off", "OFF",
		"true", "True", "TRUE", "false", "False", "FALSE", "yEs", "tRue", "nO", "onn", "offset", "nil",
		"~", "null", "Null", "NULL", "nULL", "", "''", `""`,
		"0", "7", "-7", "+7", "-0", "+0", "0777", "0o17", "0x1F", "0X1F", "0b101", "-0b101", "1_000", "1__0", "_1",
		"9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
		"1.5", "-1.5", "1.", ".5", "1e3", "1E-3", "1_0.5", "1.2.3", "100m", "10Gi", "1e", "0.5Gi", "8080:80",
		".inf", ".Inf", ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".iNf", ".foo", ".", "+", "-",
		"2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10", "2002-12-14T10:00:00Z", "1999-9-9",
		"!!str 5", "!!int '5'", "!!binary aGVsbG8=", "!!float 1", "&a x", `"a\tb\u0001c\"d\\e"`, `"é ü 日本"`, "'it''s'",
		"|\n  line one\n  line two\n", ">-\n  folded\n  text\n", "[a, 1, yes]", "{a: 1, b: no}",
	}
	fast := 0
	for _, s := range scalars {
		for _, doc := range []string{"v: " + s + "\n", s + ": 1\n", "l:\n  - " + s + "\n"} {
			if sameAsSlowPath(t, doc, []byte(doc)) {
				fast++
			}
		}
	}
	for _, doc := range []string{
		"a: 1\nb: 2\na: 3\n", // duplicate key
		"a: 1\n'a': 2\n",     // the same key, quoted
		"base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n", // merge key
		"a: &x hello\nb: *x\n",                        // alias
		"z: 1\na: 2\nm: {c: 1, b: 2}\n",               // key order
		"key with spaces: 1\n\"quoted key\": 2\n? complex\n: 3\n",
	} {
		sameAsSlowPath(t, doc, []byte(doc))
	}
	if fast < len(scalars) {
		t.Errorf("the fast path took only %d of %d documents", fast, 3*len(scalars))
	}
	for _, must := range []string{"v: web\n", "v: 8080\n", "v: yes\n", "v: '8080'\n", "v: 100m\n", "v: ~\n", "v: 0777\n"} {
		if !sameAsSlowPath(t, must, []byte(must)) {
			t.Errorf("%q: the fast path should write it", must)
		}
	}
}

// TestNodeJSONCorpus compares both paths on every built-in document of the
// shared corpus.
func TestNodeJSONCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("../shared/corpus not present (it sits beside the repository in development and CI only): %v", err)
	}
	docs, fast := 0, 0
	walkYAML(t, dir, func(p string, src []byte) {
		for i, c := range splitDocuments(src) {
			var n yaml.Node
			if isCRD(c.text) || yaml.Unmarshal(c.text, &n) != nil || len(n.Content) == 0 {
				continue
			}
			o := &Object{root: n.Content[0]}
			o.readHeader()
			if !IsBuiltin(o.APIVersion, o.Kind) {
				continue
			}
			docs++
			if sameAsSlowPath(t, p+" document "+Index(i), c.text) {
				fast++
			}
		}
	})
	t.Logf("%d built-in documents, %d through the fast path", docs, fast)
	if docs == 0 || fast < docs/2 {
		t.Errorf("the fast path took %d of %d documents", fast, docs)
	}
}
