package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCheckRendersNoURL runs prodready check as a process (this test
// binary as prodready, asMain, as the other process tests do: building the
// binary again cost a link of every package, half a minute) on an overlay
// whose patch, generator file and replacements are URLs on a loopback
// server: the server receives nothing, the output names each refused
// field, and the exit code says there are findings (render-failed is an
// error).
func TestCheckRendersNoURL(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\n"))
	}))
	defer srv.Close()

	dir := t.TempDir()
	overlay := filepath.Join(dir, "overlay")
	os.MkdirAll(overlay, 0o755)
	os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte("resources:\n- cm.yaml\npatches:\n- path: "+srv.URL+"/patch.yaml\nconfigMapGenerator:\n- name: leak\n  files:\n  - token="+srv.URL+"/latest/meta-data\nreplacements:\n- path: "+srv.URL+"/r.yaml\n"), 0o644)
	os.WriteFile(filepath.Join(overlay, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), 0o644)

	cmd := exec.Command(os.Args[0], "check", dir)
	cmd.Env = append(os.Environ(), asMain+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("prodready check: %v, want exit code 1 (findings)\n%s", err, out)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server received %d requests", n)
	}
	for _, want := range []string{"render-failed", "patches[0].path", "configMapGenerator[0].files[0]", "replacements[0].path", "renders are offline"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not name %q:\n%s", want, out)
		}
	}
}
