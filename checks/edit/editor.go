package edit

import (
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// pos is a position in the document's lines: 1-based line, 1-based rune
// column, as yaml.v3 reports them.
type pos struct{ line, col int }

// mark is the start of a node in document order. For an item of a block
// sequence it is the position of its "-".
type mark struct {
	pos
	node *yaml.Node
}

// entry names a mapping pair (i is the key's index in parent.Content) or a
// sequence item (i is its index). The root has a nil parent.
type entry struct {
	parent *yaml.Node
	i      int
}

// style is the layout the document already uses, so inserted text matches.
type style struct {
	indent     int // columns from a key to its nested mapping's keys
	seqIndent  int // columns from a key to the "-" of its sequence (0: flush)
	itemIndent int // columns from "-" to the item's content
}

// editor holds one document's lines and their parse.
type editor struct {
	lines []line
	eol   string
	body  int // lines before a closing "..." (1-based last body line)

	root  *yaml.Node
	marks []mark
	spans map[*yaml.Node]markSpan
	dash  map[*yaml.Node]pos
	st    style

	quoteBlocks bool // write literal and folded scalars double-quoted
	// parsed is true while root and the indexes are the parse of lines as
	// they are: an op that follows a checked edit needs no parse of its own.
	parsed bool
	// parsedOnce is true once the document's lines as they were given
	// have parsed (as one YAML document).
	parsedOnce bool
}

// markSpan is the marks of a node and everything under it:
// marks[first:last+1].
type markSpan struct{ first, last int }

var errAlias = errors.New("an alias is on the path")

// parse (re)parses the editor's lines and indexes node positions.
func (ed *editor) parse() error {
	ed.body = len(ed.lines)
	if ed.body > 0 && isMarker(ed.lines[ed.body-1].text, "...") {
		ed.body--
	}
	text := joinText(ed.lines)
	if hasOddBreak(text) {
		// yaml.v3 counts these as line breaks; line numbers would not match.
		return errors.New(`the document has a line break other than "\n" or "\r\n" (a lone "\r", NEL, LS or PS)`)
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := decode(dec, &doc); err != nil {
		if err == io.EOF {
			return fmt.Errorf("the document is empty")
		}
		return fmt.Errorf("parsing the document: %w", err)
	}
	var extra yaml.Node
	if err := decode(dec, &extra); err != io.EOF {
		return fmt.Errorf("parsing the document: more than one document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return fmt.Errorf("parsing the document: no content")
	}
	ed.root = doc.Content[0]
	ed.marks = ed.marks[:0]
	// The indexes of the parse before (an edit's check parses the edited
	// text) are emptied and filled again, their room kept; the first
	// parse makes them the size of the tree, so they do not grow.
	if ed.spans == nil {
		nodes, items := countNodes(ed.root, 0)
		ed.spans = make(map[*yaml.Node]markSpan, nodes)
		ed.dash = make(map[*yaml.Node]pos, items)
	} else {
		clear(ed.spans)
		clear(ed.dash)
	}
	c := counts{indent: map[int]int{}, seq: map[int]int{}, item: map[int]int{}}
	if err := ed.index(ed.root, pos{ed.root.Line, ed.root.Column}, &c, 0); err != nil {
		return err
	}
	ed.st = style{
		indent:     c.pick(c.indent, 2, 1),
		seqIndent:  c.pick(c.seq, 0, 0),
		itemIndent: c.pick(c.item, 2, 2),
	}
	return nil
}

// hasOddBreak reports a lone "\r" or a Unicode line break character.
// Each search is for bytes: strings.ContainsAny with characters outside
// ASCII decodes every rune of s and looks each up, a third of a parse of
// a large values.yaml; the UTF-8 of NEL, LS and PS cannot start inside
// another character's bytes, so searching for their bytes finds what
// decoding finds.
func hasOddBreak(s string) bool {
	for i := strings.IndexByte(s, '\r'); i >= 0; {
		if i+1 == len(s) || s[i+1] != '\n' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return strings.Contains(s, "\u0085") || strings.Contains(s, "\u2028") || strings.Contains(s, "\u2029")
}

// counts tallies the layout seen while indexing.
type counts struct{ indent, seq, item map[int]int }

// pick returns the most frequent value at least lo (ties: the smaller), or def.
func (counts) pick(m map[int]int, def, lo int) int {
	best, n := def, 0
	for v, c := range m {
		if v < lo || v > 16 {
			continue
		}
		if c > n || (c == n && v < best) {
			best, n = v, c
		}
	}
	return best
}

const maxDepth = 1000

// index records marks in document order and the layout tallies.
func (ed *editor) index(n *yaml.Node, at pos, c *counts, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("the document nests too deeply")
	}
	first := len(ed.marks)
	ed.marks = append(ed.marks, mark{at, n})
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if err := ed.index(k, pos{k.Line, k.Column}, c, depth+1); err != nil {
				return err
			}
			if !isFlow(n) && v.Line > k.Line && !isFlow(v) {
				switch v.Kind {
				case yaml.MappingNode:
					c.indent[v.Column-k.Column]++
				case yaml.SequenceNode:
					c.seq[v.Column-k.Column]++
				}
			}
			if err := ed.index(v, pos{v.Line, v.Column}, c, depth+1); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for _, it := range n.Content {
			p := pos{it.Line, it.Column}
			if !isFlow(n) {
				d, ok := ed.findDash(n.Column, it)
				if !ok {
					return fmt.Errorf("cannot find the \"-\" of the item at line %d", it.Line)
				}
				ed.dash[it] = d
				if (it.Kind == yaml.MappingNode || it.Kind == yaml.SequenceNode) && !isFlow(it) && it.Line == d.line {
					c.item[it.Column-d.col]++
				}
				p = d
			}
			if err := ed.index(it, p, c, depth+1); err != nil {
				return err
			}
		}
	}
	ed.spans[n] = markSpan{first, len(ed.marks) - 1}
	return nil
}

// countNodes counts the nodes of the tree under n, and the items of its
// sequences, no deeper than index goes.
func countNodes(n *yaml.Node, depth int) (nodes, items int) {
	nodes = 1
	if depth > maxDepth {
		return nodes, 0
	}
	if n.Kind == yaml.SequenceNode {
		items = len(n.Content)
	}
	for _, c := range n.Content {
		cn, ci := countNodes(c, depth+1)
		nodes, items = nodes+cn, items+ci
	}
	return nodes, items
}

// findDash finds the "-" at rune column col that introduces item it.
func (ed *editor) findDash(col int, it *yaml.Node) (pos, bool) {
	for l := it.Line; l >= 1 && l <= len(ed.lines); l-- {
		t := ed.lines[l-1].text
		b := byteCol(t, col)
		if b >= len(t) || t[b] != '-' || (b+1 < len(t) && t[b+1] != ' ' && t[b+1] != '\t') {
			continue
		}
		if l == it.Line && col >= it.Column {
			continue
		}
		if strings.Trim(t[:b], " -") != "" {
			continue
		}
		return pos{l, col}, true
	}
	return pos{}, false
}

func (e entry) key() *yaml.Node {
	if e.parent == nil || e.parent.Kind != yaml.MappingNode {
		return nil
	}
	return e.parent.Content[e.i]
}

func (e entry) value(root *yaml.Node) *yaml.Node {
	switch {
	case e.parent == nil:
		return root
	case e.parent.Kind == yaml.MappingNode:
		return e.parent.Content[e.i+1]
	}
	return e.parent.Content[e.i]
}

// start is where the entry begins: its key, its "-", or the root node.
func (ed *editor) start(e entry) pos {
	if k := e.key(); k != nil {
		return pos{k.Line, k.Column}
	}
	v := e.value(ed.root)
	if d, ok := ed.dash[v]; ok {
		return d
	}
	return pos{v.Line, v.Column}
}

// contentEnd is the last line (1-based) holding the entry's text: its last
// non-comment line before the next node, or the end of its last scalar when
// that is a block or quoted scalar.
func (ed *editor) contentEnd(e entry) int {
	v := e.value(ed.root)
	lo := ed.spans[v].first
	if k := e.key(); k != nil {
		lo = ed.spans[k].first
	}
	hi := ed.spans[v].last
	start := ed.marks[lo].line
	limit := ed.body
	if hi+1 < len(ed.marks) {
		limit = min(limit, ed.marks[hi+1].line-1)
	}
	end := start
	for l := start + 1; l <= limit; l++ {
		if t := ed.lines[l-1].text; !isBlank(t) && !isComment(t) {
			end = l
		}
	}
	leaf := ed.marks[hi].node
	if leaf.Kind == yaml.ScalarNode {
		switch {
		case leaf.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			end = max(end, ed.blockScalarEnd(leaf, limit))
		case leaf.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
			end = max(end, ed.quotedEnd(leaf, limit))
		}
	}
	return end
}

// blockScalarEnd is the last content line of a "|" or ">" scalar.
func (ed *editor) blockScalarEnd(n *yaml.Node, limit int) int {
	end, ci := n.Line, -1
	for l := n.Line + 1; l <= limit && l <= len(ed.lines); l++ {
		t := ed.lines[l-1].text
		if isBlank(t) {
			continue
		}
		if ci < 0 {
			ci = indentOf(t)
		}
		if indentOf(t) < ci {
			break
		}
		end = l
	}
	// With keep chomping ("|+") the blank lines after the text are part of
	// the value too.
	if n.Line < 1 || n.Line > len(ed.lines) {
		return end
	}
	if h := ed.lines[n.Line-1].text; strings.Contains(h[min(byteCol(h, n.Column), len(h)):], "+") {
		for end < limit && end < len(ed.lines) && isBlank(ed.lines[end].text) {
			end++
		}
	}
	return end
}

// quotedEnd is the line of the closing quote of a quoted scalar.
func (ed *editor) quotedEnd(n *yaml.Node, limit int) int {
	if n.Line < 1 || n.Line > len(ed.lines) {
		return n.Line
	}
	t := ed.lines[n.Line-1].text
	b := byteCol(t, n.Column)
	q := strings.IndexAny(t[b:], `"'`)
	if q < 0 {
		return n.Line
	}
	quote := t[b+q]
	l, off := n.Line, b+q+1
	for l <= limit && l <= len(ed.lines) {
		t = ed.lines[l-1].text
		for off < len(t) {
			switch {
			case quote == '"' && t[off] == '\\':
				off += 2
				continue
			case t[off] == quote && quote == '\'' && off+1 < len(t) && t[off+1] == '\'':
				off += 2
				continue
			case t[off] == quote:
				return l
			}
			off++
		}
		l, off = l+1, 0
	}
	return n.Line
}

// extendedEnd is contentEnd plus the comment lines right after it that are
// indented deeper than the entry (commented-out parts of it).
func (ed *editor) extendedEnd(e entry) int {
	end := ed.contentEnd(e)
	ind := ed.start(e).col - 1
	for end < ed.body {
		t := ed.lines[end].text
		if !isComment(t) || indentOf(t) <= ind {
			break
		}
		end++
	}
	return end
}

// splice replaces lines s..e (1-based, inclusive; e = s-1 inserts before
// line s) with repl. New lines take the line ending of the lines they replace
// (the file's otherwise); a missing final newline stays missing. The lines
// before the splice are left as they were (Apply goes back to them to try an
// op again another way).
func (ed *editor) splice(s, e int, repl []string) error {
	if s < 1 || e < s-1 || e > len(ed.lines) {
		return fmt.Errorf("internal: bad line range %d-%d of %d lines", s, e, len(ed.lines))
	}
	eol := ed.eol
	if e >= s && ed.lines[s-1].eol != "" {
		eol = ed.lines[s-1].eol
	}
	n := len(ed.lines)
	out := make([]line, 0, n-(e-s+1)+len(repl))
	out = append(out, ed.lines[:s-1]...)
	for _, t := range repl {
		out = append(out, line{text: t, eol: eol})
	}
	out = append(out, ed.lines[e:]...)
	switch {
	case n > 0 && e == n && ed.lines[n-1].eol == "" && e >= s: // replacing the last line
		if len(repl) > 0 {
			out[s-2+len(repl)].eol = ""
		} else if s >= 2 {
			out[s-2].eol = ""
		}
	case n > 0 && e == n && s == n+1 && ed.lines[n-1].eol == "" && len(repl) > 0: // appending
		out[n-1].eol = eol
		out[len(out)-1].eol = ""
	}
	ed.lines = out
	return nil
}
