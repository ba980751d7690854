// Package treecache keeps the file list of a pull request's base commit in
// a host's blob cache. Every push of a pull request lists the tree at the
// same base (the merge base) again, and a commit's tree never changes: at
// 50,000 objects GitHub's recursive tree request and its decoding were
// some 50 ms of a push's wall time, and GitLab lists a tree 100 entries a
// request (500 requests at 50,000 files). The head's tree changes at every
// push and is not kept.
package treecache

import (
	"strconv"
	"strings"

	"github.com/prodready/prodready/bot"
)

// Entry is a file of a commit's tree as a host's Manifests reads it: a
// blob, with its size when the host lists one (0 when not), or a symbolic
// link (Link), which Manifests names and does not read.
type Entry struct {
	Path, SHA string
	Size      int
	Link      bool
}

// Key is the cache key of the tree at ref in pr's repository when it is
// kept: ref is the pull request's base, not its head, and a full commit
// SHA (a branch name names another tree tomorrow). It is "" otherwise. A
// key is never a blob SHA, which is hexadecimal only.
func Key(pr bot.PullRequest, ref string) string {
	if ref != pr.BaseSHA || ref == pr.HeadSHA || !isCommitSHA(ref) {
		return ""
	}
	return "tree:" + pr.Host + ":" + pr.Repo + "@" + ref
}

// Get returns the tree kept under key; false when cache is nil, key is ""
// or nothing readable is kept.
func Get(cache bot.BlobCache, key string) (entries []Entry, ok bool) {
	if cache == nil || key == "" {
		return nil, false
	}
	data, ok := cache.Get(key)
	if !ok {
		return nil, false
	}
	return decode(data)
}

// Put keeps entries, a whole tree, under key (nothing when cache is nil
// or key is ""), within the cache's own bound like any blob.
func Put(cache bot.BlobCache, key string, entries []Entry) {
	if cache != nil && key != "" {
		cache.Put(key, encode(entries))
	}
}

// isCommitSHA reports whether ref is a full commit SHA (SHA-1 or
// SHA-256, lowercase hexadecimal), which names one tree for good.
func isCommitSHA(ref string) bool {
	if len(ref) != 40 && len(ref) != 64 {
		return false
	}
	for i := 0; i < len(ref); i++ {
		if c := ref[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// encode writes entries as decode reads them: a byte '0' (a list kept
// before listings were made whole wrote '1' for one GitHub truncated: it
// is not read), then each entry's path, SHA and size in decimal (a
// link's: "l"), each ended by a zero byte (which no git path holds).
func encode(entries []Entry) []byte {
	n := 1
	for _, e := range entries {
		n += len(e.Path) + len(e.SHA) + 23
	}
	b := make([]byte, 0, n)
	b = append(b, '0')
	for _, e := range entries {
		b = append(append(b, e.Path...), 0)
		b = append(append(b, e.SHA...), 0)
		if e.Link {
			b = append(b, 'l', 0)
			continue
		}
		b = append(strconv.AppendInt(b, int64(e.Size), 10), 0)
	}
	return b
}

// decode reads what encode wrote; false when data is not that.
func decode(data []byte) ([]Entry, bool) {
	if len(data) == 0 || data[0] != '0' {
		return nil, false
	}
	// One string for all the paths and SHAs, cut into them.
	rest := string(data[1:])
	entries := make([]Entry, 0, strings.Count(rest, "\x00")/3)
	for rest != "" {
		path, r, ok1 := strings.Cut(rest, "\x00")
		sha, r, ok2 := strings.Cut(r, "\x00")
		size, r, ok3 := strings.Cut(r, "\x00")
		if ok1 && ok2 && ok3 && size == "l" {
			entries = append(entries, Entry{Path: path, SHA: sha, Link: true})
			rest = r
			continue
		}
		n, err := strconv.Atoi(size)
		if !ok1 || !ok2 || !ok3 || err != nil || n < 0 {
			return nil, false
		}
		entries = append(entries, Entry{Path: path, SHA: sha, Size: n})
		rest = r
	}
	return entries, true
}
