// Package gitarchive reads the files of a gzipped tarball of a commit, as
// GitHub (GET /repos/{o}/{r}/tarball/{ref}) and GitLab (GET
// /projects/:id/repository/archive.tar.gz?sha=…) make it: every entry under
// one top folder. It keeps only the files asked for whose content has the
// git blob SHA the tree gives, so that an export-subst or eol conversion is
// never mistaken for the blob, and it is bounded (links never followed,
// names that climb out refused, decompressed bytes capped).
package gitarchive

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxFileBytes is the largest file Read reads; a larger one is left out
// (its caller skips it, as it skips a larger blob).
const MaxFileBytes = 10 << 20

// Read reads a gzipped tarball (every entry under one top folder) and returns the regular files whose path under the top
// folder is in want and whose git blob SHA is want's. Entries with an
// absolute path, a ".." element or a link type are never used (refused
// counts them); a file over MaxFileBytes is not read; reading stops with an
// error after maxBytes decompressed bytes.
func Read(r io.Reader, want map[string]string, maxBytes int64) (got map[string][]byte, refused int, err error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, 0, fmt.Errorf("not gzip: %w", err)
	}
	defer zr.Close()
	lim := &limitedReader{r: zr, n: maxBytes}
	tr := tar.NewReader(lim)
	got = map[string][]byte{}
	top := ""
	for {
		hd, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return got, refused, nil
		}
		if err != nil {
			if lim.n <= 0 {
				return nil, refused, fmt.Errorf("archive over %d bytes", maxBytes)
			}
			return nil, refused, fmt.Errorf("bad tar entry: %w", err)
		}
		switch hd.Typeflag {
		case tar.TypeXGlobalHeader, tar.TypeDir:
			continue
		case tar.TypeReg:
		default: // symlinks, hard links, devices: never followed or read
			refused++
			continue
		}
		name := hd.Name
		if unsafeName(name) {
			refused++
			continue
		}
		first, rel, ok := strings.Cut(name, "/")
		if !ok || rel == "" {
			continue // a file beside the top folder: not GitHub's layout
		}
		if top == "" {
			top = first
		}
		if first != top {
			continue
		}
		sha, wanted := want[rel]
		if !wanted || hd.Size > MaxFileBytes {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, MaxFileBytes+1))
		if err != nil {
			if lim.n <= 0 {
				return nil, refused, fmt.Errorf("archive over %d bytes", maxBytes)
			}
			return nil, refused, fmt.Errorf("reading %s: %w", rel, err)
		}
		if GitBlobSHA(data) == sha {
			got[rel] = data
		}
	}
}

// unsafeName reports a tar entry name that is absolute or climbs out of its
// folder.
func unsafeName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || strings.Contains(name, `\`) || (len(name) > 1 && name[1] == ':') {
		return true
	}
	for _, e := range strings.Split(name, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// GitBlobSHA is git's object id of a blob with content data.
func GitBlobSHA(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// limitedReader reads at most n bytes, then fails: unlike io.LimitReader
// its end is an error, so a truncated archive is not mistaken for a
// complete one.
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("archive too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
