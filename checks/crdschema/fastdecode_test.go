package crdschema

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// sameAsRoundTrip fails when decodeSchema gives a schema for block that
// the JSON round trip and the conversion to the internal types do not
// give, and returns whether it gave one.
func sameAsRoundTrip(t *testing.T, where string, block []byte) bool {
	t.Helper()
	fast, ok := decodeSchema(block)
	if !ok {
		return false
	}
	v1, err := decodeBlockRoundTrip(nil, block, "")
	var slow any
	if err == nil {
		slow, err = internal(v1)
	}
	if err != nil {
		t.Errorf("%s: decoded directly, but the round trip fails: %v", where, err)
		return true
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: the direct decode differs from the round trip:\n%+v\nwant\n%+v", where, fast, slow)
	}
	return true
}

// TestDecodeSchemaAsRoundTrip holds the direct decode to the round trip
// on schemas written to catch every way they could part: YAML 1.1's
// booleans as keys, numbers where strings go, a field's name in another
// case (in items, whose decoder matches it), nulls, unusual JSON values.
// Each either decodes the same or is left to the round trip.
func TestDecodeSchemaAsRoundTrip(t *testing.T) {
	cases := map[string]struct {
		yaml   string
		direct bool // whether the direct decode must take it
	}{
		"plain":            {"openAPIV3Schema:\n  type: object\n  description: a <b> & c\n  required: [a]\n  properties:\n    a: {type: string, maxLength: 3, pattern: '^x$', enum: [x, 'y', 1, 1.5, null, true, {k: [1, 2]}]}\n    b: {type: integer, minimum: 1, maximum: 2.5, multipleOf: 0.5, default: 2, format: int32}\n    c: {type: array, items: {type: string}, x-kubernetes-list-type: set, maxItems: 10}\n    d: {type: object, additionalProperties: {type: string}, x-kubernetes-map-type: granular}\n    e: {type: object, additionalProperties: false, x-kubernetes-preserve-unknown-fields: true}\n    f: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}\n    g: {type: object, x-kubernetes-embedded-resource: true, nullable: true, example: {a: 1}}\n  x-kubernetes-validations:\n  - rule: self.a == 'x'\n    message: m\n    reason: FieldValueInvalid\n    fieldPath: .a\n    optionalOldSelf: true\n", true},
		"empty things":     {"openAPIV3Schema:\n  type: object\n  properties: {}\n  required: []\n  enum: []\n  items: []\n", true},
		"unknown keys":     {"openAPIV3Schema:\n  type: object\n  x-custom: {a: [1, 2, {b: c}]}\n  externalDocs: {url: 'https://x', other: 1}\n", true},
		"nulls":            {"openAPIV3Schema:\n  type: object\n  description:\n  default: null\n  maximum: null\n  items: null\n  additionalProperties: null\n  properties: null\n  x-kubernetes-list-type: null\n  enum: [null, a]\n", true},
		"large int":        {"openAPIV3Schema:\n  maximum: 9007199254740993\n  maxLength: 9223372036854775807\n", true},
		"other top keys":   {"openAPIV3Schema:\n  type: object\nOpenAPIV3Schema:\n  type: string\n", true},
		"number as string": {"openAPIV3Schema:\n  type: object\n  description: 1.5\n", false},
		"yes as a key":     {"openAPIV3Schema:\n  type: object\n  properties:\n    yes: {type: string}\n", false},
		"int key":          {"openAPIV3Schema:\n  type: object\n  properties:\n    1: {type: string}\n", false},
		"case variant":     {"openAPIV3Schema:\n  type: array\n  items:\n    Type: string\n", false},
		"case variant top": {"openAPIV3Schema:\n  type: object\n  Description: x\n", false},
		"float for int":    {"openAPIV3Schema:\n  maxLength: 3.0\n", false},
		"nan":              {"openAPIV3Schema:\n  x-other: .nan\n", false},
		"null property":    {"openAPIV3Schema:\n  properties:\n    a:\n", false},
		"scalar items":     {"openAPIV3Schema:\n  items: foo\n", false},
		"dependencies":     {"openAPIV3Schema:\n  dependencies: {a: [b]}\n", false},
		"not a mapping":    {"openAPIV3Schema: null\n", false},
		"timestamp":        {"openAPIV3Schema:\n  default: !!timestamp 2001-12-14\n", true},
		"required numbers": {"openAPIV3Schema:\n  required: [1]\n", false},
	}
	deep := "openAPIV3Schema:\n  x-deep: " + strings.Repeat("[", maxDirectDepth+1) + strings.Repeat("]", maxDirectDepth+1) + "\n"
	cases["nested past maxDirectDepth"] = struct {
		yaml   string
		direct bool
	}{deep, false}
	for name, c := range cases {
		if got := sameAsRoundTrip(t, name, []byte(c.yaml)); got != c.direct {
			t.Errorf("%s: decoded directly: %v, want %v", name, got, c.direct)
		}
	}
}

// TestDecodeSchemaAsRoundTripOnCorpus holds the direct decode to the round
// trip on every schema block of the corpus's CRDs, and to taking nearly
// all of them.
func TestDecodeSchemaAsRoundTripOnCorpus(t *testing.T) {
	const dir = "../../../shared/corpus"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("../shared/corpus not present (it sits beside the repository in development and CI only): %v", err)
	}
	blocks, direct := 0, 0
	for _, o := range crdDocuments(t, dir) {
		_, bs := splitSchemas(o.CRDText)
		for _, b := range bs {
			blocks++
			if sameAsRoundTrip(t, o.File.Path+": "+o.Name, b) {
				direct++
			}
		}
	}
	t.Logf("%d of %d schema blocks decoded directly", direct, blocks)
	if direct < blocks*9/10 {
		t.Errorf("only %d of %d schema blocks decoded directly", direct, blocks)
	}
}

// BenchmarkDecodeSchema decodes every schema block of the corpus's CRDs
// into the internal types, directly and through the JSON round trip.
func BenchmarkDecodeSchema(b *testing.B) {
	const dir = "../../../shared/corpus"
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("../shared/corpus not present: %v", err)
	}
	var blocks [][]byte
	for _, o := range crdDocuments(&testing.T{}, dir) {
		_, bs := splitSchemas(o.CRDText)
		blocks = append(blocks, bs...)
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			for _, bl := range blocks {
				decodeSchema(bl)
			}
		}
	})
	b.Run("roundtrip", func(b *testing.B) {
		for b.Loop() {
			for _, bl := range blocks {
				v1, _ := decodeBlockRoundTrip(nil, bl, "")
				internal(v1)
			}
		}
	})
}

// TestDecodeSchemaKnowsEveryField fails when the API's JSONSchemaProps
// (and the types a schema nests) name a field decodeSchema does not know:
// a field added by a k8s.io upgrade would otherwise be passed over by the
// direct decode while the round trip reads it, and the two schemas would
// differ with no test on the corpus saying so.
func TestDecodeSchemaKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		typ   reflect.Type
		known []string
	}{
		{reflect.TypeFor[apiextensionsv1.JSONSchemaProps](), propsFields},
		{reflect.TypeFor[apiextensionsv1.ExternalDocumentation](), docsFields},
		{reflect.TypeFor[apiextensionsv1.ValidationRule](), ruleFields},
	} {
		for i := range c.typ.NumField() {
			name, _, _ := strings.Cut(c.typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !slices.Contains(c.known, name) {
				t.Errorf("%s.%s (json %q) is not known to decodeSchema: teach fillProps to read it or to give up on it", c.typ.Name(), c.typ.Field(i).Name, name)
			}
		}
	}
}
