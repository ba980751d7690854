//go:build unix

package rendered_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/rendered"
)

// TestLinkToAPipeIsNotRead checks that a link in a chart's folder to a
// named pipe in it is left out as the pipe itself is, not read: reading
// a pipe no one writes to never ends, and the check with it.
func TestLinkToAPipeIsNotRead(t *testing.T) {
	dir := checkstest.WriteTree(t, listedChart)
	pipe := filepath.Join(dir, "web", "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if err := os.Symlink("pipe", filepath.Join(dir, "web", "values-x.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, list := range []bool{false, true} {
		type loaded struct {
			files rendered.Files
			err   error
		}
		done := make(chan loaded, 1)
		go func() {
			files, _, err := rendered.LoadDir(dir, list)
			done <- loaded{files, err}
		}()
		var files rendered.Files
		var err error
		select {
		case l := <-done:
			files, err = l.files, l.err
		case <-time.After(time.Minute): // a hang, not a slow read: the read of the pipe never ends
			t.Fatalf("LoadDir(list %v) still reading after a minute: it opened the pipe", list)
		}
		if err != nil {
			t.Fatalf("LoadDir(list %v): %v", list, err)
		}
		for _, p := range []string{"web/pipe", "web/values-x.yaml"} {
			if _, ok := files[p]; ok {
				t.Errorf("LoadDir(list %v) holds %s", list, p)
			}
		}
		if _, ok := files["web/values.yaml"]; !ok {
			t.Errorf("LoadDir(list %v) lost web/values.yaml", list)
		}
	}
}
