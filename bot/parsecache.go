package bot

import (
	"bytes"

	"github.com/prodready/prodready/checks/manifest"
)

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

// The memory a cached parse holds, estimated from the text it parsed and
// its objects: a cost per byte (node trees) and per object (typed value,
// labels, the object itself). TestParsedCostCoversMemory holds the estimate
// to at least what the parses hold once the rules have run, packed
// (checks.ParseAllPacked, as the Reviewer caches files) and unpacked: 1.1 times
// it on the fixtures, 1.6 times on the corpus. Small files cost the most for
// their size: under 1 KB, 7.8 times it packed and 17.6 times unpacked. A
// file with a document without a kind (a Helm values file) counts as
// unpacked: the rules read its whole tree, which then stays inflated.
const (
	packedBytesFactor   = 5
	packedObjectCost    = 2 << 10
	unpackedBytesFactor = 12
	unpackedObjectCost  = 4 << 10
)

// parsedCost estimates the memory f holds once cached, besides its source.
func parsedCost(f *manifest.File) int {
	if f.Skipped != "" {
		return len(f.Source) // a chart template, say: its text, no trees
	}
	perByte, perObject := packedBytesFactor, packedObjectCost
	for _, o := range f.Objects {
		if !o.Packed() || o.Kind == "" {
			perByte, perObject = unpackedBytesFactor, unpackedObjectCost
			break
		}
	}
	return perByte*parsedBytes(f) + perObject*len(f.Objects)
}

// parsedBytes is how much of f's text the parser built trees from: all of
// it but the CustomResourceDefinitions whose schema it skips
// (manifest.Object.SpecSkipped), megabytes in an install bundle.
func parsedBytes(f *manifest.File) int {
	n := len(f.Source)
	for _, o := range f.Objects {
		if o.SpecSkipped {
			n -= len(lines(f.Source, o.StartLine, o.EndLine))
		}
	}
	return n
}

// lines returns lines first to last (1-based, inclusive) of src, with
// their line endings; empty when src has fewer than first lines.
func lines(src []byte, first, last int) []byte {
	start, end := len(src), len(src)
	for line, off := 1, 0; line <= last; line++ {
		if line == first {
			start = off
		}
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			end = len(src) // the last line, with no line ending
			break
		}
		off += i + 1
		end = off
	}
	if start > end {
		return nil
	}
	return src[start:end]
}

// maxParsesPerBlob bounds the parses kept for one blob (one per path it
// sits at and limits it was parsed under).
const maxParsesPerBlob = 4

type parsedEntry struct {
	file *manifest.File
	lim  manifest.Limits
	cost int // parsedCost(file)
	// memos are what the rules found on file's objects under a config
	// (checks.Memo), at most maxMemosPerParse configs.
	memos []memoEntry
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
			c.touch(e)
			return p.file, true
		}
	}
	return nil, false
}

// PutParsed caches f, the parse of blob sha at f.Path under lim (and
// f.Source as the blob's content when the blob is not cached yet). A file
// whose estimated size exceeds the whole cache is not kept.
func (c *LRUCache) PutParsed(sha string, f *manifest.File, lim manifest.Limits) {
	if sha == "" || f == nil {
		return
	}
	cost := parsedCost(f)
	if entryOverhead+len(f.Source)+cost > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var ent *lruEntry
	if e, ok := c.items[sha]; ok {
		ent = e.Value.(*lruEntry)
		c.touch(e)
	} else {
		ent = &lruEntry{sha: sha, data: f.Source}
		c.items[sha] = c.push(ent)
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
	ent.parsed = append(ent.parsed, parsedEntry{file: f, lim: lim, cost: cost})
	c.size += ent.cost()
	c.evict()
}
