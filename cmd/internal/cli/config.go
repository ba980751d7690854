package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
)

// runConfig is the config of one run and where it came from.
type runConfig struct {
	*checks.Config
	// File is the config file read, as the user would name it from the
	// current folder (".prodready.yaml", "../.prodready.yaml", the
	// --config argument); "" when the built-in defaults apply.
	File string
}

// Describe is what the text report's first line says of the config:
// its file, or that the built-in defaults apply and why.
func (c runConfig) Describe() string {
	if c.File != "" {
		return c.File
	}
	return "built-in defaults (no " + checks.ConfigFileName + " in the current folder or above it, up to the repository root)"
}

// loadConfig reads the config named by flagPath, else the nearest
// .prodready.yaml from the current folder up to the repository root (the
// nearest folder with a .git entry) or the filesystem root, as
// .golangci.yml and .kube-linter.yaml are found: the same file whatever
// paths are checked and however they are spelled. Its include and exclude
// globs match paths from the config file's folder (the defaults have
// none).
func loadConfig(flagPath string) (runConfig, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return runConfig{}, fmt.Errorf("config: %w", err)
	}
	found := findConfig(cwd)
	root := repositoryRoot(cwd)
	if root == "" {
		root = cwd
	}
	var rc runConfig
	switch {
	case flagPath != "":
		if _, err := os.Stat(flagPath); err != nil {
			return runConfig{}, fmt.Errorf("config: %w", err)
		}
		cfg, err := checks.LoadConfig(flagPath, catalog.Default())
		if err != nil {
			return runConfig{}, err
		}
		rc = runConfig{Config: cfg, File: flagPath}
		root = filepath.Dir(flagPath)
	case found != "":
		name := found
		if rel, err := filepath.Rel(cwd, found); err == nil {
			name = rel
		}
		cfg, err := checks.LoadConfig(name, catalog.Default())
		if err != nil {
			return runConfig{}, err
		}
		rc = runConfig{Config: cfg, File: name}
		root = filepath.Dir(found)
	default:
		rc = runConfig{Config: checks.DefaultConfig(catalog.Default())}
	}
	if err := rc.SetRoot(root); err != nil {
		return runConfig{}, err
	}
	return rc, nil
}

// findConfig returns the absolute path of the nearest .prodready.yaml in
// dir or a folder above it, up to the repository root (the nearest folder
// with a .git entry, a folder or, in a worktree or submodule, a file) or
// the filesystem root; "" when there is none.
func findConfig(dir string) string {
	for {
		candidate := filepath.Join(dir, checks.ConfigFileName)
		if st, err := os.Stat(candidate); err == nil && st.Mode().IsRegular() {
			return candidate
		}
		if isRepositoryRoot(dir) {
			return ""
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// repositoryRoot is the nearest folder at or above dir with a .git entry,
// or "".
func repositoryRoot(dir string) string {
	for !isRepositoryRoot(dir) {
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
	return dir
}

func isRepositoryRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// loadConfigWith is loadConfig with the run's flags (over) applied on top.
func loadConfigWith(flagPath string, over *overrides) (runConfig, error) {
	rc, err := loadConfig(flagPath)
	if err != nil {
		return rc, err
	}
	return rc, over.apply(rc.Config)
}
