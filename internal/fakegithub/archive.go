package fakegithub

import (
	"archive/tar"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sort"
	"time"
)

// Routes of the read path, as recorded in Call.Route.
const (
	RoutePRFiles  = "GET /repos/{owner}/{repo}/pulls/{n}/files"
	RouteContents = "GET /repos/{owner}/{repo}/contents/{path...}"
	RouteTree     = "GET /repos/{owner}/{repo}/git/trees/{sha}"
	RouteBlob     = "GET /repos/{owner}/{repo}/git/blobs/{sha}"
	// RouteTarball is the API's archive link: it answers 302 to
	// RouteCodeload, like GitHub's redirect to codeload.github.com.
	RouteTarball = "GET /repos/{owner}/{repo}/tarball/{ref}"
	// RouteCodeload serves the archive itself; it needs no Authorization,
	// only the one-time token in the link (as codeload does).
	RouteCodeload = "GET /_codeload/{owner}/{repo}/legacy.tar.gz/{ref}"
)

// ArchiveEntry is an extra entry the fake puts in a repository's tarballs
// (to test how a client treats hostile archives): Name is the entry's name
// under the archive's top folder unless Raw, Typeflag a tar type
// (tar.TypeReg when 0), Linkname a link's target. Omit instead leaves the
// repository's file Name out of the archive, like export-ignore in
// .gitattributes.
type ArchiveEntry struct {
	Name     string
	Omit     bool
	Raw      bool
	Typeflag byte
	Linkname string
	Content  string
}

// AddArchiveEntry makes every tarball of the repository carry e as well
// (before the repository's files).
func (s *Server) AddArchiveEntry(owner, name string, e ArchiveEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, name)
	r.archiveExtra = append(r.archiveExtra, e)
}

// tarballLink answers like GitHub: 302 to a codeload link carrying a
// one-time token.
func (s *Server) tarballLink(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[r.PathValue("owner")+"/"+r.PathValue("repo")]
	ref := r.PathValue("ref")
	if rp == nil || rp.commits[ref] == nil {
		notFound(w)
		return
	}
	var b [16]byte
	rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	s.archiveTokens[tok] = r.PathValue("owner") + "/" + r.PathValue("repo") + "@" + ref
	w.Header().Set("Location", s.srv.URL+"/_codeload/"+r.PathValue("owner")+"/"+r.PathValue("repo")+"/legacy.tar.gz/"+ref+"?token="+tok)
	w.WriteHeader(http.StatusFound)
}

// codeload serves the gzipped tarball of a commit: a pax global header
// with the commit id, the top folder "owner-repo-sha7/", then every file
// under it in path order.
func (s *Server) codeload(w http.ResponseWriter, r *http.Request) {
	owner, name, ref := r.PathValue("owner"), r.PathValue("repo"), r.PathValue("ref")
	s.mu.Lock()
	tok := r.URL.Query().Get("token")
	want, ok := s.archiveTokens[tok]
	delete(s.archiveTokens, tok)
	rp := s.repos[owner+"/"+name]
	var files map[string]string
	var extra []ArchiveEntry
	if rp != nil {
		files = rp.commits[ref]
		extra = append(extra, rp.archiveExtra...)
	}
	s.mu.Unlock()
	if !ok || want != owner+"/"+name+"@"+ref || files == nil {
		notFound(w)
		return
	}
	top := owner + "-" + name + "-" + ref[:min(7, len(ref))] + "/"
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	w.Header().Set("Content-Type", "application/x-gzip")
	w.Header().Set("Content-Disposition", "attachment; filename="+owner+"-"+name+"-"+ref[:min(7, len(ref))]+".tar.gz")
	w.WriteHeader(http.StatusOK)
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	mtime := time.Unix(1700000000, 0)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": ref}, Format: tar.FormatPAX})
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top, Mode: 0o775, ModTime: mtime})
	omit := map[string]bool{}
	for _, e := range extra {
		if e.Omit {
			omit[e.Name] = true
			continue
		}
		n := top + e.Name
		if e.Raw {
			n = e.Name
		}
		typ := e.Typeflag
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Typeflag: typ, Name: n, Linkname: e.Linkname, Mode: 0o664, ModTime: mtime}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.Content))
		}
		tw.WriteHeader(h)
		if typ == tar.TypeReg {
			tw.Write([]byte(e.Content))
		}
	}
	for _, p := range paths {
		if omit[p] {
			continue
		}
		c := files[p]
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: top + p, Mode: 0o664, Size: int64(len(c)), ModTime: mtime})
		tw.Write([]byte(c))
	}
	tw.Close()
	zw.Close()
}
