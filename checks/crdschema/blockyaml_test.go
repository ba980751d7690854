package crdschema

import (
	"os"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v2"
)

// sameAsYAMLv2 fails when readBlock reads block to other values than
// yaml.v2's Unmarshal into an `any`, or reads what yaml.v2 refuses, and
// returns whether it read it.
func sameAsYAMLv2(t *testing.T, where string, block []byte) bool {
	t.Helper()
	got, ok := readBlock(block)
	if !ok {
		return false
	}
	var want any
	if err := yaml.Unmarshal(block, &want); err != nil {
		t.Errorf("%s: read, but yaml.v2 refuses it: %v\n%s", where, err, block)
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: read as\n%#v\nyaml.v2 reads\n%#v\nfrom\n%s", where, got, want, block)
	}
	return true
}

// readBlockCases are blocks written to catch where readBlock and yaml.v2
// could part, and whether readBlock must read each (false: it must leave
// it to yaml.v2).
var readBlockCases = map[string]struct {
	yaml string
	read bool
}{
	"mapping":                    {"openAPIV3Schema:\n  type: object\n  properties:\n    a:\n      type: string\n", true},
	"sequence":                   {"openAPIV3Schema:\n  required:\n  - a\n  - b\n  enum:\n    - x\n    - 'y'\n", true},
	"entries":                    {"openAPIV3Schema:\n  x-kubernetes-validations:\n  - rule: self.a == 'x'\n    message: m # c\n  -   rule: b\n      message: 'n'\n  - fieldPath: .a\n", true},
	"nested entry":               {"openAPIV3Schema:\n  x:\n  -\n    a: 1\n  - - b\n", false},
	"entry value below":          {"openAPIV3Schema:\n  x:\n  -\n    a: 1\n  -\n  - c\n", true},
	"comments":                   {"# top\nopenAPIV3Schema: # c\n  # inside\n  type: object # c\n\n  description: a#b c\n", true},
	"literal":                    {"openAPIV3Schema:\n  description: |-\n    line one\n\n      indented # not a comment\n    last\n  type: object\n", true},
	"literal clip":               {"openAPIV3Schema:\n  description: |\n    a\n    b\n\n\n  type: object\n", true},
	"literal keep":               {"openAPIV3Schema:\n  description: |+\n    a\n\n  type: object\n", true},
	"literal comment":            {"openAPIV3Schema:\n  description: |- # c\n    a\n# at zero\n  type: object\n", true},
	"literal at end":             {"openAPIV3Schema:\n  description: |\n    a\n", true},
	"literal in entry":           {"openAPIV3Schema:\n  x:\n  - |\n    a\n  - b\n", true},
	"literal indicator":          {"openAPIV3Schema:\n  description: |2\n     a\n", false},
	"literal blank head":         {"openAPIV3Schema:\n  description: |\n\n    a\n", false},
	"literal spaces":             {"openAPIV3Schema:\n  description: |\n    a\n      \n    b\n", false},
	"folded":                     {"openAPIV3Schema:\n  description: >\n    a\n    b\n", false},
	"single quoted":              {"openAPIV3Schema:\n  description: 'it''s # fine: yes'\n  x: ''\n", true},
	"single multi-line":          {"openAPIV3Schema:\n  description: 'APIVersion defines the   \n    versioned schema.\n\n    More   ''here''\n\n\n      and # there'\n  type: object\n", true},
	"single unclosed":            {"openAPIV3Schema:\n  description: 'a\n  type: object\n", false},
	"double quoted":              {"openAPIV3Schema:\n  pattern: \"^[a-z]\\\\d+\\\"\\n\\t/$\"\n  x: \"\"\n", true},
	"double escape":              {"openAPIV3Schema:\n  pattern: \"\\u00e9\"\n", false},
	"double slash":               {"openAPIV3Schema:\n  pattern: \"a\\/b\"\n", false},
	"double multi-line":          {"openAPIV3Schema:\n  description: \"a  \n    b \\\"c\\\"\n\n\n    d\\\n    e\\\\\n    f\"\n  type: object\n", true},
	"double escaped space":       {"openAPIV3Schema:\n  description: \"a\\ \n    b\"\n", false},
	"double leading space":       {"openAPIV3Schema:\n  description: \"a\n    \\ b\\ \\  c\"\n", true},
	"double break blank":         {"openAPIV3Schema:\n  description: \"a\\\n\n    b\"\n", false},
	"double unindented":          {"openAPIV3Schema:\n  description: \"a\n  b\"\n", false},
	"plain multi-line":           {"openAPIV3Schema:\n  description: APIVersion defines the\n    versioned schema   \n\n    of this.\n  type: object\n", true},
	"plain then comment":         {"openAPIV3Schema:\n  description: a # c\n    b\n", false},
	"plain continuation comment": {"openAPIV3Schema:\n  description: a\n    # c\n  type: object\n", false},
	"plain in entry":             {"openAPIV3Schema:\n  x:\n  - a\n    b\n  - c\n", true},
	"plain number lines":         {"openAPIV3Schema:\n  x: 1\n    2\n", false},
	"empty flow":                 {"openAPIV3Schema:\n  properties: {}\n  required: []  # none\n", true},
	"flow":                       {"openAPIV3Schema:\n  required: [a]\n", false},
	"flow spaced":                {"openAPIV3Schema:\n  required: [ ]\n", false},
	"resolved":                   {"openAPIV3Schema:\n  a: 1\n  b: -2\n  c: 1.5\n  d: 1e3\n  e: 0x1F\n  f: 0777\n  g: true\n  h: yes\n  i: off\n  j: ~\n  k: null\n  l: .inf\n  m: -.inf\n  n: 9223372036854775808\n  o: 2001-12-14\n  p: 1_000\n  q: +1\n  r: .\n  s: 1.2.3\n  t: Yes\n  u: NO\n  v: y\n  w: truex\n  x: \"1\"\n  y: '-1'\n", true},
	"nan":                        {"openAPIV3Schema:\n  a: .nan\n", false},
	"document marker":            {"openAPIV3Schema:\n  a: ...\n  b: ---x\n", false},
	"resolved keys":              {"openAPIV3Schema:\n  properties:\n    on: {}\n    1: {}\n    1.5: {}\n    null: {}\n    ~: {}\n", true},
	"merge":                      {"openAPIV3Schema:\n  <<: {a: 1}\n", false},
	"anchor":                     {"openAPIV3Schema:\n  a: &x 1\n  b: *x\n", false},
	"tag":                        {"openAPIV3Schema:\n  a: !!str 1\n", false},
	"quoted key":                 {"openAPIV3Schema:\n  'a': 1\n", false},
	"space before colon":         {"openAPIV3Schema:\n  a : 1\n", false},
	"duplicate key":              {"openAPIV3Schema:\n  a: 1\n  a: 2\n", true},
	"tab":                        {"openAPIV3Schema:\n  a:\t1\n", false},
	"carriage return":            {"openAPIV3Schema:\r\n  a: 1\r\n", false},
	"no final newline":           {"openAPIV3Schema:\n  a: 1", false},
	"colon in value":             {"openAPIV3Schema:\n  a: b: c\n", false},
	"colon no space":             {"openAPIV3Schema:\n  a: b:c\n  d: 'e':\n", false},
	"url":                        {"openAPIV3Schema:\n  a: https://x.io/y#z\n  b: a:b\n", true},
	"over-indented":              {"openAPIV3Schema:\n  a: 1\n   b: 2\n", false},
	"scalar below key":           {"openAPIV3Schema:\n  a:\n    b\n", false},
	"dash after value":           {"openAPIV3Schema:\n  a: 1\n  - b\n", false},
	"null values":                {"openAPIV3Schema:\n  a:\n  b:\n    c:\n  d: x\n", true},
	"unicode":                    {"openAPIV3Schema:\n  description: héllo — 漢字 🙂\n", true},
	"control character":          {"openAPIV3Schema:\n  description: a\x01b\n", false},
	"nel":                        {"openAPIV3Schema:\n  description: a\u0085b\n", false},
	"bom":                        {"\ufeffopenAPIV3Schema:\n  a: 1\n", false},
	"invalid utf-8":              {"openAPIV3Schema:\n  a: \xff\n", false},
	"not at zero":                {"  openAPIV3Schema:\n    a: 1\n", false},
	"two top keys":               {"openAPIV3Schema:\n  a: 1\nother: 2\n", true},
	"dash key":                   {"openAPIV3Schema:\n  -a: 1\n", false},
	"dash value":                 {"openAPIV3Schema:\n  a: -b\n  c: - d\n", false},
	"key past 1024":              {"openAPIV3Schema:\n  " + string(make([]byte, 0)) + longKey + ": 1\n", false},
}

var longKey = func() string {
	b := make([]byte, 1100)
	for i := range b {
		b[i] = 'k'
	}
	return string(b)
}()

// TestReadBlockAsYAMLv2 holds readBlock to yaml.v2 on the cases above:
// each is read the same, or left to yaml.v2.
func TestReadBlockAsYAMLv2(t *testing.T) {
	for name, c := range readBlockCases {
		if got := sameAsYAMLv2(t, name, []byte(c.yaml)); got != c.read {
			t.Errorf("%s: read: %v, want %v", name, got, c.read)
		}
	}
}

// TestReadBlockAsYAMLv2OnCorpus holds readBlock to yaml.v2 on every
// schema block of the corpus's CRDs, and to reading nearly all of them.
func TestReadBlockAsYAMLv2OnCorpus(t *testing.T) {
	const dir = "../../../shared/corpus"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("../shared/corpus not present (it sits beside the repository in development and CI only): %v", err)
	}
	blocks, read := 0, 0
	for _, o := range crdDocuments(t, dir) {
		_, bs := splitSchemas(o.CRDText)
		for _, b := range bs {
			blocks++
			if sameAsYAMLv2(t, o.File.Path+": "+o.Name, b) {
				read++
			}
		}
	}
	t.Logf("%d of %d schema blocks read without yaml.v2", read, blocks)
	if read < blocks*9/10 {
		t.Errorf("only %d of %d schema blocks read without yaml.v2", read, blocks)
	}
}

// FuzzReadBlock holds readBlock to yaml.v2 on what the fuzzer makes of
// the cases above.
func FuzzReadBlock(f *testing.F) {
	for _, c := range readBlockCases {
		f.Add([]byte(c.yaml))
	}
	f.Fuzz(func(t *testing.T, block []byte) {
		sameAsYAMLv2(t, "fuzzed", block)
	})
}
