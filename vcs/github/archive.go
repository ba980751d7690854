package github

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
)

// ArchiveThreshold is how many missing blobs Manifests still reads one
// by one; with more missing, it downloads the commit's tarball instead (one
// API request whatever the size of the repository).
const ArchiveThreshold = 8

// maxArchiveBytes bounds the decompressed bytes read from one tarball (and
// so the work a decompression bomb can cause); maxArchiveCompressed bounds
// the bytes downloaded.
const (
	maxArchiveBytes      = 2 << 30
	maxArchiveCompressed = 1 << 30
)

// archiveFiles downloads the tarball of ref and returns the contents of the
// files in want (repository path -> blob SHA) it holds with exactly that
// blob SHA. A file missing from it (export-ignore) or whose content differs
// (export-subst, eol conversion) is left out: the caller reads its blob.
func (h *Host) archiveFiles(ctx context.Context, pr bot.PullRequest, ref string, want map[string]string) (map[string][]byte, error) {
	link, _, err := h.client.Repositories.GetArchiveLink(ctx, repoOwner(pr), repoName(pr), gh.Tarball, &gh.RepositoryContentGetOptions{Ref: ref}, 1)
	if err != nil {
		return nil, fmt.Errorf("getting the tarball link of %s: %w", short(ref), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("building the tarball request: %w", err)
	}
	client := h.archiveClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("downloading the tarball of %s: %w", short(ref), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("downloading the tarball of %s: %s", short(ref), resp.Status)
	}
	got, skipped, err := readTarball(io.LimitReader(resp.Body, maxArchiveCompressed), want, maxArchiveBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the tarball of %s: %w", short(ref), err)
	}
	if skipped > 0 {
		bot.LoggerFrom(ctx).Warn("tarball entries refused (absolute path, .. or link)", "entries", skipped)
	}
	return got, nil
}

// readTarball reads a gzipped tarball as GitHub makes it (every entry under
// one top folder) and returns the regular files whose path under the top
// folder is in want and whose git blob SHA is want's. Entries with an
// absolute path, a ".." element or a link type are never used (refused
// counts them); a file over maxBlobBytes is not read; reading stops with an
// error after maxBytes decompressed bytes.
func readTarball(r io.Reader, want map[string]string, maxBytes int64) (got map[string][]byte, refused int, err error) {
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
		if !wanted || hd.Size > maxBlobBytes {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxBlobBytes+1))
		if err != nil {
			if lim.n <= 0 {
				return nil, refused, fmt.Errorf("archive over %d bytes", maxBytes)
			}
			return nil, refused, fmt.Errorf("reading %s: %w", rel, err)
		}
		if gitBlobSHA(data) == sha {
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

// gitBlobSHA is git's object id of a blob with content data.
func gitBlobSHA(data []byte) string {
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
