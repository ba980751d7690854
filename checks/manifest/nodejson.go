package manifest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// appendNodeJSON appends to buf a document's node tree as the JSON text that
// sigs.k8s.io/yaml.YAMLToJSONStrict makes of the same YAML (YAML 1.1
// scalars as goyaml.v2 resolves them: yes/no/on/off booleans, 0777 octal,
// 1_000, ~ and null, timestamps kept as strings), without parsing the text
// a second time. It handles the common case only and reports false for
// anything else — an explicit tag, an anchor or alias (and so a merge key),
// a float, a binary integer, a duplicate key, a key that is not a string —
// and the caller then takes the slow path, so the result never differs.
func appendNodeJSON(buf []byte, n *yaml.Node) ([]byte, bool) {
	if n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		// Keys in sorted order, as encoding/json writes the map that
		// sigs.k8s.io/yaml builds: a strict decode then reports the same
		// first error.
		keys := make([]int, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !jsonKeyOK(n.Content[i]) {
				return nil, false
			}
			keys = append(keys, i)
		}
		slices.SortFunc(keys, func(a, b int) int { return strings.Compare(n.Content[a].Value, n.Content[b].Value) })
		buf = append(buf, '{')
		for j, i := range keys {
			if j > 0 {
				if n.Content[keys[j-1]].Value == n.Content[i].Value {
					return nil, false // a duplicate key: the slow path reports it
				}
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, n.Content[i].Value)
			buf = append(buf, ':')
			var ok bool
			if buf, ok = appendNodeJSON(buf, n.Content[i+1]); !ok {
				return nil, false
			}
		}
		return append(buf, '}'), true
	case yaml.SequenceNode:
		buf = append(buf, '[')
		for i, c := range n.Content {
			if i > 0 {
				buf = append(buf, ',')
			}
			var ok bool
			if buf, ok = appendNodeJSON(buf, c); !ok {
				return nil, false
			}
		}
		return append(buf, ']'), true
	case yaml.ScalarNode:
		return appendScalarJSON(buf, n)
	}
	return nil, false // aliases, documents
}

// nodeJSONOK reports whether appendNodeJSON writes n, without writing it:
// the parse asks this of every typed object, to know whether the decode
// can make its JSON again from the packed tree once the text is gone.
// It refuses exactly what appendNodeJSON refuses (the tests compare the
// two on every fixture, the corpus and the fuzz inputs).
func nodeJSONOK(n *yaml.Node) bool {
	if n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !jsonKeyOK(n.Content[i]) {
				return false
			}
			if !nodeJSONOK(n.Content[i+1]) {
				return false
			}
		}
		return !hasDuplicateKey(n)
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if !nodeJSONOK(c) {
				return false
			}
		}
		return true
	case yaml.ScalarNode:
		return scalarJSONOK(n.Value, n.Style)
	}
	return false // aliases, documents
}

// hasDuplicateKey reports whether mapping n has a key twice: by pairs for
// the few keys most mappings have, by sorting for more.
func hasDuplicateKey(n *yaml.Node) bool {
	keys := len(n.Content) / 2
	if keys <= 16 {
		for i := 0; i < keys; i++ {
			for j := i + 1; j < keys; j++ {
				if n.Content[2*i].Value == n.Content[2*j].Value {
					return true
				}
			}
		}
		return false
	}
	sorted := make([]string, keys)
	for i := range sorted {
		sorted[i] = n.Content[2*i].Value
	}
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return true
		}
	}
	return false
}

// scalarJSONOK reports whether appendScalarValueJSON writes a scalar of
// this text and style.
func scalarJSONOK(value string, style yaml.Style) bool {
	if !utf8.ValidString(value) {
		return false
	}
	if style != 0 {
		return true
	}
	switch kind, _ := resolvePlain(value); kind {
	case plainString, plainNull, plainTrue, plainFalse, plainInt:
		return true
	}
	return false
}

// jsonKeyOK reports whether appendNodeJSON writes mapping key k: a
// scalar without anchor or tag that goyaml.v2 reads as a string.
func jsonKeyOK(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Anchor == "" && k.Style&yaml.TaggedStyle == 0 && keyIsString(k.Value, k.Style)
}

// keyIsString reports whether goyaml.v2 reads a key of this text and
// style as a string.
func keyIsString(value string, style yaml.Style) bool {
	if style != 0 { // quoted or block: always a string
		return utf8.ValidString(value)
	}
	kind, _ := resolvePlain(value)
	return kind == plainString && utf8.ValidString(value)
}

func appendScalarJSON(buf []byte, n *yaml.Node) ([]byte, bool) {
	return appendScalarValueJSON(buf, n.Value, n.Style)
}

// appendScalarValueJSON is appendScalarJSON for a scalar of this text and
// style.
func appendScalarValueJSON(buf []byte, value string, style yaml.Style) ([]byte, bool) {
	if !utf8.ValidString(value) {
		return nil, false
	}
	if style != 0 { // quoted, literal or folded: a string
		return appendJSONString(buf, value), true
	}
	kind, text := resolvePlain(value)
	switch kind {
	case plainString:
		return appendJSONString(buf, value), true
	case plainNull:
		return append(buf, "null"...), true
	case plainTrue:
		return append(buf, "true"...), true
	case plainFalse:
		return append(buf, "false"...), true
	case plainInt:
		return append(buf, text...), true
	}
	return nil, false
}

// appendJSON is appendNodeJSON on the packed tree's node i (an equal
// tree, so the same JSON, refused for the same trees); next is the index
// just past node i's subtree.
func (t *packedTree) appendJSON(buf []byte, i int) (out []byte, next int, ok bool) {
	pn := &t.nodes[i]
	style := pn.style()
	if t.anchor(i) != "" || style&yaml.TaggedStyle != 0 {
		return nil, 0, false
	}
	switch pn.kind() {
	case yaml.MappingNode:
		n := pn.children()
		entries := make([]int, 0, n/2) // each key's index
		c := i + 1
		for j := 0; j+1 < n; j += 2 {
			k := &t.nodes[c]
			if k.kind() != yaml.ScalarNode || t.anchor(c) != "" || k.style()&yaml.TaggedStyle != 0 {
				return nil, 0, false
			}
			if !keyIsString(t.str(k.value()), k.style()) {
				return nil, 0, false
			}
			entries = append(entries, c)
			c = t.skip(t.skip(c))
		}
		next = c
		key := func(k int) string { return t.str(t.nodes[k].value()) }
		slices.SortFunc(entries, func(a, b int) int { return strings.Compare(key(a), key(b)) })
		buf = append(buf, '{')
		for j, k := range entries {
			if j > 0 {
				if key(entries[j-1]) == key(k) {
					return nil, 0, false // a duplicate key: the slow path reports it
				}
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, key(k))
			buf = append(buf, ':')
			if buf, _, ok = t.appendJSON(buf, k+1); !ok {
				return nil, 0, false
			}
		}
		return append(buf, '}'), next, true
	case yaml.SequenceNode:
		buf = append(buf, '[')
		c := i + 1
		for j := range pn.children() {
			if j > 0 {
				buf = append(buf, ',')
			}
			if buf, c, ok = t.appendJSON(buf, c); !ok {
				return nil, 0, false
			}
		}
		return append(buf, ']'), c, true
	case yaml.ScalarNode:
		buf, ok = appendScalarValueJSON(buf, t.str(pn.value()), style)
		return buf, i + 1, ok
	}
	return nil, 0, false // aliases
}

type plainKind int

const (
	plainOther plainKind = iota // anything the fast path leaves to goyaml.v2
	plainString
	plainNull
	plainTrue
	plainFalse
	plainInt
)

// yamlStyleFloat is goyaml.v2's float syntax.
var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolvePlain resolves a plain scalar as goyaml.v2's resolve does, for the
// kinds the fast path writes; an int comes with its decimal text.
func resolvePlain(in string) (plainKind, string) {
	if in == "" {
		return plainNull, ""
	}
	switch in[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		switch in {
		case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
			return plainTrue, ""
		case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
			return plainFalse, ""
		case "~", "null", "Null", "NULL":
			return plainNull, ""
		}
		return plainString, ""
	case '.':
		if _, err := strconv.ParseFloat(in, 64); err == nil || strings.EqualFold(in, ".inf") || strings.EqualFold(in, ".nan") {
			return plainOther, ""
		}
		return plainString, ""
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if strings.HasSuffix(in, ".inf") || strings.HasSuffix(in, ".Inf") || strings.HasSuffix(in, ".INF") {
			return plainOther, ""
		}
		// A timestamp stays a string; it parses as none of the below.
		plain := strings.ReplaceAll(in, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return plainInt, strconv.FormatInt(i, 10)
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return plainInt, strconv.FormatUint(u, 10)
		}
		if yamlStyleFloat.MatchString(plain) || strings.HasPrefix(plain, "0b") || strings.HasPrefix(plain, "-0b") {
			return plainOther, ""
		}
		return plainString, ""
	case '<':
		if in == "<<" {
			return plainOther, "" // a merge key
		}
	}
	return plainString, ""
}

// appendJSONString appends s as a JSON string (s is valid UTF-8).
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
