package checks

import (
	"slices"
	"sync"

	"github.com/prodready/prodready/internal/parallel"

	"github.com/prodready/prodready/checks/manifest"
)

// An Index is a value that rules share within one run: built from the
// run's objects once, the first time a rule asks for it, and let go with
// the run's Context. Rules declare their indexes as package variables:
//
//	var patchFiles = checks.NewIndex(buildPatchFiles)
//	…
//	files := patchFiles.Of(ctx)
//
// so each index is typed where it is declared and where it is read.
type Index[T any] struct {
	build func(*Context) T
	// tracked: a rule reading the index reads what its build read (see
	// NewTrackedIndex); otherwise it reads the whole run.
	tracked bool
}

// NewIndex returns an index whose value build computes from a run's
// Context. A rule that reads it counts as reading every object of the run
// (Memo): use NewTrackedIndex for an index built once and never changed.
func NewIndex[T any](build func(*Context) T) *Index[T] {
	return &Index[T]{build: build}
}

// NewTrackedIndex returns an index whose value build computes from a
// run's Context, and that is never changed after: a rule that reads it
// reads what build read through the Context (the objects of a kind, say),
// so a Memo recalls its findings while those are as they were. An index
// that rules fill as they run (a cache of answers) must be a NewIndex.
func NewTrackedIndex[T any](build func(*Context) T) *Index[T] {
	return &Index[T]{build: build, tracked: true}
}

// built is one index's value in one run, with what its build read (for a
// tracked index in a run that keeps a memo).
type built struct {
	once  sync.Once
	value any
	read  *reads
	// panicked is the value the build panicked with, if it did: every
	// read panics with it, in the reading rule's own recover.
	panicked any
}

// do runs build the first time it is called; when build panicked, this
// and every later call panic with its value (sync.Once alone would leave
// the later readers a nil value, and a build that runs before any rule,
// as prebuild's, would take its panic to no rule).
func (b *built) do(build func()) {
	b.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				b.panicked = p
			}
		}()
		build()
	})
	if b.panicked != nil {
		panic(b.panicked)
	}
}

// Of returns the index's value for ctx's run, building it on first use.
// It is safe for concurrent use, and lock-free once built: rules ask for
// indexes per container.
func (x *Index[T]) Of(ctx *Context) T {
	if !x.tracked {
		ctx.readOthers() // built from the run's objects
	}
	v, ok := ctx.indexes.Load(x)
	if !ok {
		v, _ = ctx.indexes.LoadOrStore(x, &built{})
	}
	b := v.(*built)
	b.do(func() {
		if !x.tracked {
			b.value = x.build(ctx)
			return
		}
		var t tracking
		if bc := ctx.tracked(&t); bc != nil {
			b.value, b.read = x.build(bc), &t.reads
			return
		}
		b.value = x.build(ctx.untracked())
	})
	if b.read != nil {
		ctx.replay(b.read)
	}
	return b.value.(T)
}

// A Prebuilt is an index a rule names in Rule.Indexes, to be built before
// the run's rules run; every *Index is one.
type Prebuilt interface {
	prebuild(ctx *Context)
}

// prebuild builds x's value for ctx's run, as the first rule to read it
// would.
func (x *Index[T]) prebuild(ctx *Context) { x.Of(ctx) }

// prebuild builds, on every core, the indexes rules name (Rule.Indexes)
// and, when the run keeps a memo, its bucket digests, which every recalled
// object reads first: each was built by the first object's rule to read
// it while the other cores waited, about 100 ms of a push's wall time at
// 50,000 objects on one core of two (the digests about 40, the Services'
// pod label indexes about 50). An index whose build panics panics again
// in each rule that reads it, inside that rule's recover (checkOne), as
// when the rule built it.
func prebuild(ctx *Context, rules []*Rule) {
	var tasks []func()
	if ctx.memo != nil {
		tasks = append(tasks, func() { ctx.madeDigests() })
	}
	var seen []Prebuilt
	for _, r := range rules {
		for _, x := range r.Indexes {
			if !slices.Contains(seen, x) {
				seen = append(seen, x)
				tasks = append(tasks, func() {
					defer func() { _ = recover() }() // kept in the index (built.do)
					x.prebuild(ctx)
				})
			}
		}
	}
	if len(tasks) > 1 {
		parallel.For(len(tasks), func(i int) { tasks[i]() })
	}
}

// A PerObject is a value rules share within one run for each object they
// ask it about (which Services serve a workload), computed once per run
// and object and let go with the run's Context. A rule that reads it reads
// what its computation read through the Context, so a Memo recalls its
// findings while that is as it was.
type PerObject[T any] struct {
	compute func(*Context, *manifest.Object) T
}

// NewPerObject returns the per-object value compute computes.
func NewPerObject[T any](compute func(*Context, *manifest.Object) T) *PerObject[T] {
	return &PerObject[T]{compute: compute}
}

// perObjectKey keys a PerObject's value for one object in a run.
type perObjectKey struct {
	of any
	o  *manifest.Object
}

// Of returns p's value for o in ctx's run, computing it on first use.
func (p *PerObject[T]) Of(ctx *Context, o *manifest.Object) T {
	k := perObjectKey{p, o}
	v, ok := ctx.indexes.Load(k)
	if !ok {
		v, _ = ctx.indexes.LoadOrStore(k, &built{})
	}
	b := v.(*built)
	b.do(func() {
		var t tracking
		if bc := ctx.tracked(&t); bc != nil {
			b.value, b.read = p.compute(bc, o), &t.reads
			return
		}
		b.value = p.compute(ctx.untracked(), o)
	})
	if b.read != nil {
		ctx.replay(b.read)
	}
	return b.value.(T)
}
