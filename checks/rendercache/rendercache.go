// Package rendercache keeps rendered charts and built kustomize overlays by
// the hash of their inputs, so that a render asked again with the same
// inputs is not made again: the bot's reviews of one repository, push
// after push, render the same charts; prodready fix verifies each fix of
// an overlay by building it, and an overlay whose patches a round did not
// change builds the same. As a rendered.BuildCache (Build) it keeps, for
// fix, each overlay's build by the files that build reads, so that a
// round's render of the whole folder builds again only the overlays whose
// files the last round changed.
//
// The key is the hash of the request a render worker would be sent (the
// files the render reads, rendered.Needed, by path and content, and the
// render options: Kubernetes version, values sets, limits) and of the Helm
// and kustomize versions linked in. A result is kept as the render
// worker's wire encoding, so each caller gets a copy of its own that it may
// change. A render that failed, or that reports a problem (a render cut
// at a limit, which a less busy machine may not hit), is not kept.
package rendercache

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"runtime/debug"
	"sync"

	"github.com/prodready/prodready/checks/rendered"
)

// Cache is a bounded set of kept renders: at most maxBytes of encoded
// results (plus an overhead per entry), least recently used first out.
// Safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	maxBytes int
	size     int
	order    *list.List // front: most recently used; values are *entry
	items    map[[sha256.Size]byte]*list.Element
	hits     int
	misses   int
}

type entry struct {
	key  [sha256.Size]byte
	data []byte // rendered.WriteResult's encoding
}

// entryOverhead is what an entry costs besides its encoding (the list
// element, the map slot, the key): it bounds the number of entries too.
const entryOverhead = 160

func (e *entry) cost() int { return entryOverhead + len(e.data) }

// New returns a cache of at most maxBytes.
func New(maxBytes int) *Cache {
	return &Cache{maxBytes: maxBytes, order: list.New(), items: map[[sha256.Size]byte]*list.Element{}}
}

// Wrap returns a Renderer that answers from c what it has kept, and
// renders with render (and keeps) the rest. A nil c returns render.
func (c *Cache) Wrap(render rendered.Renderer) rendered.Renderer {
	if c == nil || render == nil {
		return render
	}
	return func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		key, ok := requestKey(files, opts)
		if !ok {
			return render(ctx, files, opts)
		}
		if res, ok := c.get(key); ok {
			return res, nil
		}
		res, err := render(ctx, files, opts)
		if err == nil && len(res.Problems) == 0 {
			c.put(key, res)
		}
		return res, err
	}
}

// Build returns a copy of the render kept under key, or makes it with
// build and keeps it when it has no problem: c as a rendered.BuildCache,
// whose keys (a build's own inputs) are kept apart from Wrap's.
func (c *Cache) Build(key [sha256.Size]byte, build func() *rendered.Render) *rendered.Render {
	key = sha256.Sum256(append([]byte("build\x00"), key[:]...))
	if res, ok := c.get(key); ok && len(res.Renders) == 1 {
		return res.Renders[0]
	}
	r := build()
	if r != nil && len(r.Problems) == 0 {
		c.put(key, rendered.Result{Renders: []*rendered.Render{r}})
	}
	return r
}

// Stats returns how many renders were answered from the cache and how
// many were made, and the bytes it counts.
func (c *Cache) Stats() (hits, misses, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses, c.size
}

// requestKey hashes what a render reads: the worker request for files and
// opts, and the render tools' versions.
func requestKey(files rendered.Files, opts rendered.Options) ([sha256.Size]byte, bool) {
	h := sha256.New()
	h.Write([]byte(toolVersions()))
	if err := rendered.WriteRequest(h, rendered.Request{Files: rendered.Needed(files, opts), Options: opts}); err != nil {
		return [sha256.Size]byte{}, false
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key, true
}

// toolVersions names the Helm and kustomize modules linked in (and the
// binary's own version), which a kept render was made with.
var toolVersions = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown build"
	}
	var b bytes.Buffer
	b.WriteString(info.Main.Path + "@" + info.Main.Version + "\n")
	for _, d := range info.Deps {
		switch d.Path {
		case "helm.sh/helm/v4", "sigs.k8s.io/kustomize/api", "sigs.k8s.io/kustomize/kyaml":
			b.WriteString(d.Path + "@" + d.Version + "\n")
		}
	}
	return b.String()
})

func (c *Cache) get(key [sha256.Size]byte) (rendered.Result, bool) {
	c.mu.Lock()
	e, ok := c.items[key]
	if !ok {
		c.misses++
		c.mu.Unlock()
		return rendered.Result{}, false
	}
	c.order.MoveToFront(e)
	data := e.Value.(*entry).data
	c.hits++
	c.mu.Unlock()
	res, err := rendered.ReadResult(bytes.NewReader(data))
	if err != nil {
		return rendered.Result{}, false // never: it was written by WriteResult
	}
	return res, true
}

func (c *Cache) put(key [sha256.Size]byte, res rendered.Result) {
	var b bytes.Buffer
	if err := rendered.WriteResult(&b, res); err != nil {
		return
	}
	e := &entry{key: key, data: b.Bytes()}
	if e.cost() > c.maxBytes/4 {
		return // one render would push out most of the others
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	c.items[key] = c.order.PushFront(e)
	c.size += e.cost()
	for c.size > c.maxBytes {
		last := c.order.Back()
		old := last.Value.(*entry)
		c.order.Remove(last)
		delete(c.items, old.key)
		c.size -= old.cost()
	}
}
