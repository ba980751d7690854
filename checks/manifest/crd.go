package manifest

import (
	"bytes"
	"regexp"
)

var crdKindRE = regexp.MustCompile(`(?m)^kind:[ \t]*["']?CustomResourceDefinition["']?[ \t]*(#.*)?\r?$`)

// isCRD reports whether a document's text declares a top-level
// kind: CustomResourceDefinition.
func isCRD(text []byte) bool {
	return bytes.Contains(text, []byte("CustomResourceDefinition")) && crdKindRE.Match(text)
}

// blankTopLevelBlock returns a copy of text in which the top-level key and
// every line of its block are emptied, keeping each line ending so every
// other line keeps its number.
func blankTopLevelBlock(text []byte, key string) []byte {
	out := make([]byte, 0, len(text)/4)
	inBlock := false
	prefix := []byte(key + ":")
	for off := 0; off < len(text); {
		end := bytes.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		l := text[off:next]
		switch {
		case bytes.HasPrefix(l, prefix):
			inBlock = true
		case inBlock && len(l) > 0 && l[0] != ' ' && l[0] != '\t' && l[0] != '#' && l[0] != '\n' && l[0] != '\r':
			inBlock = false
		}
		if inBlock {
			if end >= 0 {
				out = append(out, '\n')
			}
		} else {
			out = append(out, l...)
		}
		off = next
	}
	return out
}
