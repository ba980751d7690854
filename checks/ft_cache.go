package checks

import (
	"sync"

	"github.com/prodready/prodready/checks/manifest"
)

// ftRunCache memoizes per-run answers several rules of these families ask
// for the same object (which Services serve a workload), so a run asks
// each once. It lives as long as its Context.
type ftRunCache struct {
	mu       sync.Mutex
	services map[*manifest.Object][]*manifest.Object
}

// ftCacheOf returns the run's cache, made once per Context.
func ftCacheOf(ctx *Context) *ftRunCache {
	return ctx.Memo("ftRunCache", func() any {
		return &ftRunCache{services: map[*manifest.Object][]*manifest.Object{}}
	}).(*ftRunCache)
}

// ftCachedServices returns compute(w), computed once per run and object.
func ftCachedServices(ctx *Context, w *manifest.Object, compute func() []*manifest.Object) []*manifest.Object {
	c := ftCacheOf(ctx)
	c.mu.Lock()
	out, ok := c.services[w]
	c.mu.Unlock()
	if ok {
		return out
	}
	out = compute()
	c.mu.Lock()
	c.services[w] = out
	c.mu.Unlock()
	return out
}
