package manifest

import (
	"sync"

	"go.yaml.in/yaml/v3"
)

// packedTree is a document's node tree flattened into arrays without
// pointers: about a fifth of the memory of the yaml.Node tree, and nothing
// for the garbage collector to trace. inflate rebuilds an equal tree (same
// kinds, styles, tags, values, comments, anchors, aliases, lines and
// columns) with two allocations.
type packedTree struct {
	nodes  []packedNode // in pre-order: a node's children follow it
	strs   string       // every value and extra string, concatenated
	extras []packedExtra
	tags   []string // distinct tags; packedNode.tag indexes them
}

// packedNode is one node. A mapping's or sequence's children are the
// children nodes that follow it in pre-order (each with its own subtree).
type packedNode struct {
	line, col int32
	children  uint32
	value     span
	extra     int32 // index into extras; -1 when the node has none
	alias     int32 // pre-order index of the anchored node; -1 when not an alias
	tag       uint16
	kind      uint8
	style     uint8
}

// packedExtra holds what few nodes have: an anchor and comments.
type packedExtra struct {
	anchor, head, line, foot span
}

// span is a substring of packedTree.strs.
type span struct{ off, n uint32 }

// packer packs the trees of one file: their strings go to one shared
// string, short ones (mapping keys, mostly) stored once. Packers are pooled
// (packers): their scratch space serves one file after another.
type packer struct {
	strs    []byte // scratch: copied into one exact-size string by finish
	interns map[string]span
	trees   []*packedTree

	// per tree, while packing it
	t       *packedTree
	tagIdx  map[string]uint16
	index   map[*yaml.Node]int32 // anchored node → pre-order index
	targets map[int32]*yaml.Node // alias node's pre-order index → its anchored node
	// tooManyTags is set when the tree has more distinct tags than a
	// packed tree indexes.
	tooManyTags bool
}

// maxPackedTags bounds the distinct tags of one packed tree (they are
// indexed by a uint16); a tree with more stays unpacked.
const maxPackedTags = 1 << 16

// pack flattens the tree under root, or returns nil when the tree has more
// distinct tags than a packed tree indexes; finish must be called before
// the tree is used.
func (p *packer) pack(root *yaml.Node) *packedTree {
	nodes, extras := countNodes(root)
	p.t = &packedTree{nodes: make([]packedNode, 0, nodes), extras: make([]packedExtra, 0, extras)}
	clear(p.tagIdx)
	p.index, p.targets, p.tooManyTags = nil, nil, false
	p.add(root)
	if p.tooManyTags {
		return nil
	}
	for i, target := range p.targets {
		if j, ok := p.index[target]; ok {
			p.t.nodes[i].alias = j
		}
	}
	p.trees = append(p.trees, p.t)
	return p.t
}

// finish hands the shared strings to every packed tree.
func (p *packer) finish() {
	s := string(p.strs)
	for _, t := range p.trees {
		t.strs = s
	}
}

// packers hold packers between files.
var packers = sync.Pool{New: func() any {
	return &packer{interns: map[string]span{}, tagIdx: map[string]uint16{}}
}}

// A packer that held more strings than these (a file of megabytes) is
// dropped, not pooled: clearing a map costs its size, and the next file is
// likely small.
const (
	maxPooledPackerBytes   = 1 << 20
	maxPooledPackerInterns = 4096
)

// release empties p and returns it to the pool.
func (p *packer) release() {
	if cap(p.strs) > maxPooledPackerBytes || len(p.interns) > maxPooledPackerInterns || len(p.tagIdx) > maxPooledPackerInterns {
		return
	}
	clear(p.interns)
	clear(p.trees)
	p.strs, p.trees, p.t, p.index, p.targets = p.strs[:0], p.trees[:0], nil, nil, nil
	packers.Put(p)
}

// countNodes counts the nodes under n and those with an anchor or comment,
// so the packed arrays are allocated once at their exact size.
func countNodes(n *yaml.Node) (nodes, extras int) {
	nodes = 1
	if hasExtra(n) {
		extras = 1
	}
	for _, c := range n.Content {
		a, b := countNodes(c)
		nodes, extras = nodes+a, extras+b
	}
	return nodes, extras
}

// hasExtra reports whether n has what packedExtra holds.
func hasExtra(n *yaml.Node) bool {
	return n.Anchor != "" || n.HeadComment != "" || n.LineComment != "" || n.FootComment != ""
}

func (p *packer) add(n *yaml.Node) {
	i := int32(len(p.t.nodes))
	tag, ok := p.tagIdx[n.Tag]
	if !ok && len(p.t.tags) == maxPackedTags {
		p.tooManyTags = true
	} else if !ok {
		tag = uint16(len(p.t.tags))
		p.t.tags = append(p.t.tags, n.Tag)
		p.tagIdx[n.Tag] = tag
	}
	pn := packedNode{
		line: int32(n.Line), col: int32(n.Column), children: uint32(len(n.Content)),
		value: p.str(n.Value), extra: -1, alias: -1,
		tag: tag, kind: uint8(n.Kind), style: uint8(n.Style),
	}
	if hasExtra(n) {
		pn.extra = int32(len(p.t.extras))
		p.t.extras = append(p.t.extras, packedExtra{
			anchor: p.str(n.Anchor), head: p.str(n.HeadComment), line: p.str(n.LineComment), foot: p.str(n.FootComment),
		})
		if n.Anchor != "" {
			if p.index == nil {
				p.index = map[*yaml.Node]int32{}
			}
			p.index[n] = i
		}
	}
	p.t.nodes = append(p.t.nodes, pn)
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		if p.targets == nil {
			p.targets = map[int32]*yaml.Node{}
		}
		p.targets[i] = n.Alias
	}
	for _, c := range n.Content {
		p.add(c)
	}
}

// str stores s and returns its span; strings of up to 64 bytes are stored
// once per file (mapping keys repeat in every container).
func (p *packer) str(s string) span {
	if s == "" {
		return span{}
	}
	if len(s) <= 64 {
		if sp, ok := p.interns[s]; ok {
			return sp
		}
	}
	sp := span{uint32(len(p.strs)), uint32(len(s))}
	p.strs = append(p.strs, s...)
	if len(s) <= 64 {
		p.interns[s] = sp
	}
	return sp
}

func (t *packedTree) str(s span) string { return t.strs[s.off : s.off+s.n] }

// inflate rebuilds the yaml.Node tree. Its strings share t's memory.
func (t *packedTree) inflate() *yaml.Node {
	if len(t.nodes) == 0 {
		return nil
	}
	nodes := make([]yaml.Node, len(t.nodes))
	slots := make([]*yaml.Node, len(t.nodes)-1) // every node but the root is one parent's child
	free := 0
	var build func(i int) int
	build = func(i int) int {
		pn := &t.nodes[i]
		n := &nodes[i]
		n.Kind, n.Style, n.Tag = yaml.Kind(pn.kind), yaml.Style(pn.style), t.tags[pn.tag]
		n.Value, n.Line, n.Column = t.str(pn.value), int(pn.line), int(pn.col)
		if pn.extra >= 0 {
			x := &t.extras[pn.extra]
			n.Anchor, n.HeadComment, n.LineComment, n.FootComment = t.str(x.anchor), t.str(x.head), t.str(x.line), t.str(x.foot)
		}
		if pn.alias >= 0 {
			n.Alias = &nodes[pn.alias]
		}
		next := i + 1
		if pn.children > 0 {
			c := slots[free : free+int(pn.children) : free+int(pn.children)]
			free += int(pn.children)
			for k := range c {
				c[k] = &nodes[next]
				next = build(next)
			}
			n.Content = c
		}
		return next
	}
	build(0)
	return &nodes[0]
}

// Pack stores every object's node tree in compact form (about a fifth of
// the memory, nothing for the garbage collector to trace) for a run that
// holds many files at once. Root then inflates the tree on demand; Hold
// keeps one inflated while rules run. Call Pack before the objects are
// shared between goroutines.
func (f *File) Pack() {
	p := packers.Get().(*packer)
	defer p.release()
	for _, o := range f.Objects {
		if o.root == nil || o.packed != nil {
			continue
		}
		if o.packed = p.pack(o.root); o.packed == nil {
			continue // stays unpacked
		}
		o.trees = &inflatedTrees{}
		o.root = nil
	}
	p.finish()
}
