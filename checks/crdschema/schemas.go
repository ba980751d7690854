package crdschema

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/prodready/prodready/checks/manifest"
)

// A CRD's schemas are nearly all of its text (prometheus-operator's
// Prometheus CRD: 831 of 833 kB), and a lookup needs only its names and
// scope, a custom resource only one version's schema. readNames decodes
// the text with each version's openAPIV3Schema block cut out, and keeps
// the blocks to decode one when its version is compiled.

// blockID names a cut-out block in the text decoded for the names: the
// block's placeholder is `openAPIV3Schema: {id: <blockID><n>}`, n its index.
const blockID = "prodready-schema-block-"

// readNames reads an apiextensions.k8s.io/v1 CRD's names, scope and
// versions from its text (o's CRDSource) without decoding its schemas, each version's
// schema decoded from its own block when compiled. It returns nil when
// the text is not laid out so (a flow-style or anchored schema, a block
// no version owns): the caller reads the whole document, as it would have.
func readNames(o *manifest.Object, text []byte) *Definition {
	header, blocks := splitSchemas(text)
	if len(blocks) == 0 {
		return nil
	}
	j, err := sigsyaml.YAMLToJSON(header)
	if err != nil {
		return nil // the whole read says why
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if sigsjson.UnmarshalCaseSensitivePreserveInts(j, &crd) != nil {
		return nil
	}
	d := &Definition{Object: o, versions: map[string]*versionSlot{},
		Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind, Plural: crd.Spec.Names.Plural,
		Namespaced: crd.Spec.Scope != apiextensionsv1.ClusterScoped}
	used := make([]bool, len(blocks))
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		ver := &versionSlot{Served: v.Served}
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			n, ok := placeholder(v.Schema.OpenAPIV3Schema, len(blocks))
			if !ok || used[n] {
				return nil // a schema written inline, or a block two versions name
			}
			used[n] = true
			block, name := blocks[n], v.Name
			ver.schema = func() (*apiextensions.JSONSchemaProps, error) { return decodeBlock(o, block, name) }
		}
		d.versions[v.Name] = ver
	}
	for _, u := range used {
		if !u {
			return nil // a block outside spec.versions: the whole read decides what it is
		}
	}
	return d
}

// placeholder returns the index of the block whose placeholder p is, and
// whether it is one.
func placeholder(p *apiextensionsv1.JSONSchemaProps, blocks int) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(p.ID, blockID))
	if !strings.HasPrefix(p.ID, blockID) || err != nil || n < 0 || n >= blocks {
		return 0, false
	}
	return n, true
}

// decodeBlock decodes one version's openAPIV3Schema block into the
// internal schema the validators are built from: directly when it can
// (decodeSchema), else through JSON and the v1 types. A block that does
// not decode alone (an alias of an anchor outside it) is read from the
// whole document, which says the same as before it was cut out.
func decodeBlock(o *manifest.Object, block []byte, version string) (*apiextensions.JSONSchemaProps, error) {
	if p, ok := decodeSchema(block); ok {
		return p, nil
	}
	v1, err := decodeBlockRoundTrip(o, block, version)
	if err != nil {
		return nil, err
	}
	return internal(v1)
}

// decodeBlockRoundTrip is decodeBlock through JSON, as the API server
// reads YAML: sigs.k8s.io/yaml's YAMLToJSON, then the JSON decode.
func decodeBlockRoundTrip(o *manifest.Object, block []byte, version string) (*apiextensionsv1.JSONSchemaProps, error) {
	var v struct {
		OpenAPIV3Schema *apiextensionsv1.JSONSchemaProps `json:"openAPIV3Schema"`
	}
	j, err := sigsyaml.YAMLToJSON(block)
	if err == nil {
		err = sigsjson.UnmarshalCaseSensitivePreserveInts(j, &v)
	}
	if err == nil {
		return v.OpenAPIV3Schema, nil
	}
	crd, _, err := decodeWhole(o)
	if err != nil {
		return nil, err
	}
	for _, cv := range crd.Spec.Versions {
		if cv.Name == version && cv.Schema != nil {
			return cv.Schema.OpenAPIV3Schema, nil
		}
	}
	return nil, nil
}

// splitSchemas returns text with every `openAPIV3Schema:` block (the key
// alone on its line, and every line after it indented deeper, blank or a
// comment) replaced by a one-line placeholder naming it, and the blocks,
// each from its key on (a mapping YAML reads alone). The blocks are
// slices of text.
func splitSchemas(text []byte) (header []byte, blocks [][]byte) {
	header = make([]byte, 0, 4096)
	for off := 0; off < len(text); {
		next := lineEnd(text, off)
		line := text[off:next]
		indent, ok := schemaKey(line)
		if !ok {
			header = append(header, line...)
			off = next
			continue
		}
		end := next
		for end < len(text) {
			n := lineEnd(text, end)
			if !within(text[end:n], indent) {
				break
			}
			end = n
		}
		header = append(header, line[:indent]...)
		header = fmt.Appendf(header, "openAPIV3Schema: {id: %s%d}\n", blockID, len(blocks))
		blocks = append(blocks, text[off+indent:end])
		off = end
	}
	return header, blocks
}

// lineEnd returns the offset just after the line at off (its newline
// included).
func lineEnd(text []byte, off int) int {
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(text)
}

// schemaKey reports whether line is `openAPIV3Schema:` alone (a comment
// may follow), a block key, and at which indentation.
func schemaKey(line []byte) (int, bool) {
	rest := bytes.TrimLeft(line, " ")
	indent := len(line) - len(rest)
	rest, ok := bytes.CutPrefix(rest, []byte("openAPIV3Schema:"))
	if !ok {
		return 0, false
	}
	rest = bytes.TrimRight(rest, " \t\r\n")
	if len(rest) > 0 && !(rest[0] == ' ' || rest[0] == '\t') {
		return 0, false
	}
	rest = bytes.TrimLeft(rest, " \t")
	return indent, len(rest) == 0 || rest[0] == '#'
}

// within reports whether line belongs to a block whose key is at indent:
// it is indented deeper, blank, or a comment.
func within(line []byte, indent int) bool {
	rest := bytes.TrimLeft(line, " ")
	trimmed := bytes.TrimRight(rest, " \t\r\n")
	return len(trimmed) == 0 || trimmed[0] == '#' || len(line)-len(rest) > indent
}
