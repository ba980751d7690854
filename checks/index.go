package checks

import "sync"

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
}

// NewIndex returns an index whose value build computes from a run's
// Context.
func NewIndex[T any](build func(*Context) T) *Index[T] {
	return &Index[T]{build: build}
}

// built is one index's value in one run.
type built struct {
	once  sync.Once
	value any
}

// Of returns the index's value for ctx's run, building it on first use.
// It is safe for concurrent use, and lock-free once built: rules ask for
// indexes per container.
func (x *Index[T]) Of(ctx *Context) T {
	ctx.readOthers() // built from the run's objects
	v, ok := ctx.indexes.Load(x)
	if !ok {
		v, _ = ctx.indexes.LoadOrStore(x, &built{})
	}
	b := v.(*built)
	b.once.Do(func() { b.value = x.build(ctx) })
	return b.value.(T)
}
