package checks

import (
	"slices"

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
// file, lines and the config's parameters.
type Memo interface {
	// Recall returns what was remembered for o, or nil.
	Recall(o *manifest.Object) *Remembered
	// Remember keeps r for o; r must not be changed after.
	Remember(o *manifest.Object, r *Remembered)
}

// Remembered is what a run learnt of one object's rules: the findings of
// those that read only the object and the config, which rules read more,
// and the facts about the object they read.
type Remembered struct {
	rules    int       // how many rules ran (the config's enabled rules)
	findings []Finding // of the rules that read only the object
	rerun    []int     // indexes of the rules that read other objects
	facts    []factRead
}

// Bytes estimates the memory r holds, for a cache that counts it: a
// finding's struct, its strings and its fix.
func (r *Remembered) Bytes() int {
	const findingSize, fixSize = 320, 256
	n := 96 + 8*len(r.rerun) + 48*len(r.facts)
	for i := range r.findings {
		f := &r.findings[i]
		n += findingSize + len(f.Message) + len(f.Path) + len(f.IdentityPath)
		if f.Fix != nil {
			n += fixSize + len(f.Fix.Description) + 128*len(f.Fix.Edits)
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
	namespaceFact = NewObjectFact(func(c *Context, o *manifest.Object) string { return c.namespace[o] })
	unitFact      = NewObjectFact(func(c *Context, o *manifest.Object) string { return c.unit[o] })
)

type factRead struct {
	fact  *ObjectFact
	value string
}

// tracking records what one rule read while it checked one object.
type tracking struct {
	self   *manifest.Object
	root   *Context // the run's Context, which records nothing
	others bool     // it read other objects
	facts  []factRead
}

// readOthers records that the rule reads other objects of the run.
func (c *Context) readOthers() {
	if c.track != nil {
		c.track.others = true
	}
}

// readFact records that the rule reads fact about o: about the object it
// checks, with its value; about another, as reading other objects.
func (c *Context) readFact(fact *ObjectFact, o *manifest.Object) {
	t := c.track
	if t == nil {
		return
	}
	if o != t.self {
		t.others = true
		return
	}
	for _, r := range t.facts {
		if r.fact == fact {
			return
		}
	}
	t.facts = append(t.facts, factRead{fact, fact.of(t.root, o)})
}

// untracked returns the run's Context, which records nothing.
func (c *Context) untracked() *Context {
	if c.track != nil {
		return c.track.root
	}
	return c
}

// evaluateMemo is evaluateObject for a run that keeps a memo: it recalls
// what an earlier run found on obj, runs only the rules that read more
// than obj (or every rule when nothing is recalled, remembering what they
// read), and holds a packed object's tree only while a rule runs on it.
func evaluateMemo(out []Finding, ctx *Context, rules []*Rule, obj *manifest.Object) []Finding {
	if r := ctx.memo.Recall(obj); r != nil && r.valid(ctx, obj, len(rules)) {
		out = append(out, r.findings...)
		if len(r.rerun) > 0 {
			obj.Hold()
			for _, i := range r.rerun {
				out = append(out, checkOne(ctx, rules[i], obj)...)
			}
			obj.Release()
		}
		return out
	}
	obj.Hold()
	defer obj.Release()
	rec := &Remembered{rules: len(rules)}
	for i, r := range rules {
		t := tracking{self: obj, root: ctx}
		seen := *ctx
		seen.track = &t
		fs := checkOne(&seen, r, obj)
		out = append(out, fs...)
		if t.others {
			rec.rerun = append(rec.rerun, i)
			continue
		}
		rec.findings = append(rec.findings, fs...)
		for _, f := range t.facts {
			if !slices.ContainsFunc(rec.facts, func(g factRead) bool { return g.fact == f.fact }) {
				rec.facts = append(rec.facts, f)
			}
		}
	}
	rec.findings = slices.Clip(rec.findings)
	ctx.memo.Remember(obj, rec)
	return out
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
