package checks

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// A Compactor makes what a memo keeps for long (Remembered, once a run has
// learnt it) smaller, for the objects of one run:
//
//   - each finding's fix is kept without its edits, as a lean fix (its
//     description, kind and withheld note: what a review shows of a
//     finding it makes no suggestion for), one Fix for every finding with
//     the same words;
//   - each finding is held as a leanFinding: its file and object named
//     once for every finding that names them, its numbers in 32 bits (104
//     bytes, where a Finding takes 208), made a Finding again as it is
//     recalled;
//   - the strings many objects' findings have alike (a message naming a
//     container, a field path, a bucket's name, a fact's value, a memo
//     key) are held once, and so are the lists of reads and of rules that
//     the objects of one namespace or kind have alike.
//
// A recalled finding then has no edits (Finding.Fixable is false): a memo
// that keeps lean Remembered must not recall for an object whose findings'
// edits its caller needs (the files a pull request changes, whose findings
// become suggestions); it does recall for the others, whose findings a
// review lists with their fix's words. At 50,000 objects the findings memo
// held about 240 MiB after a first review, most of it edits, messages and
// paths repeated from object to object.
//
// Safe for concurrent use (a run remembers from its rule workers). It is
// made for one run and let go with it: what it holds once is held by the
// Remembered it made, not by it.
type Compactor struct {
	mu     sync.Mutex
	strs   map[string]string
	fixes  map[leanFixKey]*Fix
	places map[findingPlace]*findingPlace
	reads  map[string][]scopeRead
	ints   map[string][]int
	shapes map[shapeKey]*scopeShape
	buf    []byte
}

// leanFixKey is what a lean fix keeps of a fix.
type leanFixKey struct {
	description, withheld string
	kind                  FixKind
}

// NewCompactor returns a Compactor for one run.
func NewCompactor() *Compactor {
	return &Compactor{strs: map[string]string{}, fixes: map[leanFixKey]*Fix{}, places: map[findingPlace]*findingPlace{}, reads: map[string][]scopeRead{}, ints: map[string][]int{}, shapes: map[shapeKey]*scopeShape{}}
}

// Sizes of what a lean Remembered holds, for Bytes.
const (
	findingBytes    = int(unsafe.Sizeof(Finding{}))
	leanFindingSize = int(unsafe.Sizeof(leanFinding{}))
	placeBytes      = int(unsafe.Sizeof(findingPlace{}))
	fixBytes        = int(unsafe.Sizeof(Fix{}))
	rememberedBytes = int(unsafe.Sizeof(Remembered{}))
	scopedBytes     = int(unsafe.Sizeof(scopedFindings{}))
	shapeBytes      = int(unsafe.Sizeof(scopeShape{}))
	scopeReadBytes  = int(unsafe.Sizeof(scopeRead{}))
	keyedFactBytes  = int(unsafe.Sizeof(keyedFact{}))
	factReadBytes   = int(unsafe.Sizeof(factRead{}))
	// allocRound is what an allocation may take beyond its size (Go's
	// size classes round up, by at most an eighth above 128 bytes; a
	// small string's is at most 16 bytes).
	allocRound = 16
)

// Lean returns r as a memo keeps it for long (see Compactor): a copy, with
// lean fixes and shared strings and lists. r may be lean already (a
// Remembered learnt again in part keeps what it recalled).
func (c *Compactor) Lean(r *Remembered) *Remembered {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := &Remembered{rules: r.rules, own: r.own, lean: true}
	owned := 0
	out.findings = c.findings(r.findings, &owned)
	if len(r.rerun) > 0 {
		out.rerun = c.intList(r.rerun, &owned)
	}
	if len(r.facts) > 0 {
		out.facts = make([]factRead, len(r.facts))
		for i, f := range r.facts {
			out.facts[i] = factRead{f.fact, c.str(f.value, &owned)}
		}
	}
	if len(r.scoped) > 0 {
		out.scoped = make([]scopedFindings, len(r.scoped))
		for i, g := range r.scoped {
			out.scoped[i] = scopedFindings{c.shape(g.scopeShape, &owned), g.n}
		}
	}
	out.owned = owned
	return out
}

// findings returns l's findings with lean fixes and shared strings, as
// leanFindings when every one fits one, adding to owned what it holds
// first.
func (c *Compactor) findings(l findingList, owned *int) findingList {
	fs := l.appendTo(nil) // a lean list (learnt again in part) as Findings
	if len(fs) == 0 {
		return findingList{}
	}
	out := make([]Finding, len(fs))
	fit := true
	for i := range fs {
		f := fs[i]
		f.Message = c.str(f.Message, owned)
		f.Path = c.str(f.Path, owned)
		f.IdentityPath = c.str(f.IdentityPath, owned)
		if f.Fix != nil {
			f.Fix = c.leanFix(f.Fix, owned)
		}
		out[i] = f
		fit = fit && fitsLean(&f) && f.AfterFixOf == nil // a render's Map reads it
	}
	if !fit {
		return findingList{full: out}
	}
	lean := make([]leanFinding, len(out))
	for i := range out {
		lean[i] = c.leanOf(&out[i], owned)
	}
	return findingList{lean: lean}
}

// leanOf is f, which fitsLean, as a leanFinding: its strings and fix as
// f holds them (the caller makes them the Compactor's), its file and
// object a place held once.
func (c *Compactor) leanOf(f *Finding, owned *int) leanFinding {
	causeLine, causeColumn := causePlace(f) // in 32 bits: fitsLean held them to it
	return leanFinding{
		rule: f.RuleID, message: f.Message, path: f.Path, identityPath: f.IdentityPath,
		at: c.place(findingPlace{f.File, f.Object, mergedText(f.Merged), f.Cause}, owned), fix: f.Fix,
		line: int32(f.Line), column: int32(f.Column), endLine: int32(f.EndLine),
		containerLine: int32(f.ContainerLine), occurrence: int32(f.Occurrence), severity: int8(f.Severity),
		causeLine: int32(causeLine), causeColumn: int32(causeColumn),
	}
}

// place returns p as held once: the findings on one object name the same
// file and object.
func (c *Compactor) place(p findingPlace, owned *int) *findingPlace {
	if h, ok := c.places[p]; ok {
		return h
	}
	h := &p
	c.places[p] = h
	*owned += placeBytes + allocRound + len(p.merged)
	return h
}

// A findingList is the findings a Remembered keeps of some rules: as found
// (full), or, made lean (Compactor), as leanFindings; full also when one
// of them does not fit a leanFinding.
type findingList struct {
	full []Finding
	lean []leanFinding
}

// leanFinding is a Finding as a lean Remembered keeps it: its file and
// object named by a findingPlace that every finding on the object shares,
// its numbers in 32 bits and its severity in 8 (fitsLean), and the line
// and column of its Cause in its file (causePart), 0 for none.
type leanFinding struct {
	rule, message, path, identityPath string
	at                                *findingPlace
	fix                               *Fix
	line, column, endLine             int32
	containerLine, occurrence         int32
	causeLine, causeColumn            int32
	severity                          int8
}

// findingPlace is the file and object a finding names, the other
// objects it stands for (Finding.Merged, as mergedText writes them: ""
// for nearly all), and its Cause ("" for nearly all: a workload's
// findings share at most two places).
type findingPlace struct {
	file   string
	object ObjectRef
	merged string
	cause  string
}

// mergedText is objects as one comparable text, which mergedObjects reads
// back: each object's group, kind, name, namespace and document, each
// field ended by a zero byte.
func mergedText(objects []ObjectRef) string {
	var b strings.Builder
	for _, o := range objects {
		for _, s := range [...]string{o.Group, o.Kind, o.Name, o.Namespace, strconv.Itoa(o.Doc)} {
			b.WriteString(s)
			b.WriteByte(0)
		}
	}
	return b.String()
}

// mergedObjects reads the objects mergedText wrote (nil for "").
func mergedObjects(text string) []ObjectRef {
	if text == "" {
		return nil
	}
	f := strings.Split(strings.TrimSuffix(text, "\x00"), "\x00")
	out := make([]ObjectRef, 0, len(f)/5)
	for i := 0; i+4 < len(f); i += 5 {
		doc, _ := strconv.Atoi(f[i+4])
		out = append(out, ObjectRef{Group: f[i], Kind: f[i+1], Name: f[i+2], Namespace: f[i+3], Doc: doc})
	}
	return out
}

// fitsLean reports whether a leanFinding holds all of f that is kept: of
// a finding's Parts, only the line of its Cause in its own file
// (causePlace; a review's head, whose findings are not made lean, reads
// the others).
func fitsLean(f *Finding) bool {
	in32 := func(n int) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }
	l, c := causePlace(f)
	return in32(f.Line) && in32(f.Column) && in32(f.EndLine) && in32(f.ContainerLine) && in32(f.Occurrence) &&
		in32(l) && in32(c) && f.Severity >= math.MinInt8 && f.Severity <= math.MaxInt8
}

// causePlace is the line and column of f's Cause among its Parts when in
// f's own file (causePart), 0 for none.
func causePlace(f *Finding) (line, column int) {
	for _, p := range f.Parts {
		if p.Cause && p.File == f.File {
			return p.Line, p.Column
		}
	}
	return 0, 0
}

// finding is l as a Finding.
func (l *leanFinding) finding() Finding {
	return Finding{
		RuleID: l.rule, Severity: Severity(l.severity), File: l.at.file,
		Line: int(l.line), Column: int(l.column), EndLine: int(l.endLine),
		Message: l.message, Object: l.at.object, Path: l.path, Fix: l.fix,
		Occurrence: int(l.occurrence), IdentityPath: l.identityPath, ContainerLine: int(l.containerLine),
		Merged: mergedObjects(l.at.merged), Cause: l.at.cause, Parts: l.causePart(),
	}
}

// causePart is the Parts causePart gave l's finding, nil for none.
func (l *leanFinding) causePart() []Place {
	if l.causeLine == 0 {
		return nil
	}
	return []Place{{File: l.at.file, Line: int(l.causeLine), Column: int(l.causeColumn), Cause: true}}
}

// len is how many findings l holds.
func (l *findingList) len() int { return len(l.full) + len(l.lean) }

// appendTo appends l's findings to out.
func (l *findingList) appendTo(out []Finding) []Finding {
	out = append(out, l.full...)
	for i := range l.lean {
		out = append(out, l.lean[i].finding())
	}
	return out
}

// appendRefs appends references to l's findings to out (LeanFindings).
func (l *findingList) appendRefs(out []leanRef) []leanRef {
	for i := range l.full {
		out = append(out, refOfFull(&l.full[i]))
	}
	for i := range l.lean {
		out = append(out, refOfLean(&l.lean[i]))
	}
	return out
}

// appendRange appends l's findings i to j (excluded) to out.
func (l *findingList) appendRange(out []Finding, i, j int) []Finding {
	if i >= j {
		return out
	}
	if len(l.full) > 0 {
		return append(out, l.full[i:j]...)
	}
	for k := i; k < j; k++ {
		out = append(out, l.lean[k].finding())
	}
	return out
}

// str returns s as held once, adding its bytes to owned when this is the
// first time.
func (c *Compactor) str(s string, owned *int) string {
	if s == "" {
		return ""
	}
	if h, ok := c.strs[s]; ok {
		return h
	}
	c.strs[s] = s
	*owned += len(s) + allocRound
	return s
}

// leanFix returns f's lean fix, one for every fix with the same words.
func (c *Compactor) leanFix(f *Fix, owned *int) *Fix {
	k := leanFixKey{f.Description, f.Withheld, f.Kind}
	if l, ok := c.fixes[k]; ok {
		return l
	}
	l := &Fix{Description: c.str(f.Description, owned), Kind: f.Kind, Withheld: c.str(f.Withheld, owned)}
	c.fixes[k] = l
	*owned += fixBytes + allocRound
	return l
}

// readList returns rs as held once: the same buckets with the same
// digests, for the objects of one namespace, are one list.
func (c *Compactor) readList(rs []scopeRead, owned *int) []scopeRead {
	if len(rs) == 0 {
		return nil
	}
	b := c.buf[:0]
	for _, r := range rs {
		// Each bucket's name after its length: a name may hold any byte.
		b = binary.AppendUvarint(b, uint64(len(r.bucket)))
		b = append(append(b, r.bucket...), r.digest[:]...)
	}
	c.buf = b
	if l, ok := c.reads[string(b)]; ok {
		return l
	}
	l := make([]scopeRead, len(rs))
	for i, r := range rs {
		l[i] = scopeRead{c.str(r.bucket, owned), r.digest}
	}
	c.reads[string(b)] = l
	*owned += len(l)*scopeReadBytes + allocRound
	return l
}

// shape returns g as held once: the same reads (readList) and rules
// (intList), without facts about other objects, are one shape for the
// objects of a namespace or kind that have them alike.
func (c *Compactor) shape(g *scopeShape, owned *int) *scopeShape {
	reads, rules := c.readList(g.reads, owned), c.intList(g.rules, owned)
	var k shapeKey
	if len(g.facts) == 0 && len(reads) > 0 && len(rules) > 0 {
		k = shapeKey{&reads[0], &rules[0]}
		if h, ok := c.shapes[k]; ok {
			return h
		}
	}
	h := &scopeShape{reads: reads, rules: rules}
	if len(g.facts) > 0 {
		h.facts = make([]keyedFact, len(g.facts))
		for j, f := range g.facts {
			h.facts[j] = keyedFact{c.str(f.key, owned), f.fact, c.str(f.value, owned)}
		}
		*owned += keyedFactBytes*len(h.facts) + allocRound
	}
	if k.reads != nil {
		c.shapes[k] = h
	}
	*owned += shapeBytes + allocRound
	return h
}

// shapeKey names a shape by its lists as a Compactor holds them once
// (readList, intList): one list, one first element.
type shapeKey struct {
	reads *scopeRead
	rules *int
}

// intList returns is as held once.
func (c *Compactor) intList(is []int, owned *int) []int {
	if len(is) == 0 {
		return nil
	}
	b := c.buf[:0]
	for _, i := range is {
		b = append(b, byte(i), byte(i>>8), byte(i>>16), byte(i>>24))
	}
	c.buf = b
	if l, ok := c.ints[string(b)]; ok {
		return l
	}
	l := append([]int(nil), is...)
	c.ints[string(b)] = l
	*owned += 8*len(l) + allocRound
	return l
}

// leanBytes is Bytes for a lean r: its structs, and what it was the first
// to hold of what Lean shares (each shared string, fix and list is
// counted once, on the Remembered that first held it).
func (r *Remembered) leanBytes() int {
	n := rememberedBytes + allocRound + r.owned
	n += r.findings.bytes() + factReadBytes*len(r.facts)
	n += scopedBytes * len(r.scoped)
	// Size classes, and what a measure of the fixtures and the corpus
	// found beyond the structs and strings (TestMemoCostCoversMemory: 1.05
	// to 1.12 times without this quarter).
	return n + n/4
}

// bytes is what l's slices hold.
func (l *findingList) bytes() int {
	return findingBytes*len(l.full) + leanFindingSize*len(l.lean)
}

// A FindingTable holds findings for long as a lean memo holds them (see
// Compactor): each in a leanFinding of 104 bytes, where a Finding takes
// 208, its file and object named once for all the findings on an object,
// its strings shared with the findings that have them alike; and without
// its fix. A review server keeps a base's run, whose findings it reads
// only by identity and to list those a pull request fixes, without their
// fixes: about 150,000 findings at 50,000 objects.
type FindingTable struct {
	l findingList
}

// NewFindingTable returns fs, without their fixes, as a FindingTable.
func NewFindingTable(fs []Finding) FindingTable {
	if len(fs) == 0 {
		return FindingTable{}
	}
	c := NewCompactor()
	var owned int
	for i := range fs {
		if !fitsLean(&fs[i]) {
			full := make([]Finding, len(fs))
			for j, f := range fs {
				f.Fix = nil
				f.Message, f.Path, f.IdentityPath = c.str(f.Message, &owned), c.str(f.Path, &owned), c.str(f.IdentityPath, &owned)
				full[j] = f
			}
			return FindingTable{findingList{full: full}}
		}
	}
	lean := make([]leanFinding, len(fs))
	for i := range fs {
		f := fs[i]
		f.Fix = nil
		f.Message, f.Path, f.IdentityPath = c.str(f.Message, &owned), c.str(f.Path, &owned), c.str(f.IdentityPath, &owned)
		lean[i] = c.leanOf(&f, &owned)
	}
	return FindingTable{findingList{lean: lean}}
}

// Len is how many findings t holds.
func (t *FindingTable) Len() int { return t.l.len() }

// At returns t's finding i (0 ≤ i < Len), without a fix.
func (t *FindingTable) At(i int) Finding {
	if len(t.l.full) > 0 {
		return t.l.full[i]
	}
	return t.l.lean[i].finding()
}

// Bytes estimates the memory t holds besides its findings' rule IDs,
// messages and paths: its findings, and each file and object they name,
// held once.
func (t *FindingTable) Bytes() int {
	if len(t.l.full) > 0 {
		return TableBytes(t.l.full)
	}
	return tableBytes(len(t.l.lean), leanFindingSize, func(i int) (string, *ObjectRef) { p := t.l.lean[i].at; return p.file, &p.object })
}

// TableBytes is what NewFindingTable(fs) holds, as Bytes estimates it.
func TableBytes(fs []Finding) int {
	size := leanFindingSize
	for i := range fs {
		if !fitsLean(&fs[i]) {
			size = findingBytes
			break
		}
	}
	return tableBytes(len(fs), size, func(i int) (string, *ObjectRef) { return fs[i].File, &fs[i].Object })
}

// tableBytes is Bytes for n findings of size bytes, of which at names the
// file and object: a place for each run of findings on one object (counted
// again when not adjacent: an estimate from above).
func tableBytes(n, size int, at func(int) (string, *ObjectRef)) int {
	total := n * size
	for i := 0; i < n; i++ {
		file, o := at(i)
		if i > 0 {
			if pf, po := at(i - 1); pf == file && *po == *o {
				continue
			}
		}
		total += placeBytes + allocRound + len(file) + len(o.Group) + len(o.Kind) + len(o.Name) + len(o.Namespace)
	}
	return total
}
