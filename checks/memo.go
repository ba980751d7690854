package checks

import (
	"crypto/sha256"
	"hash"
	"slices"
	"strings"
	"sync"

	"github.com/prodready/prodready/checks/manifest"
)

// A Memo keeps, from one run to the next, what the rules found on an
// object that did not change (a server reviewing push after push of one
// repository keeps its parsed files, and so its objects, across runs).
// Only the findings of a rule that read nothing but the object and the
// config are kept: while a memo is kept, each rule sees a Context that
// records what it reads (every Context method that looks at other objects,
// and every Index), and a rule that read more is run again on the object in
// every run. What a rule reads of the run about the object itself (its
// effective namespace, its deployment unit, an ObjectFact such as whether a
// kustomization names its file as a patch) is remembered with its value,
// and the findings are recalled only while each value is still the same.
//
// The objects a Memo is given are the run's; a memo must recall for an
// object only what was remembered for that same object (the same parse,
// shared between runs) under the same config: findings carry the object's
// file, lines and the config's parameters. A memo may keep what it is given
// made lean (Compactor.Lean): the findings it then recalls have fixes
// without their edits, so it must not recall for an object whose findings'
// edits its caller needs.
type Memo interface {
	// Recall returns what was remembered for o, or nil.
	Recall(o *manifest.Object) *Remembered
	// Remember keeps r for o; r must not be changed after. It returns
	// what it keeps: r, or r made lean (Compactor.Lean), whose findings
	// are r's but for their fixes' edits. A run whose findings need no
	// fix (Options.NoFixes) takes its object's findings from it.
	Remember(o *manifest.Object, r *Remembered) *Remembered
	// Key names o's content the same in every run that has it (its
	// file's path and blob, and its place in the file), or "" when o has
	// no such name (a render's object): the findings of a rule that read
	// the other objects of o's namespace are recalled only while the keys
	// of that namespace's objects are the same.
	Key(o *manifest.Object) string
}

// Remembered is what a run learnt of one object's rules: the findings of
// those that read only the object and the config, those of the rules that
// read some parts of the run (a namespace's objects, a kind's, facts about
// other objects) with what those parts were, which rules read more, and
// the facts about the object they read.
//
// Its findings are one list, the object's own first, then each group's
// in order (evaluateMemo's order), and a group is its shape (what it read
// and its rules, which a Compactor holds once for the objects that have
// it alike) and how many findings it has: most groups find nothing, and a
// group that held its rules' list and its findings' slices took 120 bytes
// (about 237,000 of them, 28 MB, at 50,000 objects).
type Remembered struct {
	rules    int         // how many rules ran (the config's enabled rules)
	findings findingList // the object's own (own of them), then each group's
	own      int32
	scoped   []scopedFindings
	rerun    []int // indexes of the rules that read other objects
	facts    []factRead
	// lean is set on what a Compactor made (Lean), which counts in owned
	// what it was the first to hold of what it shares with others.
	lean  bool
	owned int
}

// scopedFindings are the findings of the rules that read, besides their
// object, the same parts of the run (their scopeShape): n of the
// Remembered's findings, after its own and the earlier groups'.
type scopedFindings struct {
	*scopeShape
	n int32
}

// scopeShape is what the rules of a group read, which they can name
// (SelectingServices reads the objects of a namespace, ByKind those of a
// kind): each part's digest and each fact about another object, named by
// the memo's key; and those rules.
type scopeShape struct {
	reads []scopeRead
	facts []keyedFact
	rules []int // their indexes among the run's rules
}

// scopeRead is one part of the run a rule read (a bucket: "ns:" and a
// namespace, "kind:" and a kind, "kn:" a kind and a name, "kust" the
// kustomizations), with its digest then.
type scopeRead struct {
	bucket string
	digest [sha256.Size]byte
}

// keyedFact is a fact a rule read about another object, named by the
// memo's key, with its value then.
type keyedFact struct {
	key   string
	fact  *ObjectFact
	value string
}

// Bytes estimates the memory r holds, for a cache that counts it: a
// finding's struct, its strings and its fix.
func (r *Remembered) Bytes() int {
	if r.lean {
		return r.leanBytes()
	}
	const findingSize, fixSize = 320, 256
	n := 96 + 8*len(r.rerun) + 48*len(r.facts)
	count := func(fs []Finding) {
		for i := range fs {
			f := &fs[i]
			n += findingSize + len(f.Message) + len(f.Path) + len(f.IdentityPath)
			if f.Fix != nil {
				n += fixSize + len(f.Fix.Description) + 128*len(f.Fix.Edits)
			}
		}
	}
	count(r.findings.full)
	for _, s := range r.scoped {
		n += 96 + 64*len(s.reads) + 64*len(s.facts) + 8*len(s.rules)
		for _, f := range s.facts {
			n += len(f.key) + len(f.value)
		}
		for _, rd := range s.reads {
			n += len(rd.bucket)
		}
	}
	return n
}

// An ObjectFact is something the other objects of a run say about one
// object, computed by of from the Context: a rule that asks for it through
// Context.Fact, about the object it checks, may still have its findings
// remembered (Memo), as long as the fact's value is the same in the next run.
type ObjectFact struct {
	of func(*Context, *manifest.Object) string
}

// NewObjectFact returns the fact of computes.
func NewObjectFact(of func(*Context, *manifest.Object) string) *ObjectFact {
	return &ObjectFact{of: of}
}

// Fact returns fact's value for o in ctx's run.
func (c *Context) Fact(fact *ObjectFact, o *manifest.Object) string {
	c.readFact(fact, o)
	return fact.of(c.untracked(), o)
}

// The facts Context answers itself.
var (
	namespaceFact = NewObjectFact(func(c *Context, o *manifest.Object) string { return c.place[o].namespace() })
	unitFact      = NewObjectFact(func(c *Context, o *manifest.Object) string { return c.place[o].unit() })
)

type factRead struct {
	fact  *ObjectFact
	value string
}

// tracking records what one rule read while it checked one object (or
// what a tracked Index's build, or a PerObject's computation, read: then
// self is nil).
type tracking struct {
	self *manifest.Object
	root *Context // the run's Context, which records nothing
	reads
	facts []factRead // about self
}

// reads are what was read of the run besides an object and the config.
type reads struct {
	others bool     // the run's objects at large
	scopes []string // buckets whose objects were read (see scopeRead)
	// otherFacts are facts read about objects other than self.
	otherFacts []otherFact
}

// otherFact is a fact read about an object other than the one checked.
type otherFact struct {
	o     *manifest.Object
	fact  *ObjectFact
	value string
}

// readOthers records that the rule reads other objects of the run.
func (c *Context) readOthers() {
	if c.track != nil {
		c.track.others = true
	}
}

// readBucket records that the rule reads the objects of bucket (see
// scopeRead), whatever they are.
func (c *Context) readBucket(bucket string) {
	if t := c.track; t != nil && !slices.Contains(t.scopes, bucket) {
		t.scopes = append(t.scopes, bucket)
	}
}

// readNamespaceOf records that the rule reads the objects that may share
// o's namespace: those of o's effective namespace and those whose namespace
// is unknown (SameNamespace). An object of unknown namespace may share
// any: that is reading other objects.
func (c *Context) readNamespaceOf(o *manifest.Object) {
	t := c.track
	if t == nil {
		return
	}
	ns := t.root.place[o].namespace()
	if ns == "" {
		t.others = true
		return
	}
	c.readBucket("ns:" + ns)
	c.readBucket("ns:")
}

// readFact records that the rule reads fact about o, with its value.
func (c *Context) readFact(fact *ObjectFact, o *manifest.Object) {
	t := c.track
	if t == nil {
		return
	}
	if o != t.self {
		for _, r := range t.otherFacts {
			if r.o == o && r.fact == fact {
				return
			}
		}
		t.otherFacts = append(t.otherFacts, otherFact{o, fact, fact.of(t.root, o)})
		return
	}
	for _, r := range t.facts {
		if r.fact == fact {
			return
		}
	}
	t.facts = append(t.facts, factRead{fact, fact.of(t.root, o)})
}

// replay records in c's tracking what r says was read (by an Index's build
// or a PerObject's computation, for the rule that reads its value).
func (c *Context) replay(r *reads) {
	t := c.track
	if t == nil {
		return
	}
	t.others = t.others || r.others
	for _, b := range r.scopes {
		c.readBucket(b)
	}
	for _, f := range r.otherFacts {
		c.readFact(f.fact, f.o)
	}
}

// tracked returns a copy of c's run Context that records what is read in
// t, or nil when the run keeps no memo (nothing is recorded).
func (c *Context) tracked(t *tracking) *Context {
	root := c.untracked()
	if root.memo == nil {
		return nil
	}
	t.root = root
	seen := *root
	seen.track = t
	return &seen
}

// untracked returns the run's Context, which records nothing.
func (c *Context) untracked() *Context {
	if c.track != nil {
		return c.track.root
	}
	return c
}

// recallAll is evaluateMemo for an object none of whose remembered
// findings is stale (every part of the run its rules read is unchanged):
// it returns what was remembered, whose findings (r.appendTo) are the
// memo's own slices, not copied, and appends to out those of the rules
// that read more, run again, in evaluateMemo's order. nil when obj has
// findings to learn again (nothing recalled, or a part changed): then
// evaluateMemo checks it.
func recallAll(out []Finding, ctx *Context, rules []*Rule, obj *manifest.Object) (*Remembered, []Finding) {
	r := ctx.memo.Recall(obj)
	if r == nil || !r.valid(ctx, obj, len(rules)) {
		return nil, out
	}
	for i := range r.scoped {
		if !r.scoped[i].holds(ctx) {
			return nil, out
		}
	}
	if len(r.rerun) > 0 {
		obj.Hold()
		defer obj.Release()
		for _, i := range r.rerun {
			out = append(out, checkOne(ctx, rules[i], obj)...)
		}
	}
	return r, out
}

// count is how many findings r remembers.
func (r *Remembered) count() int { return r.findings.len() }

// appendTo appends r's findings to out, in evaluateMemo's order.
func (r *Remembered) appendTo(out []Finding) []Finding { return r.findings.appendTo(out) }

// evaluateMemo is evaluateObject for a run that keeps a memo: it recalls
// what an earlier run found on obj, runs only the rules that read more
// than obj and the parts of the run it can name (or every rule when
// nothing is recalled), and those whose parts changed, remembering what
// they read, and holds a packed object's tree only while a rule runs on
// it.
func evaluateMemo(out []Finding, ctx *Context, rules []*Rule, obj *manifest.Object) []Finding {
	_, out = evaluateMemoKept(out, ctx, rules, obj, true)
	return out
}

// evaluateMemoKept is evaluateMemo that, unless all, appends to out only
// the findings of the rules that read more (run again in every run) and
// returns what the memo keeps for obj, which holds the others, in
// recallAll's order: a run without fixes (Options.NoFixes) reads them
// there, lean, and does not hold a copy of every finding beside the
// memo's while it runs (at 50,000 objects a first review's base held some
// 100 MB of findings, their messages and paths, beside the memo's 70).
// With all it is evaluateMemo, and returns no Remembered.
func evaluateMemoKept(out []Finding, ctx *Context, rules []*Rule, obj *manifest.Object, all bool) (*Remembered, []Finding) {
	r := ctx.memo.Recall(obj)
	if r == nil || !r.valid(ctx, obj, len(rules)) {
		obj.Hold()
		defer obj.Release()
		d := &draft{rules: len(rules)}
		l := newLearner(ctx, obj)
		for i := range rules {
			out = d.learn(out, l, rules, i, all)
		}
		kept := ctx.memo.Remember(obj, d.done())
		if all {
			return nil, out
		}
		return kept, out
	}
	if all {
		out = r.findings.appendRange(slices.Grow(out, r.count()), 0, int(r.own))
	}
	var stale []int // of r.scoped
	at := int(r.own)
	for i := range r.scoped {
		n := int(r.scoped[i].n)
		if r.scoped[i].holds(ctx) {
			if all {
				out = r.findings.appendRange(out, at, at+n)
			}
		} else {
			stale = append(stale, i)
		}
		at += n
	}
	kept := r
	if all {
		kept = nil
	}
	if len(r.rerun) == 0 && len(stale) == 0 {
		return kept, out
	}
	obj.Hold()
	defer obj.Release()
	for _, i := range r.rerun {
		out = append(out, checkOne(ctx, rules[i], obj)...)
	}
	if len(stale) == 0 {
		return kept, out
	}
	// What changed is learnt again, into a new Remembered: r may be in use
	// by another run, and its lists are clipped so that appending copies
	// (its findings, lean ones made Findings again, are copied).
	d := &draft{rules: r.rules, own: r.findings.appendRange(nil, 0, int(r.own)), rerun: slices.Clip(r.rerun), facts: slices.Clip(r.facts)}
	at = int(r.own)
	for i, g := range r.scoped {
		n := int(g.n)
		if !slices.Contains(stale, i) {
			d.groups = append(d.groups, draftGroup{reads: g.reads, facts: g.facts, rules: slices.Clip(g.rules), findings: r.findings.appendRange(nil, at, at+n)})
		}
		at += n
	}
	l := newLearner(ctx, obj)
	for _, i := range stale {
		for _, rule := range r.scoped[i].rules {
			out = d.learn(out, l, rules, rule, all)
		}
	}
	kept = ctx.memo.Remember(obj, d.done())
	if all {
		return nil, out
	}
	return kept, out
}

// A draft is a Remembered being learnt, each group's findings apart
// until done makes them one list.
type draft struct {
	rules  int
	own    []Finding
	groups []draftGroup
	rerun  []int
	facts  []factRead
}

// draftGroup is a group of a draft: what its rules read, and their
// findings.
type draftGroup struct {
	reads    []scopeRead
	facts    []keyedFact
	rules    []int
	findings []Finding
}

// readsBuckets reports whether g read buckets, in that order, and nothing
// else.
func (g *draftGroup) readsBuckets(buckets []string) bool {
	if len(g.reads) != len(buckets) {
		return false
	}
	for i, b := range buckets {
		if g.reads[i].bucket != b {
			return false
		}
	}
	return true
}

// done returns what d learnt as a Remembered, its slices copied to their
// length: a memo keeps every object's for as long as its parse is cached
// (the room appends left was 4 of the 90 MiB a review's cache held at
// 10,000 objects).
func (d *draft) done() *Remembered {
	r := &Remembered{rules: d.rules, own: int32(len(d.own)), rerun: exact(d.rerun), facts: exact(d.facts)}
	n := len(d.own)
	for _, g := range d.groups {
		n += len(g.findings)
	}
	if n > 0 {
		r.findings.full = append(make([]Finding, 0, n), d.own...)
	}
	if len(d.groups) > 0 {
		r.scoped = make([]scopedFindings, len(d.groups))
		for i, g := range d.groups {
			r.findings.full = append(r.findings.full, g.findings...)
			r.scoped[i] = scopedFindings{&scopeShape{reads: exact(g.reads), facts: exact(g.facts), rules: exact(g.rules)}, int32(len(g.findings))}
		}
	}
	return r
}

// A learner runs rules on one object, each seeing a Context that records
// what it reads; one learner serves every rule of the object in turn (two
// allocations an object, not two a rule).
type learner struct {
	t    tracking
	seen Context
}

func newLearner(ctx *Context, obj *manifest.Object) *learner {
	l := &learner{}
	l.t.self, l.t.root = obj, ctx
	l.seen = *ctx
	l.seen.track = &l.t
	return l
}

// learn runs rules[i] on l's object, recording what it reads, and
// remembers its findings in d by what the rule read: nothing but the
// object (and facts about it), parts of the run it can name, or more. It
// appends them to out when all, else only when the rule read more (d
// does not keep them).
func (d *draft) learn(out []Finding, l *learner, rules []*Rule, i int, all bool) []Finding {
	t, ctx, obj := &l.t, l.t.root, l.t.self
	t.others, t.scopes, t.otherFacts, t.facts = false, t.scopes[:0], t.otherFacts[:0], t.facts[:0]
	fs := checkOne(&l.seen, rules[i], obj)
	if all {
		out = append(out, fs...)
	}
	scoped := !t.others && (len(t.scopes) > 0 || len(t.otherFacts) > 0)
	g := -1
	if scoped && len(t.otherFacts) == 0 {
		// Most rules of an object read the same buckets: found by their
		// names, a group needs no digest looked up again.
		g = slices.IndexFunc(d.groups, func(g draftGroup) bool { return len(g.facts) == 0 && g.readsBuckets(t.scopes) })
	}
	if scoped && g < 0 {
		var reads []scopeRead
		var facts []keyedFact
		reads, facts, t.others = ctx.keyedReads(&t.reads)
		if !t.others {
			g = slices.IndexFunc(d.groups, func(g draftGroup) bool {
				return slices.Equal(g.reads, reads) && slices.Equal(g.facts, facts)
			})
			if g < 0 {
				g = len(d.groups)
				d.groups = append(d.groups, draftGroup{reads: reads, facts: facts})
			}
		}
	}
	switch {
	case t.others:
		d.rerun = append(d.rerun, i)
		if !all {
			out = append(out, fs...)
		}
		return out
	case scoped:
		d.groups[g].rules = append(d.groups[g].rules, i)
		d.groups[g].findings = append(d.groups[g].findings, fs...)
	default:
		d.own = append(d.own, fs...)
	}
	for _, f := range t.facts {
		if !slices.ContainsFunc(d.facts, func(g factRead) bool { return g.fact == f.fact }) {
			d.facts = append(d.facts, f)
		}
	}
	return out
}

// exact returns s, or a copy of it without room to grow.
func exact[S ~[]E, E any](s S) S {
	if len(s) == cap(s) {
		return s
	}
	return append(S(nil), s...)
}

// valid reports whether r, remembered for obj, holds in ctx's run: the
// same rules, and every fact about obj they read unchanged.
func (r *Remembered) valid(ctx *Context, obj *manifest.Object, rules int) bool {
	if r.rules != rules {
		return false
	}
	for _, f := range r.facts {
		if f.fact.of(ctx, obj) != f.value {
			return false
		}
	}
	return true
}

// holds reports whether what the rule read is as it was in ctx's run.
func (s *scopeShape) holds(ctx *Context) bool {
	for _, rd := range s.reads {
		if d, ok := ctx.bucketDigest(rd.bucket); !ok || d != rd.digest {
			return false
		}
	}
	for _, f := range s.facts {
		o := ctx.objectByKey(f.key)
		if o == nil || f.fact.of(ctx, o) != f.value {
			return false
		}
	}
	return true
}

// bucketDigests are the digests of a run's buckets (see scopeRead), made
// once, the first time a rule that read one is remembered or recalled.
type bucketDigests struct {
	once sync.Once
	// of holds each bucket's digest, or that it holds an object the memo
	// has no key for (what a rule read there cannot be recalled): one
	// lookup for a rule's every read of it.
	of map[string]bucketDigest
	// byKey are the run's objects by the memo's key.
	byKey map[string]*manifest.Object
	// keys are the memo's keys of the run's objects, in run order: ""
	// for an object without one, or whose key an earlier object has.
	keys []string
	// byKindName holds the digests of the buckets of a kind and a name,
	// made when first read (a run has about one an object, and a rule
	// reads few of them).
	byKindName sync.Map // bucket name -> bucketDigest
}

// bucketDigest is one bucket's digest, or unnamed.
type bucketDigest struct {
	digest  [sha256.Size]byte
	unnamed bool
}

// bucketID names a bucket without making its name (see buckets): part is
// 'n' (a namespace, a), 'k' (a kind, a), 'm' (a kind a and a name b) or
// 's' (the kustomizations).
type bucketID struct {
	part byte
	a, b string
}

// name is the bucket's name, as the reads record it.
func (id bucketID) name() string {
	switch id.part {
	case 'n':
		return "ns:" + id.a
	case 'k':
		return "kind:" + id.a
	case 'm':
		return "kn:" + id.a + "\x00" + id.b
	}
	return "kust"
}

// bucketIDs appends to ids the buckets o is in.
func (c *Context) bucketIDs(o *manifest.Object, ids []bucketID) []bucketID {
	ids = append(ids, bucketID{'n', c.place[o].namespace(), ""}, bucketID{'k', o.Kind, ""}, bucketID{'m', o.Kind, o.Name})
	if IsKustomization(o) {
		ids = append(ids, bucketID{part: 's'})
	}
	return ids
}

// objectByKey returns the object of ctx's run the memo names k, or nil.
func (c *Context) objectByKey(k string) *manifest.Object {
	return c.madeDigests().byKey[k]
}

// bucketDigest returns the digest of bucket in ctx's run: a hash of the
// memo's key, effective namespace and deployment unit of each object in
// it, in run order; false when an object of it has no key. Two runs with
// one digest for a bucket hold the same objects there, with the same
// content, in the same order, namespaces and units.
//
// The run's objects are put in their namespace's, kind's and the
// kustomizations' buckets first, by index, and each bucket is then hashed
// with one SHA-256 state made once: a hash state and a name made for every
// bucket of every object were a tenth of a push's CPU at 50,000 objects.
// A bucket of a kind and a name (kindNameDigest) is hashed when first read.
func (c *Context) bucketDigest(bucket string) ([sha256.Size]byte, bool) {
	d := c.madeDigests()
	if strings.HasPrefix(bucket, "kn:") {
		if e, ok := d.byKindName.Load(bucket); ok {
			return e.(bucketDigest).result()
		}
		e := c.kindNameDigest(bucket)
		d.byKindName.Store(bucket, e)
		return e.result()
	}
	return d.of[bucket].result()
}

// madeDigests returns the run's bucket digests, made the first time.
func (c *Context) madeDigests() *bucketDigests {
	d := c.digests
	d.once.Do(func() {
		// Each bucket gets an index in order of first sight; pairs are
		// (bucket, object) in run order, then counted into place by
		// bucket (a map of a slice per bucket grew 50,000 slices a run).
		// index holds a bucket of each namespace and kind, not of each
		// object (kind and name are kindNameDigest's): sized for every
		// object it was 3 MB of a push's allocations at 50,000 objects,
		// where it holds a few hundred buckets.
		index := map[bucketID]int32{}
		var buckets []bucketID
		var unnamed []bool
		type pair struct{ b, i int32 }
		pairs := make([]pair, 0, 3*len(c.objects))
		keys := make([]string, len(c.objects))
		d.byKey = make(map[string]*manifest.Object, len(c.objects))
		var ids []bucketID
		for i, o := range c.objects {
			k := c.memo.Key(o)
			if k != "" {
				if _, dup := d.byKey[k]; dup {
					d.byKey[k] = nil // two objects under one key: it names neither
					k = ""
				} else {
					d.byKey[k] = o
				}
			}
			keys[i] = k
			ids = c.bucketIDs(o, ids[:0])
			for _, id := range ids {
				if id.part == 'm' {
					continue // kindNameDigest
				}
				b, ok := index[id]
				if !ok {
					b = int32(len(buckets))
					index[id] = b
					buckets = append(buckets, id)
					unnamed = append(unnamed, false)
				}
				if k == "" {
					unnamed[b] = true
					continue
				}
				pairs = append(pairs, pair{b, int32(i)})
			}
		}
		start := make([]int32, len(buckets)+1)
		for _, p := range pairs {
			start[p.b+1]++
		}
		for b := range buckets {
			start[b+1] += start[b]
		}
		in := make([]int32, len(pairs))
		next := slices.Clone(start[:len(buckets)])
		for _, p := range pairs {
			in[next[p.b]] = p.i
			next[p.b]++
		}
		d.keys = keys
		d.of = make(map[string]bucketDigest, len(buckets))
		h := sha256.New()
		var sum [sha256.Size]byte
		var buf []byte
		for b, id := range buckets {
			name := id.name()
			if unnamed[b] {
				d.of[name] = bucketDigest{unnamed: true}
				continue
			}
			h.Reset()
			for _, i := range in[start[b]:start[b+1]] {
				o := c.objects[i]
				buf = c.hashMember(h, buf, keys[i], o)
			}
			if e, twice := d.of[name]; twice {
				// Two buckets of one name (a kind or name with a NUL
				// byte in it): what was read there cannot be told.
				if !e.unnamed {
					d.of[name] = bucketDigest{unnamed: true}
				}
				continue
			}
			d.of[name] = bucketDigest{digest: [sha256.Size]byte(h.Sum(sum[:0]))}
		}
	})
	return d
}

// result is bucketDigest's: the digest, false when unnamed.
func (e bucketDigest) result() ([sha256.Size]byte, bool) {
	if e.unnamed {
		return [sha256.Size]byte{}, false
	}
	return e.digest, true // an empty bucket has the zero digest
}

// hashMember writes to h what a bucket's digest reads of its member o,
// whose memo key is key (appendMember); buf is scratch space, returned for
// the next call.
func (c *Context) hashMember(h hash.Hash, buf []byte, key string, o *manifest.Object) []byte {
	buf = c.appendMember(buf[:0], key, o)
	h.Write(buf)
	return buf
}

// appendMember appends to buf what a bucket's digest reads of its member
// o, whose memo key is key: the key, o's namespace and its unit, each
// ended by a NUL byte.
func (c *Context) appendMember(buf []byte, key string, o *manifest.Object) []byte {
	p := c.place[o]
	for _, s := range [...]string{key, p.namespace(), p.unit()} {
		buf = append(append(buf, s...), 0)
	}
	return buf
}

// kindNameDigest is the digest of bucket, named "kn:" with a kind and a
// name (bucketID.name), made as bucketDigest makes the others: of the
// objects of that kind and name, in run order. A name that cannot be split
// in one way (a kind or name with a NUL byte in it) is unnamed: what was
// read there cannot be told.
func (c *Context) kindNameDigest(bucket string) bucketDigest {
	kind, name, ok := strings.Cut(strings.TrimPrefix(bucket, "kn:"), "\x00")
	if !ok || strings.Contains(name, "\x00") {
		return bucketDigest{unnamed: true}
	}
	members := c.objectsNamed(kind, name)
	if len(members) == 0 {
		return bucketDigest{}
	}
	// Its members written out in one buffer, on the stack for most
	// buckets (one or two members), and hashed at once: the same digest
	// as a hash state written member by member, where a state and a
	// buffer made for each bucket were 5 MB of a push's allocations at
	// 50,000 objects (a bucket for about every object).
	var scratch [512]byte
	buf := scratch[:0]
	for _, o := range members {
		k := c.digests.keys[c.place[o].order]
		if k == "" {
			return bucketDigest{unnamed: true}
		}
		buf = c.appendMember(buf, k, o)
	}
	return bucketDigest{digest: sha256.Sum256(buf)}
}

// keyedReads returns what r read, by digest and by the memo's keys; false
// as its last result when it cannot be said so (a bucket or an object the
// memo has no key for): then the rule is run again in every run.
func (c *Context) keyedReads(r *reads) ([]scopeRead, []keyedFact, bool) {
	var out []scopeRead
	for _, b := range r.scopes {
		d, ok := c.bucketDigest(b)
		if !ok {
			return nil, nil, true
		}
		out = append(out, scopeRead{b, d})
	}
	var facts []keyedFact
	for _, f := range r.otherFacts {
		// The key the digests were made with (not made again: a string an
		// object a fact, read by most objects' rules).
		k := ""
		if p, ok := c.place[f.o]; ok {
			k = c.madeDigests().keys[p.order]
		}
		if k == "" || c.objectByKey(k) != f.o {
			return nil, nil, true
		}
		facts = append(facts, keyedFact{k, f.fact, f.value})
	}
	return out, facts, false
}
