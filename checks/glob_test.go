package checks_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// globTree writes files (empty YAML) under a new folder and returns it.
func globTree(t *testing.T, files ...string) string {
	t.Helper()
	tree := map[string]string{}
	for _, f := range files {
		tree[f] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	}
	return checkstest.WriteTree(t, tree)
}

// listed lists the paths List reads of dir under cfg, relative to dir.
func listed(t *testing.T, cfg *checks.Config, dir string) []string {
	t.Helper()
	inputs, err := checks.List([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range inputs {
		rel, _ := filepath.Rel(dir, in.Path)
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

// TestGlobsHaveDoublestarSemantics: the config's include and exclude use
// doublestar's **, braces and classes, relative to the config's folder; a
// name without a slash matches a folder anywhere (everything under it);
// a glob that matches nothing is reported.
func TestGlobsHaveDoublestarSemantics(t *testing.T) {
	dir := globTree(t, "deploy/web.yaml", "deploy/_archived/old.yaml", "apps/_archived/x.yaml", "charts/a/values.yaml",
		"charts/b/values-prod.yaml", "legacy/one.yml", "keep.yaml", "docs/readme.txt")
	for _, c := range []struct {
		name             string
		include, exclude []string
		want             []string
		unmatched        []string
	}{
		{"bare folder name", nil, []string{"_archived"}, []string{"charts/a/values.yaml", "charts/b/values-prod.yaml", "deploy/web.yaml", "keep.yaml", "legacy/one.yml"}, nil},
		{"braces", nil, []string{"{legacy,charts}/**"}, []string{"apps/_archived/x.yaml", "deploy/_archived/old.yaml", "deploy/web.yaml", "keep.yaml"}, nil},
		{"class and a folder path", nil, []string{"charts/[a]", "deploy/_archived/"}, []string{"apps/_archived/x.yaml", "charts/b/values-prod.yaml", "deploy/web.yaml", "keep.yaml", "legacy/one.yml"}, nil},
		{"include a folder keeps its YAML", []string{"deploy", "docs"}, nil, []string{"deploy/_archived/old.yaml", "deploy/web.yaml"}, []string{"include docs (config)"}},
		{"unmatched", []string{"**/*.yaml"}, []string{"_archive", "charts/c/**"}, []string{"apps/_archived/x.yaml", "charts/a/values.yaml", "charts/b/values-prod.yaml", "deploy/_archived/old.yaml", "deploy/web.yaml", "keep.yaml"}, []string{"exclude _archive (config)", "exclude charts/c/** (config)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := checks.DefaultConfig(catalog.Default())
			cfg.Include, cfg.Exclude = c.include, c.exclude
			if err := cfg.SetRoot(dir); err != nil {
				t.Fatal(err)
			}
			if got := listed(t, cfg, dir); !slices.Equal(got, c.want) {
				t.Errorf("listed %v, want %v", got, c.want)
			}
			if got := cfg.UnmatchedGlobs(); !slices.Equal(got, c.unmatched) {
				t.Errorf("unmatched %v, want %v", got, c.unmatched)
			}
		})
	}
}

// TestFlagGlobsAreRelativeToTheCurrentFolder: --exclude matches from the
// folder it was given in, whatever folder is checked, while the config's
// globs match from the config's folder; an invalid glob is an error.
func TestFlagGlobsAreRelativeToTheCurrentFolder(t *testing.T) {
	dir := globTree(t, "svc/deploy/web.yaml", "svc/deploy/legacy/old.yaml", "svc/other.yaml")
	cfg := checks.DefaultConfig(catalog.Default())
	cfg.Exclude = []string{"svc/other.yaml"}
	if err := cfg.SetRoot(dir); err != nil {
		t.Fatal(err)
	}
	// As if run in dir/svc: `--exclude deploy/legacy`.
	if err := cfg.SetFlagGlobs(filepath.Join(dir, "svc"), nil, []string{"deploy/legacy", "nothing/**"}); err != nil {
		t.Fatal(err)
	}
	if got, want := listed(t, cfg, dir), []string{"svc/deploy/web.yaml"}; !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
	if got, want := cfg.UnmatchedGlobs(), []string{"--exclude nothing/**"}; !slices.Equal(got, want) {
		t.Errorf("unmatched %v, want %v", got, want)
	}
	if err := checks.DefaultConfig(catalog.Default()).SetFlagGlobs(dir, []string{"deploy/{a,b"}, nil); err == nil {
		t.Error("an invalid glob was taken")
	}
}
