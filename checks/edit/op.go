// Package edit applies structured changes (set, append, delete at a path) to the
// text of one YAML document inside a file, keeping everything else as the author
// wrote it: comments, blank lines, indentation, list style, quoting, the other
// documents byte-for-byte, and the line ending.
package edit

import "fmt"

// Action names what an Op does.
type Action string

const (
	// Set puts Value at Path, replacing what is there or inserting the key
	// (and any missing parent mappings) when it is absent.
	Set Action = "set"
	// Append adds Value as a new item at the end of the sequence at Path,
	// creating the sequence when it is absent.
	Append Action = "append"
	// Delete removes the key or sequence item at Path. Deleting something
	// absent is not an error.
	Delete Action = "delete"
)

// Op is one change to one YAML document.
//
// Path runs from the document's root node: a mapping key for a mapping, a
// decimal index (0-based) for a sequence. Value is the YAML text of the new
// value (a scalar such as "true" or "8080", or a block such as
// "tcpSocket:\n  port: 8080\n"), parsed by the engine and re-indented to fit
// where it lands.
type Op struct {
	Action Action   `json:"action"`
	Path   []string `json:"path"`
	Value  string   `json:"value,omitempty"`
	// Comment, when set, becomes a line comment on the changed or inserted key
	// (for example "starting point: adjust to the app's real usage").
	Comment string `json:"comment,omitempty"`
	// After lists sibling keys a key that Set (or Append) inserts into a
	// mapping should follow: it goes right after whichever of these comes
	// last in the mapping, so it lands where a person would put it. With no
	// match it goes at the end.
	After []string `json:"after,omitempty"`
}

// Union returns the ops of several fixes of one document as one list, in
// order, with an op identical to an earlier one left out: two fixes fed by
// one values key (two containers of one chart whose securityContext comes
// from the same key) each append ALL to its capabilities' drop list, and
// made together they must append it once.
func Union(lists ...[]Op) []Op {
	var out []Op
	seen := map[string]bool{}
	for _, ops := range lists {
		for _, op := range ops {
			k := fmt.Sprintf("%s\x00%q\x00%s\x00%s\x00%q", op.Action, op.Path, op.Value, op.Comment, op.After)
			if !seen[k] {
				seen[k] = true
				out = append(out, op)
			}
		}
	}
	return out
}
