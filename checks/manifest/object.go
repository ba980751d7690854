package manifest

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	yaml "go.yaml.in/yaml/v3"
)

// Object is one YAML document of a file: its node tree with absolute
// positions and, for built-in Kubernetes kinds, its typed value.
type Object struct {
	File *File
	// Doc is the 0-based index of the document in its file.
	Doc int
	// StartLine and EndLine are the 1-based, inclusive file lines the
	// document spans (its "---" marker included).
	StartLine, EndLine int
	// root is the document's top node, with absolute 1-based lines and
	// columns (read it with Root); nil once the object is packed.
	root *yaml.Node
	// packed is the tree in compact form after File.Pack, with its
	// inflated copies (shared by copies of the object).
	packed *packedTree

	APIVersion string
	Kind       string
	Name       string
	// Namespace is metadata.namespace as written; empty when absent. The
	// effective namespace (from a kustomization, say) is decided by the checks.
	Namespace   string
	Labels      map[string]string
	Annotations map[string]string

	// typed holds the typed value (read it with Typed); nil for an object
	// that has none. Copies of the object share it.
	typed *typedSlot

	// Templated is true when the document holds placeholders (PORT,
	// ${VAR}, <your-value>) that stop it from decoding: it is filled in by a
	// script before it is applied, so it is not reported as invalid.
	Templated bool
	// SpecSkipped is true for a CustomResourceDefinition whose spec (the
	// schema, often megabytes) was not parsed: no rule reads it, and skipping
	// it halves the time and memory of checking a typical install bundle.
	SpecSkipped bool
	// CRDText is the document's text when SpecSkipped (a copy, pointer-free):
	// a custom resource of the run is validated against the schema read
	// from it (checks/crdschema), only when the run holds one. A lean run
	// lets it go when it can read it again (File.DropCRDTexts): read it
	// through CRDSource.
	CRDText []byte
	// crdSpan is where CRDText lies in the file's source, and crdReadAt
	// reads it there again once DropCRDTexts let CRDText go.
	crdSpan   crdSpan
	crdReadAt func(off, n int) ([]byte, error)
	// Patch is true for a kustomize patch (a partial object): rules do not
	// judge it as a whole object.
	Patch bool
	// ListItem is where the object sits in its document when the document
	// is a List (items.N): its tree, positions and paths are the item's,
	// and edits of the document put ListItem before their paths. Nil for
	// an object that is its whole document.
	ListItem Path

	// pending is the typed decode ParseDeferred left for File.DecodePending.
	pending *pendingDecode

	// blockIndent maps each block scalar (| or >) to the indentation of its
	// first content line, read from the source at parse time.
	blockIndent map[int]int // block scalar's line → indent
}

// Path addresses a node from the document root: a mapping key, or a decimal
// index for a sequence.
type Path []string

// String renders a path as "spec.containers[0].image".
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		if isIndexElem(e) {
			b.WriteString("[" + e + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return b.String()
}

// isIndexElem reports whether a path element is a sequence index: what
// strconv.Atoi accepts, asked only of elements that start like a number
// (a failed Atoi allocates its error, and most elements are keys).
func isIndexElem(e string) bool {
	if e == "" || !(e[0] >= '0' && e[0] <= '9' || e[0] == '-' || e[0] == '+') {
		return false
	}
	_, err := strconv.Atoi(e)
	return err == nil
}

// seqIndex reads path element e as an index into a sequence of n items.
func seqIndex(e string, n int) (int, bool) {
	idx, err := strconv.Atoi(e)
	return idx, err == nil && idx >= 0 && idx < n
}

// Child returns a new path with elems appended (never sharing p's array).
func (p Path) Child(elems ...string) Path {
	out := make(Path, 0, len(p)+len(elems))
	return append(append(out, p...), elems...)
}

// Index returns the path element for sequence index i.
func Index(i int) string { return strconv.Itoa(i) }

// inflatedTrees are a packed object's inflated trees.
type inflatedTrees struct {
	// mu guards holders, and the inflation of held while they hold it.
	mu sync.Mutex
	// holders counts the Holds not yet Released (a file shared by runs
	// at once, from the review bot's cache, has one per run); held is
	// the tree they read, inflated on the first read and dropped when the
	// last one releases it.
	holders int
	held    atomic.Pointer[yaml.Node]
	// kept is inflated on the first read outside Hold (a rule of another
	// object reading this one: an overlay's patch, a kustomization) and
	// kept, so such reads cost one inflation, not one each.
	kept atomic.Pointer[yaml.Node]
}

// Root returns the document's top node, with absolute 1-based lines and
// columns. A packed object (File.Pack) inflates its tree on demand: while
// Hold is in effect every call returns the same tree (inflated on the first
// call, so rules that never read the tree cost no inflation); otherwise a
// tree inflated once and kept.
func (o *Object) Root() *yaml.Node {
	if o.root != nil || o.packed == nil {
		return o.root
	}
	t := &o.packed.inflated
	if h := t.held.Load(); h != nil {
		return h
	}
	if k := t.kept.Load(); k != nil {
		return k
	}
	t.mu.Lock()
	if t.holders > 0 {
		if t.held.Load() == nil {
			t.held.Store(o.packed.inflate())
		}
		h := t.held.Load()
		t.mu.Unlock()
		return h
	}
	t.mu.Unlock()
	t.kept.CompareAndSwap(nil, o.packed.inflate())
	return t.kept.Load()
}

// Packed reports whether the object's tree is held packed (File.Pack).
func (o *Object) Packed() bool { return o.packed != nil }

// KeepsInflatedTree reports whether the object is packed and keeps a tree
// inflated by a read outside Hold (see Root): memory it holds for the rest
// of the run on top of its packed form.
func (o *Object) KeepsInflatedTree() bool {
	return o.packed != nil && o.packed.inflated.kept.Load() != nil
}

// WithRoot returns a copy of the object whose tree is root (for a view of
// the object with parts rewritten; the object itself is unchanged).
func (o *Object) WithRoot(root *yaml.Node) *Object {
	cp := *o
	cp.root = root
	return &cp
}

// Hold makes every read of a packed object's tree, until Release, return
// the same nodes (inflated on the first read), so that all the rules run on
// the object agree. Without Pack it does nothing. Safe for concurrent use:
// runs that share the object each Hold and Release it, and the tree is
// dropped when the last one releases it.
func (o *Object) Hold() {
	if o.packed != nil {
		t := &o.packed.inflated
		t.mu.Lock()
		t.holders++
		t.mu.Unlock()
	}
}

// Release ends one Hold; the last one drops the tree the holds inflated.
func (o *Object) Release() {
	if o.packed != nil {
		t := &o.packed.inflated
		t.mu.Lock()
		if t.holders > 0 {
			if t.holders--; t.holders == 0 {
				t.held.Store(nil)
			}
		}
		t.mu.Unlock()
	}
}

// BlockCopy returns a copy of the node at path to render again in block
// style: aliases resolved (at most 32 in a row), flow style dropped, and
// no comments, anchors or positions. It is nil when the path is missing or
// ends in an alias that names nothing. From a packed tree only that
// subtree is built.
func (o *Object) BlockCopy(path ...string) *yaml.Node {
	if t := o.packedView(); t != nil {
		n, _, depth := t.walk(path)
		if depth != len(path) {
			return nil
		}
		return t.blockCopy(n)
	}
	return blockCopy(o.Node(path...))
}

func blockCopy(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < 32; depth++ {
		n = n.Alias
	}
	if n.Kind == yaml.AliasNode {
		return nil
	}
	c := &yaml.Node{Kind: n.Kind, Style: n.Style &^ yaml.FlowStyle, Tag: n.Tag, Value: n.Value}
	for _, ch := range n.Content {
		if cc := blockCopy(ch); cc != nil {
			c.Content = append(c.Content, cc)
		}
	}
	return c
}

// RootKind returns the kind of the object's root node (what Root().Kind
// is, 0 when the object has no tree) without inflating a packed tree.
func (o *Object) RootKind() yaml.Kind {
	if t := o.packedView(); t != nil {
		return t.nodes[0].kind()
	}
	if r := o.Root(); r != nil {
		return r.Kind
	}
	return 0
}

// Has reports whether the node at path exists (Node would return it),
// without inflating a packed tree.
func (o *Object) Has(path ...string) bool {
	if t := o.packedView(); t != nil {
		_, _, depth := t.walk(path)
		return depth == len(path)
	}
	return o.Node(path...) != nil
}

// Node returns the value node at path, or nil when any step is missing.
func (o *Object) Node(path ...string) *yaml.Node {
	n, _, depth := o.walk(path)
	if depth != len(path) {
		return nil
	}
	return n
}

// walk follows path as far as it exists and returns the last node reached,
// the key node that led to it (nil for sequence items and the root), and how
// many elements were followed.
func (o *Object) walk(path []string) (node, key *yaml.Node, depth int) {
	node = o.Root()
	for i, e := range path {
		if node == nil {
			return nil, nil, i
		}
		for node.Kind == yaml.AliasNode && node.Alias != nil {
			node = node.Alias
		}
		switch node.Kind {
		case yaml.MappingNode:
			k, v := MapEntry(node, e)
			if v == nil {
				return node, key, i
			}
			node, key = v, k
		case yaml.SequenceNode:
			idx, ok := seqIndex(e, len(node.Content))
			if !ok {
				return node, key, i
			}
			node, key = node.Content[idx], nil
		default:
			return node, key, i
		}
	}
	return node, key, len(path)
}

// PathCrossesAlias reports whether following path from the root passes
// through, or ends at, an alias, an anchored node, or a mapping with a
// merge key (<<): places where a text edit changes what others share.
func (o *Object) PathCrossesAlias(path ...string) bool {
	if o.packed != nil && !o.packed.mayAlias {
		return false // most objects: asked for every fix, answered without a walk
	}
	if t := o.packedView(); t != nil {
		return t.crossesAlias(path)
	}
	n := o.Root()
	for _, e := range path {
		if n == nil {
			break
		}
		if n.Kind == yaml.AliasNode || n.Anchor != "" {
			return true
		}
		switch n.Kind {
		case yaml.MappingNode:
			if k, _ := MapEntry(n, "<<"); k != nil {
				return true
			}
			_, n = MapEntry(n, e)
		case yaml.SequenceNode:
			if idx, ok := seqIndex(e, len(n.Content)); ok {
				n = n.Content[idx]
			} else {
				n = nil
			}
		default:
			n = nil
		}
	}
	return n != nil && (n.Kind == yaml.AliasNode || n.Anchor != "")
}

// MapEntry returns the key and value nodes of key in mapping m, or nils.
func MapEntry(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// Pos returns the 1-based line and column that best stand for path: the key
// of the deepest existing element (the key line, not the value's), a
// sequence item's first line (the "- name:" line of a container), or the
// object's kind line when nothing of the path exists. Exact reports whether
// the whole path exists.
func (o *Object) Pos(path ...string) (line, col int, exact bool) {
	if t := o.packedView(); t != nil {
		return t.pos(path)
	}
	n, key, depth := o.walk(path)
	exact = depth == len(path)
	switch {
	case depth == 0:
		line, col = o.KindPos()
	case key != nil:
		line, col = key.Line, key.Column
	case n != nil:
		line, col = n.Line, n.Column
	default:
		line, col = o.KindPos()
	}
	return line, col, exact
}

// BlockEnd returns the last 1-based line of the node at path (its whole block),
// or 0 when the path is missing.
func (o *Object) BlockEnd(path ...string) int {
	if t := o.packedView(); t != nil {
		return t.blockEnd(path)
	}
	n := o.Node(path...)
	if n == nil {
		return 0
	}
	return lastLine(n)
}

func lastLine(n *yaml.Node) int {
	end := n.Line
	if n.Kind == yaml.ScalarNode && (n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle) {
		end += strings.Count(strings.TrimRight(n.Value, "\n"), "\n") + 1
	}
	if len(n.Content) > 0 {
		if l := lastLine(n.Content[len(n.Content)-1]); l > end {
			end = l
		}
	}
	return end
}

// KindPos is the position of the "kind:" key, or the document's first line.
func (o *Object) KindPos() (line, col int) {
	if t := o.packedView(); t != nil {
		return t.kindPos()
	}
	root := o.Root()
	if k, _ := MapEntry(root, "kind"); k != nil {
		return k.Line, k.Column
	}
	if root != nil {
		return root.Line, root.Column
	}
	return o.StartLine, 1
}

// String names the object for people: "Deployment web (ns shop)".
func (o *Object) String() string {
	s := o.Kind
	if s == "" {
		s = "document"
	}
	if o.Name != "" {
		s += " " + o.Name
	}
	if o.Namespace != "" {
		s += " (namespace " + o.Namespace + ")"
	}
	return s
}

// Scalar returns the scalar value at path and whether it exists.
func (o *Object) Scalar(path ...string) (string, bool) {
	if t := o.packedView(); t != nil {
		return t.scalar(path)
	}
	n := o.Node(path...)
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

// BlockIndent returns the indentation (in spaces) of the first non-blank
// content line of block scalar n (| or >) of this object, read from the
// file when it was parsed, so it needs no File.Source; false when n is not
// such a scalar of the object.
func (o *Object) BlockIndent(n *yaml.Node) (int, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || (n.Style != yaml.LiteralStyle && n.Style != yaml.FoldedStyle) {
		return 0, false
	}
	i, ok := o.blockIndent[n.Line]
	return i, ok
}

// recordBlockIndents fills blockIndent from the file's text; lines finds
// line starts in it.
func (o *Object) recordBlockIndents(lines *lineCursor) {
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && (n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle) {
			if o.blockIndent == nil {
				o.blockIndent = map[int]int{}
			}
			o.blockIndent[n.Line] = lines.firstContentIndent(n.Line)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(o.root)
}

// lineCursor finds the start of 1-based lines in a file's text without
// indexing every line: it moves forward from the last line asked for
// (block scalars come in file order), and starts over for an earlier one.
type lineCursor struct {
	src  []byte
	line int // 1-based line that starts at off (newLineCursor starts at line 1)
	off  int
}

// newLineCursor returns a cursor at the start of src.
func newLineCursor(src []byte) *lineCursor { return &lineCursor{src: src, line: 1} }

// chunkCursor returns a cursor over src at the first line of c's text, so
// reading the lines of one document of a large file does not walk the
// documents before it.
func chunkCursor(src []byte, c chunk) *lineCursor {
	return &lineCursor{src: src, line: c.textLine, off: c.textOff}
}

// start returns the byte offset of 1-based line n, or -1 past the end.
func (c *lineCursor) start(n int) int {
	if n < c.line {
		c.line, c.off = 1, 0
	}
	for c.line < n {
		i := bytes.IndexByte(c.src[c.off:], '\n')
		if i < 0 {
			return -1
		}
		c.off += i + 1
		c.line++
	}
	return c.off
}

// firstContentIndent returns the indentation of the first non-blank line
// after 1-based line `after` (0 when there is none).
func (c *lineCursor) firstContentIndent(after int) int {
	for l := after + 1; ; l++ {
		off := c.start(l)
		if off < 0 || off >= len(c.src) {
			return 0
		}
		end := bytes.IndexByte(c.src[off:], '\n')
		if end < 0 {
			end = len(c.src) - off
		}
		t := strings.TrimRight(string(c.src[off:off+end]), "\r")
		if strings.TrimSpace(t) != "" {
			return len(t) - len(strings.TrimLeft(t, " "))
		}
	}
}

// readHeader fills apiVersion, kind and metadata from the node tree, which
// works for every kind, built-in or not.
func (o *Object) readHeader() {
	o.APIVersion, _ = o.Scalar("apiVersion")
	o.Kind, _ = o.Scalar("kind")
	o.Name, _ = o.Scalar("metadata", "name")
	o.Namespace, _ = o.Scalar("metadata", "namespace")
	o.Labels = stringMap(o.Node("metadata", "labels"))
	o.Annotations = stringMap(o.Node("metadata", "annotations"))
}

// stringMap reads a mapping of scalars; other entries are skipped.
func stringMap(n *yaml.Node) map[string]string {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return nil
	}
	m := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := n.Content[i+1]; v.Kind == yaml.ScalarNode {
			m[n.Content[i].Value] = v.Value
		}
	}
	return m
}
