package bot

import "github.com/prodready/prodready/checks/manifest"

// ParsedCache is a BlobCache that also keeps parsed files by blob SHA, so a
// review re-parses only the files whose blob changed since the last push.
// The *manifest.File it returns is shared between reviews (possibly
// running at once): callers must only read it.
type ParsedCache interface {
	BlobCache
	// GetParsed returns blob sha parsed as path under lim, if cached.
	GetParsed(path, sha string, lim manifest.Limits) (*manifest.File, bool)
	// PutParsed caches f, the parse of blob sha at f.Path under lim.
	PutParsed(sha string, f *manifest.File, lim manifest.Limits)
}

var _ ParsedCache = (*LRUCache)(nil)

// parsedCostFactor estimates a parsed file's memory as this many times its
// source (node trees with positions, typed objects); measured at about 3.3
// over the shared corpus, rounded up for small files.
const parsedCostFactor = 5

// maxParsesPerBlob bounds the parses kept for one blob (one per path it
// sits at and limits it was parsed under).
const maxParsesPerBlob = 4

type parsedEntry struct {
	file *manifest.File
	lim  manifest.Limits
}

// GetParsed returns blob sha parsed as path under lim, if cached.
func (c *LRUCache) GetParsed(path, sha string, lim manifest.Limits) (*manifest.File, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[sha]
	if !ok {
		return nil, false
	}
	for _, p := range e.Value.(*lruEntry).parsed {
		if p.file.Path == path && p.lim == lim {
			c.order.MoveToFront(e)
			return p.file, true
		}
	}
	return nil, false
}

// PutParsed caches f, the parse of blob sha at f.Path under lim (and
// f.Source as the blob's content when the blob is not cached yet). A file
// whose estimated size exceeds the whole cache is not kept.
func (c *LRUCache) PutParsed(sha string, f *manifest.File, lim manifest.Limits) {
	if sha == "" || f == nil || len(f.Source)*(1+parsedCostFactor) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var ent *lruEntry
	if e, ok := c.items[sha]; ok {
		ent = e.Value.(*lruEntry)
		c.order.MoveToFront(e)
	} else {
		ent = &lruEntry{sha: sha, data: f.Source}
		c.items[sha] = c.order.PushFront(ent)
		c.size += ent.cost()
	}
	for _, p := range ent.parsed {
		if p.file.Path == f.Path && p.lim == lim {
			return
		}
	}
	c.size -= ent.cost()
	if len(ent.parsed) >= maxParsesPerBlob {
		ent.parsed = ent.parsed[1:]
	}
	ent.parsed = append(ent.parsed, parsedEntry{file: f, lim: lim})
	c.size += ent.cost()
	c.evict()
}
