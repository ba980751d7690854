package gitlab

import (
	"context"
	"errors"
	"fmt"
	"io"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/gitarchive"
)

// ArchiveThreshold is how many missing blobs Manifests still reads one by
// one; with more missing, it downloads the commit's archive instead (one
// API request whatever the size of the repository), as the GitHub adapter
// downloads its tarball.
const ArchiveThreshold = 8

// maxArchiveBytes bounds the decompressed bytes read from one archive (and
// so the work a decompression bomb can cause). The compressed download is
// bounded by Options.MaxAnswerBytes, like every answer.
const maxArchiveBytes = 2 << 30

// fromArchive downloads the archive of ref (GET
// /projects/:id/repository/archive.tar.gz?sha=ref) and fills in the files
// of missing it holds with exactly their blob SHA, caching them. It returns
// the files still missing: those the archive leaves out (export-ignore) or
// changes (export-subst), or all of them when the archive cannot be read
// (over the answer bound, an error), which are then read blob by blob.
func (h *Host) fromArchive(ctx context.Context, pr bot.PullRequest, ref string, missing []*bot.File, cache bot.BlobCache) []*bot.File {
	log := bot.LoggerFrom(ctx)
	want := make(map[string]string, len(missing))
	for _, f := range missing {
		want[f.Path] = f.SHA
	}
	got, err := h.archiveFiles(ctx, pr, ref, want)
	if err != nil {
		log.Warn("gitlab: cannot read the repository archive; reading blobs one by one", "ref", ref, "files", len(missing), "err", err.Error())
		return missing
	}
	rest := missing[:0]
	for _, f := range missing {
		data, ok := got[f.Path]
		if !ok {
			rest = append(rest, f)
			continue
		}
		f.Data = data
		if cache != nil {
			cache.Put(f.SHA, data)
		}
	}
	if len(rest) > 0 {
		log.Warn("gitlab: files missing from the archive or differing from their blob (export-ignore, export-subst); reading their blobs", "files", len(rest))
	}
	return rest
}

// archiveFiles streams the tar.gz archive of ref through gitarchive.Read.
func (h *Host) archiveFiles(ctx context.Context, pr bot.PullRequest, ref string, want map[string]string) (map[string][]byte, error) {
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := h.api.Repositories.StreamArchive(pid(pr), w, &gl.ArchiveOptions{Format: gl.Ptr("tar.gz"), SHA: gl.Ptr(ref)}, gl.WithContext(ctx))
		w.CloseWithError(err)
		done <- err
	}()
	got, refused, err := gitarchive.Read(r, want, maxArchiveBytes)
	r.CloseWithError(io.ErrClosedPipe) // unblocks the download when Read stopped early
	// A download cut short after the archive's end (its padding) is no
	// error: Read saw the whole archive.
	if derr := <-done; derr != nil && err == nil && !errors.Is(derr, io.ErrClosedPipe) {
		err = derr
	}
	if err != nil {
		return nil, fmt.Errorf("reading the archive of %.12s: %w", ref, err)
	}
	if refused > 0 {
		bot.LoggerFrom(ctx).Warn("gitlab: archive entries refused (absolute path, .. or link)", "entries", refused)
	}
	return got, nil
}
