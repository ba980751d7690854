package rendered_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
)

var listedChart = map[string]string{
	"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 1.0.0\n",
	"web/values.yaml":               "replicas: 1\nimage: nginx:latest\n",
	"web/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: {{ .Values.image }}\n",
	"overlay/kustomization.yaml":    "resources:\n  - cm.yaml\n",
	"overlay/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	"empty.txt":                     "",
}

// TestListDirReadsOnUse checks that ListDir lists what ReadDir reads,
// holds the contents of the files that say what is rendered only, and
// that its reader gives the others' contents as ReadDir read them.
func TestListDirReadsOnUse(t *testing.T) {
	dir := checkstest.WriteTree(t, listedChart)
	whole, err := rendered.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	listed, read, err := rendered.ListDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(whole) {
		t.Fatalf("ListDir listed %d files, ReadDir read %d", len(listed), len(whole))
	}
	for p, want := range whole {
		held, ok := listed[p]
		if !ok {
			t.Errorf("%s not listed", p)
			continue
		}
		root := p == "web/Chart.yaml" || p == "overlay/kustomization.yaml"
		if root != (held != nil) {
			t.Errorf("%s: held %q, want contents held only for Chart.yaml and kustomizations", p, held)
		}
		got, ok, err := listed.Read(p, read)
		if err != nil || !ok || !bytes.Equal(got, want) || got == nil {
			t.Errorf("Read(%s) = %q, %v, %v; want %q", p, got, ok, err, want)
		}
	}
	if _, ok, err := listed.Read("web/missing.yaml", read); ok || err != nil {
		t.Errorf("Read of a file not listed: ok %v, err %v", ok, err)
	}
	filled, err := listed.Filled(read)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range whole {
		if !bytes.Equal(filled[p], want) || filled[p] == nil {
			t.Errorf("Filled %s = %q, want %q", p, filled[p], want)
		}
	}
	if listed["web/values.yaml"] != nil {
		t.Error("Filled changed the set it was given")
	}
}

// TestListedFileGoneIsAFinding checks that a file removed after the folder
// was listed, or turned into a link that leads outside it, is a
// render-failed finding on its chart or overlay that names it, while the
// rest of the run goes on.
func TestListedFileGoneIsAFinding(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		change     func(t *testing.T, full string)
	}{
		{"removed", "web/templates/deployment.yaml", func(t *testing.T, full string) {
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
		}},
		{"linked outside", "overlay/cm.yaml", func(t *testing.T, full string) {
			outside := filepath.Join(t.TempDir(), "secret.yaml")
			if err := os.WriteFile(outside, []byte("kind: Secret\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, full); err != nil {
				t.Skip("no symbolic links here:", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := checkstest.WriteTree(t, listedChart)
			var inputs []checks.Input
			for p, text := range listedChart {
				inputs = append(inputs, checks.Input{Path: filepath.ToSlash(filepath.Join(dir, p)), Data: []byte(text)})
			}
			folders := rendered.ListFolders(inputs, []string{filepath.ToSlash(dir)})
			if len(folders) != 1 || folders[0].Err != nil || folders[0].Read == nil {
				t.Fatalf("folders: %+v", folders)
			}
			tc.change(t, filepath.Join(dir, filepath.FromSlash(tc.file)))
			p := rendered.Prepare(context.Background(), inputs, folders, render.InProcess, rendered.Options{})
			found := false
			for _, f := range p.Problems {
				if f.RuleID == checks.RenderFailed && strings.Contains(f.Message, tc.file) {
					found = true
				}
			}
			if !found {
				t.Errorf("no render-failed finding names %s: %+v", tc.file, p.Problems)
			}
			if p.Renders == 0 {
				t.Error("nothing rendered: the other root should render")
			}
		})
	}
}

// TestUnreadableFolderIsNamed checks that a folder that cannot be read
// (a link in it leads outside it) is one render-failed finding that names
// the folder and says why, readably.
func TestUnreadableFolderIsNamed(t *testing.T) {
	dir := checkstest.WriteTree(t, listedChart)
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(outside, []byte("kind: Secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "web", "templates", "secret.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var inputs []checks.Input
	for p, text := range listedChart {
		inputs = append(inputs, checks.Input{Path: filepath.ToSlash(filepath.Join(dir, p)), Data: []byte(text)})
	}
	root := filepath.ToSlash(dir)
	folders := rendered.ListFolders(inputs, []string{root})
	if len(folders) != 1 || folders[0].Err == nil {
		t.Fatalf("folders: %+v, want one that cannot be read", folders)
	}
	p := rendered.Prepare(context.Background(), inputs, folders, render.InProcess, rendered.Options{})
	if len(p.Problems) != 1 {
		t.Fatalf("problems: %+v, want one", p.Problems)
	}
	want := "the folder " + root + " cannot be rendered, so its objects are not checked as rendered: reading " + root + ": symlink web/templates/secret.yaml leads outside " + root
	if f := p.Problems[0]; f.RuleID != checks.RenderFailed || f.File != root || f.Message != want {
		t.Errorf("problem: %s %s %q\nwant render-failed at %s: %q", f.RuleID, f.File, f.Message, root, want)
	}
}

// TestIgnoreInAFileReadOnUse checks that an ignore comment in a values
// file the render reads from disk (not held by the listing) silences the
// finding mapped to its line, as one in a file read whole does: the
// comment is not rendered, so only the line it is on says it.
func TestIgnoreInAFileReadOnUse(t *testing.T) {
	cfg, err := checks.ParseConfig(nil, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	const values = "web/values.yaml"
	for _, ignore := range []bool{false, true} {
		tree := map[string]string{}
		for p, text := range listedChart {
			tree[p] = text
		}
		if ignore {
			tree[values] = "replicas: 1\nimage: nginx:latest # prodready:ignore image-tag-mutable pinned by the mirror\n"
		}
		dir := checkstest.WriteTree(t, tree)
		var inputs []checks.Input
		for p, text := range tree {
			inputs = append(inputs, checks.Input{Path: filepath.ToSlash(filepath.Join(dir, p)), Data: []byte(text)})
		}
		folders := rendered.ListFolders(inputs, []string{filepath.ToSlash(dir)})
		if len(folders) != 1 || folders[0].Files[values] != nil {
			t.Fatalf("the values file is held by the listing: %+v", folders)
		}
		p := rendered.Prepare(context.Background(), inputs, folders, render.InProcess, rendered.Options{KubeVersion: cfg.KubernetesVersion})
		got := map[string]bool{}
		for _, f := range p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings) {
			got[f.RuleID] = true
		}
		if got["image-tag-mutable"] == ignore || !got["memory-requests-missing"] {
			t.Errorf("ignore comment %v: findings %v", ignore, got)
		}
	}
}
