package bot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"sort"

	"github.com/prodready/prodready/checks"
)

// resultKey identifies a run by everything it reads: the config, whether
// it renders, every file loaded (path, blob, whether it is checked as
// written or loaded for a render, why it could not be read), and, when it
// renders, the plan's charts, dependencies and overlays with what each
// reaches (which renders' findings are kept), the files not loaded, and
// the changed paths when a file could not be read (its finding depends on
// whether the pull request changes it). Two runs with one key find the
// same: the key stands for the run's inputs, not for a commit.
func (rv *Reviewer) resultKey(config string, plan *renderPlan, files []File, renders bool) string {
	h := sha256.New()
	field := func(h hash.Hash, parts ...any) {
		for _, p := range parts {
			fmt.Fprintf(h, "%v\x00", p)
		}
		h.Write([]byte{'\n'})
	}
	field(h, "config", config, "render", rv.Render != nil)
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	unreadable := false
	for _, f := range sorted {
		sha := f.SHA
		if sha == "" && f.Unreadable == "" && f.Skipped == "" {
			sha = GitBlobSHA(f.Data)
		}
		unreadable = unreadable || f.Unreadable != ""
		field(h, "file", f.Path, sha, plan.plain[f.Path], f.Unreadable, f.Skipped)
	}
	if renders {
		field(h, "charts", plan.charts, "deps", plan.deps, "kustomize", plan.kustomize)
		overlays := make([]string, 0, len(plan.overlays))
		for k := range plan.overlays {
			overlays = append(overlays, k)
		}
		sort.Strings(overlays)
		for _, k := range overlays {
			field(h, "overlay", k, plan.overlays[k].dirs, plan.overlays[k].refs)
		}
	}
	field(h, "notLoaded", plan.notLoaded)
	if unreadable {
		field(h, "touched", plan.touched)
	}
	return "run:" + hex.EncodeToString(h.Sum(nil))
}

// kept is what a cache keeps of a run: what a later review reads of its
// base (findings, render problems, silenced findings, namespaces), not the
// parsed files, nor its findings' fixes: a review reads a base finding
// only to say that the pull request fixed it (withoutFix). Its findings
// are held as a checks.FindingTable, 104 bytes each where a Finding takes
// 208 (30 MB at 50,000 objects). Its identities are o's (o.ids, set): the
// review that keeps a run compares with it and makes them, and the next
// review reads them made.
func (o runOutput) kept() *runOutput {
	k := o
	k.res = &checks.Result{Silenced: o.res.Silenced}
	if o.table == nil {
		t := checks.NewFindingTable(o.all())
		k.table, k.findings, k.lean = &t, nil, nil
	}
	return &k
}

// withoutFix is f as a review lists it among the findings the pull request
// fixed, which it reads at base: without its fix, which applies to the
// base's text. A kept base run holds its findings so, and a fix was over a
// third of what a kept finding held (at 50,000 objects its run counted
// more than a quarter of a 512 MiB cache, was not kept, and every push
// checked the base again).
func withoutFix(f checks.Finding) checks.Finding {
	f.Fix = nil
	return f
}

// runCost estimates the memory a kept run holds; kept: o's findings are
// counted as kept holds them, in a table without their fixes.
func runCost(o *runOutput, kept bool) int {
	const findingSize, fixSize = 320, 256
	n := 256
	fss := [][]checks.Finding{o.findings, o.problems, o.unreadable}
	if o.lean != nil {
		fss[0] = o.all() // a head's run, which is not kept
	}
	if kept {
		if o.table != nil {
			n += o.table.Bytes()
		} else {
			n += checks.TableBytes(fss[0])
		}
		for i := range o.count() {
			f := o.finding(i)
			// And its identity, once made: a map slot by number (16 bytes,
			// at most twice over in a map made at its size).
			n += len(f.Message) + len(f.Path) + len(f.IdentityPath) + 48
		}
		fss[0] = nil
	}
	for j, fs := range fss {
		for i := range fs {
			f := &fs[i]
			n += findingSize + len(f.Message) + len(f.Path) + len(f.IdentityPath) + 96 // and its identity, once made
			// kept holds its findings (not its problems) without fixes.
			if f.Fix != nil && !(kept && j == 0) {
				n += fixSize + len(f.Fix.Description) + 128*len(f.Fix.Edits)
			}
		}
	}
	n += (findingSize + 64) * len(o.res.Silenced)
	n += 80 * len(o.fromRender)
	for ns, paths := range o.namespaces {
		n += 64 + len(ns) + 16*len(paths)
	}
	for _, s := range o.skipped {
		n += 64 + len(s.Reason)
	}
	return n
}

// GetResult returns the run kept under key, if any. It is shared: the
// caller must only read it.
func (c *LRUCache) GetResult(key string) (*runOutput, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok || e.Value.(*lruEntry).result == nil {
		return nil, false
	}
	c.touch(e)
	return e.Value.(*lruEntry).result, true
}

// PutResult keeps run o under key, counted at runCost. A run larger than
// a quarter of the cache is not kept, nor one that would push out an
// entry used since tick since (Tick, taken when the run began: the parses
// the run read, which its next run needs, and what other reviews use
// meanwhile): at 50,000 objects and a 512 MiB cache, the kept base run
// pushed out an eighth of the parses, read again, and parsed and checked
// again, at every push.
//
// o is the run as made: what is kept is o.kept(), made only when it is,
// and returned (nil when the run is not kept).
func (c *LRUCache) PutResult(key string, o *runOutput, since uint64) *runOutput {
	cost := runCost(o, true)
	if cost > c.maxBytes/4 || !c.roomFor(key, cost, since) {
		return nil
	}
	// Made without the lock (a table of every finding), and kept if there
	// is still room.
	kept := o.kept()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.roomForLocked(key, cost, since) {
		return nil
	}
	ent := &lruEntry{sha: key, resultCost: cost, result: kept}
	c.items[key] = c.push(ent)
	c.size += ent.cost()
	c.evict()
	return kept
}

// roomFor reports whether a run under key, counted at cost, would be kept
// (PutResult): no run is kept under key, and keeping it pushes out no
// entry used since tick since.
func (c *LRUCache) roomFor(key string, cost int, since uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.roomForLocked(key, cost, since)
}

// roomForLocked is roomFor with c.mu held; an entry already under key is
// made the most recently used.
func (c *LRUCache) roomForLocked(key string, cost int, since uint64) bool {
	if e, ok := c.items[key]; ok {
		c.touch(e)
		return false
	}
	over := c.size + (&lruEntry{sha: key, resultCost: cost}).cost() - c.maxBytes
	for e := c.order.Back(); over > 0 && e != nil; e = e.Prev() {
		old := e.Value.(*lruEntry)
		if old.used > since {
			return false
		}
		over -= old.cost()
	}
	return true
}
