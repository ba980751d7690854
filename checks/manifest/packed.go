package manifest

import (
	"math/bits"
	"sort"
	"sync"

	"go.yaml.in/yaml/v3"
)

// packedTree is a document's node tree flattened into arrays without
// pointers: about a fifth of the memory of the yaml.Node tree, and nothing
// for the garbage collector to trace. inflate rebuilds an equal tree (same
// kinds, styles, tags, values, comments, anchors, aliases, lines and
// columns) with two allocations.
type packedTree struct {
	nodes  []packedNode  // in pre-order: a node's children follow it
	strs   string        // every value and extra string, concatenated
	extras []packedExtra // in node order
	tags   []string      // tags other than commonTags; see tag
	// mayAlias is false when no node has an anchor, is an alias or is a
	// "<<" scalar (a merge key): then no path crosses an alias.
	mayAlias bool
	// inflated holds the inflated trees of the object packed here (see
	// Object.Root and Hold).
	inflated inflatedTrees
}

// packedNode is one node, in 16 bytes. A mapping's or sequence's children
// are the children nodes that follow it in pre-order (each with its own
// subtree). A scalar or alias has a value and no children, a mapping or
// sequence children and no value (yaml.v3 leaves it empty; pack refuses a
// tree where it is not), so one field holds either count. The node arrays
// are most of what a run of many files holds until its rules have run,
// hence the bit fields: a tree they cannot hold (a column past 65,535,
// more than 64 distinct tags counting commonTags) stays unpacked.
type packedNode struct {
	line uint32
	// off is a scalar's or alias's value offset in strs; n is its length,
	// or a mapping's or sequence's number of children.
	off, n uint32
	col    uint16
	// bits holds the kind (bits 0–2, log2 of yaml.Kind), the style (3–8),
	// the tag's index (9–14, see packedTree.tag) and whether the node has
	// an entry in extras (15).
	bits uint16
}

const (
	packedKindBits  = 3
	packedStyleBits = 6
	packedTagBits   = 6
	packedStyleAt   = packedKindBits
	packedTagAt     = packedStyleAt + packedStyleBits
	packedExtraBit  = 1 << (packedTagAt + packedTagBits)
	// maxPackedColumn is the widest column a packed node holds.
	maxPackedColumn = 1<<16 - 1
)

// kind returns the node's yaml.Kind.
func (pn *packedNode) kind() yaml.Kind { return yaml.Kind(1) << (pn.bits & (1<<packedKindBits - 1)) }

// style returns the node's yaml.Style.
func (pn *packedNode) style() yaml.Style {
	return yaml.Style(pn.bits>>packedStyleAt) & (1<<packedStyleBits - 1)
}

// tag returns the index of the node's tag (see packedTree.tag).
func (pn *packedNode) tag() int { return int(pn.bits>>packedTagAt) & (1<<packedTagBits - 1) }

// hasExtra reports whether the node has an entry in packedTree.extras.
func (pn *packedNode) hasExtra() bool { return pn.bits&packedExtraBit != 0 }

// packNodeBits packs a kind, style and tag index, or returns false when
// they do not fit.
func packNodeBits(kind yaml.Kind, style yaml.Style, tag int, extra bool) (uint16, bool) {
	if bits.OnesCount(uint(kind)) != 1 || kind > yaml.AliasNode || style >= 1<<packedStyleBits || tag >= 1<<packedTagBits {
		return 0, false
	}
	b := uint16(bits.TrailingZeros(uint(kind))) | uint16(style)<<packedStyleAt | uint16(tag)<<packedTagAt
	if extra {
		b |= packedExtraBit
	}
	return b, true
}

// isCollection reports whether a node of this kind has children (and no
// value): a mapping or a sequence (or a document, not packed).
func isCollection(kind yaml.Kind) bool {
	return kind == yaml.MappingNode || kind == yaml.SequenceNode || kind == yaml.DocumentNode
}

// children returns how many children the node has.
func (pn *packedNode) children() int {
	if isCollection(pn.kind()) {
		return int(pn.n)
	}
	return 0
}

// value returns the span of the node's value.
func (pn *packedNode) value() span {
	if isCollection(pn.kind()) {
		return span{}
	}
	return span{pn.off, pn.n}
}

// packedExtra holds what few nodes have: an anchor, comments, and an alias
// node's target.
type packedExtra struct {
	node                     int32 // pre-order index of the node it belongs to
	anchor, head, line, foot span
	alias                    int32 // pre-order index of the anchored node; -1 when none
}

// extra returns node i's entry in extras, or nil when it has none.
func (t *packedTree) extra(i int) *packedExtra {
	if !t.nodes[i].hasExtra() {
		return nil
	}
	x := sort.Search(len(t.extras), func(x int) bool { return t.extras[x].node >= int32(i) })
	return &t.extras[x]
}

// alias returns the pre-order index of the node that node i, an alias,
// names, or -1.
func (t *packedTree) alias(i int) int {
	if x := t.extra(i); x != nil {
		return int(x.alias)
	}
	return -1
}

// span is a substring of packedTree.strs.
type span struct{ off, n uint32 }

// packer packs the trees of one file: their strings go to one shared
// string, short ones (mapping keys, mostly) stored once. Packers are pooled
// (packers): their scratch space serves one file after another.
type packer struct {
	strs    []byte // scratch: copied into one exact-size string by finish
	interns map[string]span
	objects []*Object // packed by packObject: finish hands them strs

	// per tree, while packing it
	t       *packedTree
	tagIdx  map[string]int
	index   map[*yaml.Node]int32 // anchored node → pre-order index
	targets map[int32]*yaml.Node // alias node's pre-order index → its anchored node
	// unpackable is set when the tree has more distinct tags than a
	// packed tree indexes, or a node that has both a value and children.
	unpackable bool
}

// maxPackedTags bounds the distinct tags of one packed tree, commonTags
// included (they are indexed by six bits of packedNode); a tree with more
// stays unpacked.
const maxPackedTags = 1 << packedTagBits

// pack flattens the tree under root, or returns nil when the tree has a
// node packedNode cannot hold (more distinct tags than a packed tree
// indexes, a column past maxPackedColumn) or one that has both a value and
// children (yaml.v3 builds none). It serves packObject: the tree has its
// strings once finish has run.
func (p *packer) pack(root *yaml.Node) *packedTree {
	nodes, extras := countNodes(root)
	p.t = &packedTree{nodes: make([]packedNode, 0, nodes), extras: make([]packedExtra, 0, extras)}
	clear(p.tagIdx)
	p.index, p.targets, p.unpackable = nil, nil, false
	p.add(root)
	if p.unpackable {
		return nil
	}
	for i, target := range p.targets {
		if j, ok := p.index[target]; ok {
			p.t.extra(int(i)).alias = j
		}
	}
	return p.t
}

// finish hands the shared strings to the tree of every object packObject
// packed, and points the objects' header strings at them.
func (p *packer) finish() {
	s := string(p.strs)
	for _, o := range p.objects {
		o.packed.strs = s
		p.shareStrings(o, s)
	}
}

// packers hold packers between files.
var packers = sync.Pool{New: func() any {
	return &packer{interns: map[string]span{}, tagIdx: map[string]int{}}
}}

// A packer that held more strings than these (a large file) is dropped,
// not pooled: clearing a map costs its size, the next file is likely
// small, and the pool's buffers stay on the heap until the run's end
// (with 1 MiB, a corpus run's peak was 1 to 2 MiB higher).
const (
	maxPooledPackerBytes   = 128 << 10
	maxPooledPackerInterns = 4096
)

// release empties p and returns it to the pool.
func (p *packer) release() {
	if cap(p.strs) > maxPooledPackerBytes || len(p.interns) > maxPooledPackerInterns || len(p.tagIdx) > maxPooledPackerInterns {
		return
	}
	clear(p.interns)
	clear(p.objects)
	p.strs, p.objects, p.t, p.index, p.targets = p.strs[:0], p.objects[:0], nil, nil, nil
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
	return n.Anchor != "" || n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" || n.Kind == yaml.AliasNode
}

// commonTags are the tags yaml.v3 gives plain YAML: packed nodes index
// them without a table of their own, so most trees hold no tags at all.
var commonTags = [...]string{"!!str", "!!map", "!!seq", "!!int", "!!bool", "!!null", "!!float", "!!timestamp", "!!binary", "!!merge", ""}

// commonTag returns tag's index in commonTags.
func commonTag(tag string) (int, bool) {
	for i, c := range commonTags {
		if c == tag {
			return i, true
		}
	}
	return 0, false
}

// tag returns the tag whose index a packed node holds: one of commonTags,
// else one of the tree's own.
func (t *packedTree) tag(i int) string {
	if i < len(commonTags) {
		return commonTags[i]
	}
	return t.tags[i-len(commonTags)]
}

func (p *packer) add(n *yaml.Node) {
	i := int32(len(p.t.nodes))
	tag, ok := commonTag(n.Tag)
	if !ok {
		tag, ok = p.tagIdx[n.Tag]
	}
	if !ok && len(commonTags)+len(p.t.tags) == maxPackedTags {
		p.unpackable = true
	} else if !ok {
		tag = len(commonTags) + len(p.t.tags)
		p.t.tags = append(p.t.tags, n.Tag)
		p.tagIdx[n.Tag] = tag
	}
	extra := hasExtra(n)
	b, fits := packNodeBits(n.Kind, n.Style, tag, extra)
	if !fits || n.Line < 0 || int64(n.Line) > 1<<32-1 || n.Column < 0 || n.Column > maxPackedColumn {
		p.unpackable = true
	}
	pn := packedNode{line: uint32(n.Line), col: uint16(n.Column), bits: b}
	if isCollection(n.Kind) {
		pn.n = uint32(len(n.Content))
		p.unpackable = p.unpackable || n.Value != ""
	} else {
		v := p.str(n.Value)
		pn.off, pn.n = v.off, v.n
		p.unpackable = p.unpackable || len(n.Content) > 0
	}
	if extra {
		p.t.extras = append(p.t.extras, packedExtra{
			node: i, anchor: p.str(n.Anchor), head: p.str(n.HeadComment), line: p.str(n.LineComment), foot: p.str(n.FootComment), alias: -1,
		})
		if n.Anchor != "" {
			if p.index == nil {
				p.index = map[*yaml.Node]int32{}
			}
			p.index[n] = i
		}
	}
	p.t.nodes = append(p.t.nodes, pn)
	if n.Anchor != "" || n.Kind == yaml.AliasNode || (n.Kind == yaml.ScalarNode && n.Value == "<<") {
		p.t.mayAlias = true
	}
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
	extras := 0 // the next node with extras takes extras[extras] (they are in node order)
	var build func(i int) int
	build = func(i int) int {
		pn := &t.nodes[i]
		n := &nodes[i]
		n.Kind, n.Style, n.Tag = pn.kind(), pn.style(), t.tag(pn.tag())
		n.Value, n.Line, n.Column = t.str(pn.value()), int(pn.line), int(pn.col)
		if pn.hasExtra() {
			x := &t.extras[extras]
			extras++
			n.Anchor, n.HeadComment, n.LineComment, n.FootComment = t.str(x.anchor), t.str(x.head), t.str(x.line), t.str(x.foot)
			if x.alias >= 0 {
				n.Alias = &nodes[x.alias]
			}
		}
		next := i + 1
		if children := pn.children(); children > 0 {
			c := slots[free : free+children : free+children]
			free += children
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
	p := takePacker(true)
	for _, o := range f.Objects {
		p.packObject(o)
	}
	p.done()
}

// takePacker returns a pooled packer, or nil when nothing is to be packed.
func takePacker(pack bool) *packer {
	if !pack {
		return nil
	}
	return packers.Get().(*packer)
}

// done hands every tree p packed its strings (finish) and returns p to the
// pool; a nil p does nothing.
func (p *packer) done() {
	if p == nil {
		return
	}
	p.finish()
	p.release()
}

// packObject packs o's node tree, unless it is packed already or stays
// unpacked (pack returns nil).
func (p *packer) packObject(o *Object) {
	if o.root == nil || o.packed != nil {
		return
	}
	if o.packed = p.pack(o.root); o.packed == nil {
		return // stays unpacked
	}
	o.root = nil
	p.objects = append(p.objects, o)
}

// shareStrings points o's header strings and its labels and annotations at
// the equal strings in s, the packed trees' strings: each was a string of
// its own from the parse, held for the whole run.
func (p *packer) shareStrings(o *Object, s string) {
	share := func(v string) string {
		if sp, ok := p.interns[v]; ok {
			return s[sp.off : sp.off+sp.n]
		}
		return v
	}
	o.APIVersion, o.Kind, o.Name, o.Namespace = share(o.APIVersion), share(o.Kind), share(o.Name), share(o.Namespace)
	for _, m := range []*map[string]string{&o.Labels, &o.Annotations} {
		if *m == nil {
			continue
		}
		shared := make(map[string]string, len(*m))
		for k, v := range *m {
			shared[share(k)] = share(v)
		}
		*m = shared
	}
}
