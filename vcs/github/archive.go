package github

import (
	"context"
	"fmt"
	"io"
	"net/http"

	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/gitarchive"
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
	got, skipped, err := gitarchive.Read(io.LimitReader(resp.Body, maxArchiveCompressed), want, maxArchiveBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the tarball of %s: %w", short(ref), err)
	}
	if skipped > 0 {
		bot.LoggerFrom(ctx).Warn("tarball entries refused (absolute path, .. or link)", "entries", skipped)
	}
	return got, nil
}
