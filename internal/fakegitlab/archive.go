package fakegitlab

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"path"
	"strings"
)

// ArchiveName is the top folder of a commit's archive, as GitLab names it:
// <project>-<ref>-<sha>, the ref being the sha the request named.
func ArchiveName(projectPath, sha string) string {
	return path.Base(projectPath) + "-" + sha + "-" + sha
}

// writeArchive answers GET /projects/:id/repository/archive(.tar.gz)?sha=
// with the gzipped tarball of the commit: every file under one top folder
// (ArchiveName), 404 for a commit the project does not have. GitLab
// defaults sha to the default branch; the fake has none and wants it.
func writeArchive(w http.ResponseWriter, p *Project, sha string) int {
	tree, ok := p.Commits[sha]
	if !ok {
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Commit Not Found"})
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	top := ArchiveName(p.Path, sha)
	dirs := map[string]bool{}
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o755})
	for _, f := range sortedKeys(tree) {
		parts := strings.Split(f, "/")
		for i := 1; i < len(parts); i++ {
			d := strings.Join(parts[:i], "/")
			if !dirs[d] {
				dirs[d] = true
				tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/" + d + "/", Mode: 0o755})
			}
		}
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: top + "/" + f, Mode: 0o644, Size: int64(len(tree[f]))})
		tw.Write([]byte(tree[f]))
	}
	tw.Close()
	zw.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+top+`.tar.gz"`)
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
	return http.StatusOK
}
