package bot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// maxMemosPerParse bounds the configs whose findings one cached parse
// keeps (one per repository that has the blob, usually one).
const maxMemosPerParse = 2

// memoEntry is what the rules found on the objects of one cached parse
// under one config: one checks.Remembered per object, nil where the run
// remembered nothing.
type memoEntry struct {
	config string
	per    []*checks.Remembered
	cost   int
}

// configKey identifies what a config makes the rules do, for the caches
// that keep results per config: a hash of its JSON form (every setting a
// repository can write). The catalog is the process's own.
func configKey(cfg *checks.Config) string {
	data, err := json.Marshal(cfg)
	if err != nil {
		return "" // never cached: no key
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// remembered returns what the rules found on the objects of the parse of
// blob sha at path under lim with config, one per object, if cached.
func (c *LRUCache) remembered(path, sha string, lim manifest.Limits, config string) []*checks.Remembered {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[sha]
	if !ok {
		return nil
	}
	for _, p := range e.Value.(*lruEntry).parsed {
		if p.file.Path != path || p.lim != lim {
			continue
		}
		for _, m := range p.memos {
			if m.config == config {
				return m.per
			}
		}
	}
	return nil
}

// putRemembered keeps per, what the rules found on the objects of the
// cached parse f of blob sha under lim with config, beside that parse
// (nothing when the parse is no longer cached), counted against the
// cache's bound.
func (c *LRUCache) putRemembered(sha string, f *manifest.File, lim manifest.Limits, config string, per []*checks.Remembered) {
	cost := 24*len(per) + 24
	for _, r := range per {
		if r != nil {
			cost += r.Bytes()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[sha]
	if !ok {
		return
	}
	ent := e.Value.(*lruEntry)
	for i := range ent.parsed {
		p := &ent.parsed[i]
		if p.file != f || p.lim != lim {
			continue
		}
		c.size -= ent.cost()
		kept := p.memos[:0]
		for _, m := range p.memos {
			if m.config != config {
				kept = append(kept, m)
			}
		}
		if len(kept) >= maxMemosPerParse {
			kept = kept[1:]
		}
		p.memos = append(kept, memoEntry{config: config, per: per, cost: cost})
		c.size += ent.cost()
		c.touch(e)
		c.evict()
		return
	}
}

// runMemo is the checks.Memo of one review's run: it recalls what earlier
// runs with the same config found on the objects of the files that come
// parsed from the cache, and learns, for every file the cache keeps, what
// this run finds.
type runMemo struct {
	cache  *LRUCache
	config string
	// recalled holds, by cached parse of at most smallFile objects, what
	// was remembered for its objects, one per object (the cache's own
	// slice): a map by object was 5 MB of what a push allocated at 50,000
	// objects, four a file. The objects of a larger file are in
	// recalledObject (an object's index in a file is found by a scan).
	recalled       map[*manifest.File][]*checks.Remembered
	recalledObject map[*manifest.Object]*checks.Remembered
	// blobs maps the path of each file of the run the cache keeps to its
	// blob SHA: what names its objects' content (Key).
	blobs map[string]string

	// lean makes what the run learns smaller before the cache keeps it:
	// fixes without their edits, strings and reads held once
	// (checks.Compactor). The run does not recall for the files whose
	// findings' edits the review needs (recall's caller).
	lean *checks.Compactor

	mu     sync.Mutex
	learnt map[*manifest.Object]*checks.Remembered
}

func newRunMemo(cache *LRUCache, config string, blobs map[string]string) *runMemo {
	return &runMemo{cache: cache, config: config, blobs: blobs, lean: checks.NewCompactor(), recalled: map[*manifest.File][]*checks.Remembered{}, recalledObject: map[*manifest.Object]*checks.Remembered{}, learnt: map[*manifest.Object]*checks.Remembered{}}
}

// recall makes the findings remembered for cached parse f recallable.
// They are lean (checks.Compactor): their fixes have no edits, so the
// caller does not recall for a file whose findings it needs to suggest
// fixes for.
func (m *runMemo) recall(f *manifest.File, sha string, lim manifest.Limits) {
	per := m.cache.remembered(f.Path, sha, lim, m.config)
	if len(per) != len(f.Objects) {
		return
	}
	if len(per) <= smallFile {
		m.recalled[f] = per
		return
	}
	for i, o := range f.Objects {
		if per[i] != nil {
			m.recalledObject[o] = per[i]
		}
	}
}

// smallFile is how many objects a file may have for runMemo to find an
// object's memo by its index in the file.
const smallFile = 16

// Recall implements checks.Memo.
func (m *runMemo) Recall(o *manifest.Object) *checks.Remembered {
	if o.File != nil {
		if per, ok := m.recalled[o.File]; ok {
			if i := slices.Index(o.File.Objects, o); i >= 0 {
				return per[i]
			}
			return nil
		}
	}
	return m.recalledObject[o]
}

// Key implements checks.Memo: an object of a file read from a blob is
// named by the file's path, the blob and its place in the file (the parse
// limits and the config are the memo's own); a render's object has no key.
func (m *runMemo) Key(o *manifest.Object) string {
	sha, ok := m.blobs[o.File.Path]
	if !ok {
		return ""
	}
	k := o.File.Path + "\x00" + sha + "\x00" + strconv.Itoa(o.Doc)
	if o.ListItem != nil {
		k += "\x00" + fmt.Sprint(o.ListItem)
	}
	return k
}

// Remember implements checks.Memo: it keeps r, made lean, until keep
// hands it to the cache, and returns it.
func (m *runMemo) Remember(o *manifest.Object, r *checks.Remembered) *checks.Remembered {
	r = m.lean.Lean(r)
	m.mu.Lock()
	m.learnt[o] = r
	m.mu.Unlock()
	return r
}

// keep puts beside the cached parse f of blob sha what this run found on
// its objects, when it learnt anything new of them.
func (m *runMemo) keep(f *manifest.File, sha string, lim manifest.Limits) {
	per := make([]*checks.Remembered, len(f.Objects))
	learnt := false
	for i, o := range f.Objects {
		if r, ok := m.learnt[o]; ok {
			per[i], learnt = r, true
		} else {
			per[i] = m.Recall(o)
		}
	}
	if learnt {
		m.cache.putRemembered(sha, f, lim, m.config, per)
	}
}
