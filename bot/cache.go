package bot

import (
	"container/list"
	"sync"
)

// LRUCache is a BlobCache bounded by the total size of its contents: adding
// beyond the bound evicts the least recently used blobs. It is also a
// ParsedCache: next to a blob's content it keeps the blob parsed, so a file
// unchanged since the last push is neither downloaded nor parsed again.
// Safe for concurrent use.
type LRUCache struct {
	mu       sync.Mutex
	maxBytes int
	size     int
	order    *list.List // front: most recently used; values are *lruEntry
	items    map[string]*list.Element
	// tick counts the uses of entries; each entry keeps the tick of its
	// last use (Tick).
	tick uint64
}

type lruEntry struct {
	sha  string
	data []byte
	// parsed are parses of data: one per path the blob sits at and parser
	// limits (usually one).
	parsed []parsedEntry
	// result, in an entry keyed by a run's inputs (resultKey) instead of
	// a blob, is a review's run of a base commit (see GetResult).
	result     *runOutput
	resultCost int
	// used is the cache's tick at the entry's last use.
	used uint64
}

// entryOverhead is what an entry costs besides its contents: the list
// element, the map's slot and key, the entry itself. It bounds the number
// of entries as well as their bytes.
const entryOverhead = 160

// cost is what an entry counts against maxBytes: its content, the
// estimated memory of each parse of it (parsedCost) and of the findings
// remembered for its objects, or of the run it holds, and entryOverhead.
func (e *lruEntry) cost() int {
	n := entryOverhead + len(e.sha) + len(e.data) + e.resultCost
	for _, p := range e.parsed {
		n += p.cost
		for _, m := range p.memos {
			n += m.cost
		}
	}
	return n
}

// NewLRUCache returns a cache holding at most maxBytes of contents (parsed
// files counted at an estimate of their memory).
func NewLRUCache(maxBytes int) *LRUCache {
	return &LRUCache{maxBytes: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns the contents of blob sha, if cached.
func (c *LRUCache) Get(sha string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[sha]
	if !ok {
		return nil, false
	}
	c.touch(e)
	return e.Value.(*lruEntry).data, true
}

// Put caches the contents of blob sha. A blob larger than the whole cache
// is not kept.
func (c *LRUCache) Put(sha string, data []byte) {
	if sha == "" || len(data) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[sha]; ok {
		c.touch(e)
		return
	}
	ent := &lruEntry{sha: sha, data: data}
	if ent.cost() > c.maxBytes {
		return
	}
	c.items[sha] = c.push(ent)
	c.size += ent.cost()
	c.evict()
}

// Bytes returns what the cache's entries count against its bound.
func (c *LRUCache) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// evict drops least recently used entries until the cache fits.
func (c *LRUCache) evict() {
	for c.size > c.maxBytes {
		last := c.order.Back()
		ent := last.Value.(*lruEntry)
		c.order.Remove(last)
		delete(c.items, ent.sha)
		c.size -= ent.cost()
	}
}

// touch makes e the most recently used entry.
func (c *LRUCache) touch(e *list.Element) {
	c.tick++
	e.Value.(*lruEntry).used = c.tick
	c.order.MoveToFront(e)
}

// push adds ent as the most recently used entry.
func (c *LRUCache) push(ent *lruEntry) *list.Element {
	c.tick++
	ent.used = c.tick
	return c.order.PushFront(ent)
}

// Tick returns the cache's count of uses so far: an entry used after it
// was taken has a later tick (PutResult).
func (c *LRUCache) Tick() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tick
}

// Len returns how many blobs are cached.
func (c *LRUCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
