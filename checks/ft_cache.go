package checks

import (
	"runtime"
	"sync"
	"weak"

	"github.com/prodready/prodready/checks/manifest"
)

// ftRunCache memoizes per-run answers several rules of these families ask
// for the same object (which Services serve a workload), so a run asks
// each once. It lives as long as its Context.
type ftRunCache struct {
	mu       sync.Mutex
	services map[*manifest.Object][]*manifest.Object
}

// ftCaches maps a weak pointer to a run's Context to its cache; the entry
// is dropped when the Context is collected.
var ftCaches sync.Map // weak.Pointer[Context] → *ftRunCache

func ftCacheOf(ctx *Context) *ftRunCache {
	key := weak.Make(ctx)
	if c, ok := ftCaches.Load(key); ok {
		return c.(*ftRunCache)
	}
	c, loaded := ftCaches.LoadOrStore(key, &ftRunCache{services: map[*manifest.Object][]*manifest.Object{}})
	if !loaded {
		runtime.AddCleanup(ctx, func(k weak.Pointer[Context]) { ftCaches.Delete(k) }, key)
	}
	return c.(*ftRunCache)
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
