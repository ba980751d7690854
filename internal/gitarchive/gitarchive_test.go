package gitarchive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

type entry struct {
	name, link, content string
	typ                 byte
}

func tarball(t *testing.T, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: 0o644}
		if e.typ == tar.TypeReg {
			h.Size = int64(len(e.content))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			tw.Write([]byte(e.content))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestReadTarballRefuses checks that links, absolute paths and ".." are
// refused (counted, never read) even where their name is wanted, that
// content must match the blob SHA, and that only the top folder counts.
func TestReadTarballRefuses(t *testing.T) {
	good := "kind: ConfigMap\n"
	want := map[string]string{"a.yaml": GitBlobSHA([]byte(good)), "b.yaml": GitBlobSHA([]byte(good)), "../c.yaml": GitBlobSHA([]byte(good))}
	data := tarball(t, []entry{
		{name: "top/", typ: tar.TypeDir},
		{name: "top/a.yaml", typ: tar.TypeSymlink, link: "/etc/passwd"},
		{name: "top/b.yaml", typ: tar.TypeLink, link: "top/a.yaml"},
		{name: "/top/a.yaml", typ: tar.TypeReg, content: good},
		{name: "top/../c.yaml", typ: tar.TypeReg, content: good},
		{name: "top/b.yaml", typ: tar.TypeReg, content: "kind: Secret\n"},
		{name: "other/b.yaml", typ: tar.TypeReg, content: good},
		{name: "top/a.yaml", typ: tar.TypeReg, content: good},
	})
	got, refused, err := Read(bytes.NewReader(data), want, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if refused != 4 {
		t.Errorf("refused %d entries, want 4 (symlink, hard link, absolute, ..)", refused)
	}
	if len(got) != 1 || string(got["a.yaml"]) != good {
		t.Errorf("got %q, want only a.yaml", got)
	}
}

// TestReadTarballBounded checks that decompression stops at the bound with
// an error instead of reading on (a decompression bomb).
func TestReadTarballBounded(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	data := tarball(t, []entry{{name: "top/big.yaml", typ: tar.TypeReg, content: big}})
	if len(data) > 64<<10 {
		t.Fatalf("test archive not compressed: %d bytes", len(data))
	}
	_, _, err := Read(bytes.NewReader(data), map[string]string{"big.yaml": GitBlobSHA([]byte(big))}, 256<<10)
	if err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("err = %v, want the size bound", err)
	}
	if _, _, err := Read(strings.NewReader("not gzip"), nil, 1<<20); err == nil {
		t.Fatal("a body that is not gzip was read")
	}
}
