package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is what the tests read of .goreleaser.yaml.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		IDs             []string `yaml:"ids"`
		NameTemplate    string   `yaml:"name_template"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		Files []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	SBOMs []struct {
		Artifacts string   `yaml:"artifacts"`
		Cmd       string   `yaml:"cmd"`
		Args      []string `yaml:"args"`
	} `yaml:"sboms"`
	Signs []struct {
		Cmd       string   `yaml:"cmd"`
		Artifacts string   `yaml:"artifacts"`
		Args      []string `yaml:"args"`
	} `yaml:"signs"`
	DockersV2 []struct {
		IDs        []string `yaml:"ids"`
		Dockerfile string   `yaml:"dockerfile"`
		Platforms  []string `yaml:"platforms"`
	} `yaml:"dockers_v2"`
}

func readGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return c
}

// releaseNames are the names GoReleaser gives a release's archive for a
// platform and its checksums file, from .goreleaser.yaml's own templates,
// so that the install tests lay a release out exactly as a real one.
func releaseNames(t *testing.T, c goreleaserConfig, version, goos, goarch string) (archive, checksums string) {
	t.Helper()
	fields := map[string]string{"ProjectName": c.ProjectName, "Version": version, "Os": goos, "Arch": goarch}
	apply := func(name, text string) string {
		tmpl, err := template.New(name).Option("missingkey=error").Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, fields); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b.String()
	}
	a := c.Archives[0]
	format := a.Formats[0]
	for _, o := range a.FormatOverrides {
		if o.Goos == goos {
			format = o.Formats[0]
		}
	}
	return apply("archives.name_template", a.NameTemplate) + "." + format, apply("checksum.name_template", c.Checksum.NameTemplate)
}

// TestGoreleaserConfig keeps the release what the Action's download
// (scripts/install-release.sh) and the README expect: both binaries built
// like `make build` for the six platforms, one archive per platform holding
// both, named prodready_<version>_<os>_<arch>.tar.gz (.zip on windows),
// SHA-256 checksums in prodready_<version>_checksums.txt, an SBOM per
// archive, the checksums signed with keyless cosign, and the image built
// from Dockerfile.release for linux/amd64 and linux/arm64.
func TestGoreleaserConfig(t *testing.T) {
	c := readGoreleaser(t)
	if c.Version != 2 || c.ProjectName != "prodready" {
		t.Errorf("version %d, project_name %q; want 2, prodready", c.Version, c.ProjectName)
	}
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	builds := map[string]string{}
	for _, b := range c.Builds {
		builds[b.ID] = b.Main
		if b.Binary != b.ID {
			t.Errorf("build %s: binary %q", b.ID, b.Binary)
		}
		// Static, and built with the release toolchain the Makefile passes
		// from .release-toolchain (the one make lint scans with).
		if !slices.Equal(b.Env, []string{"CGO_ENABLED=0", "GOTOOLCHAIN={{ .Env.RELEASE_TOOLCHAIN }}"}) || !slices.Equal(b.Flags, []string{"-trimpath"}) {
			t.Errorf("build %s: env %v, flags %v; want CGO_ENABLED=0, GOTOOLCHAIN from RELEASE_TOOLCHAIN, -trimpath", b.ID, b.Env, b.Flags)
		}
		if !strings.Contains(string(mk), "RELEASE_TOOLCHAIN=$(RELEASE_TOOLCHAIN) $(GORELEASER) release --snapshot") || !strings.Contains(string(mk), "RELEASE_TOOLCHAIN=$(RELEASE_TOOLCHAIN) $(GORELEASER) release --clean") {
			t.Error("the Makefile's release targets do not pass RELEASE_TOOLCHAIN to GoReleaser")
		}
		// The Makefile's LDFLAGS with GoReleaser's version in place of make's.
		if want := "-s -w -X main.version={{ .Version }}"; !slices.Equal(b.Ldflags, []string{want}) || !strings.Contains(string(mk), "LDFLAGS   := -s -w -X main.version=$(VERSION)") {
			t.Errorf("build %s: ldflags %q, want [%s] as the Makefile's", b.ID, b.Ldflags, want)
		}
		if !slices.Equal(b.Goos, []string{"linux", "darwin", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
			t.Errorf("build %s: goos %v, goarch %v", b.ID, b.Goos, b.Goarch)
		}
	}
	if builds["prodready"] != "./cmd/prodready" || len(builds) != 1 {
		t.Errorf("builds %v, want the one binary, prodready, from ./cmd/prodready", builds)
	}
	if len(c.Archives) != 1 || !slices.Equal(c.Archives[0].IDs, []string{"prodready"}) || !slices.Contains(c.Archives[0].Files, "LICENSE") {
		t.Fatalf("archives %+v: want one, of the one build, with LICENSE", c.Archives)
	}
	for _, p := range [][2]string{{"linux", "amd64"}, {"darwin", "arm64"}, {"windows", "arm64"}} {
		archive, checksums := releaseNames(t, c, "1.2.3", p[0], p[1])
		ext := ".tar.gz"
		if p[0] == "windows" {
			ext = ".zip"
		}
		if want := "prodready_1.2.3_" + p[0] + "_" + p[1] + ext; archive != want {
			t.Errorf("archive for %s/%s is %s, want %s (scripts/install-release.sh downloads that name)", p[0], p[1], archive, want)
		}
		if checksums != "prodready_1.2.3_checksums.txt" || c.Checksum.Algorithm != "sha256" {
			t.Errorf("checksums %s (%s), want prodready_1.2.3_checksums.txt (sha256)", checksums, c.Checksum.Algorithm)
		}
	}
	if len(c.SBOMs) != 1 || c.SBOMs[0].Artifacts != "archive" || c.SBOMs[0].Cmd != "go" || !slices.Contains(c.SBOMs[0].Args, "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0") {
		t.Errorf("sboms %+v: want one per archive by cyclonedx-gomod at a pinned version through go run", c.SBOMs)
	}
	if len(c.Signs) != 1 || c.Signs[0].Cmd != "cosign" || c.Signs[0].Artifacts != "checksum" || slices.ContainsFunc(c.Signs[0].Args, func(a string) bool { return strings.HasPrefix(a, "--key") }) {
		t.Errorf("signs %+v: want the checksums signed by cosign, keyless", c.Signs)
	}
	if len(c.DockersV2) != 1 || c.DockersV2[0].Dockerfile != "Dockerfile.release" || !slices.Equal(c.DockersV2[0].IDs, []string{"prodready"}) || !slices.Equal(c.DockersV2[0].Platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("dockers_v2 %+v", c.DockersV2)
	}
}

// fakeRelease serves releases laid out as GitHub serves them:
// /<tag>/<file>. Files is keyed by tag then name; status, when set for a
// path, is answered instead.
type fakeRelease struct {
	mu       sync.Mutex
	files    map[string]map[string][]byte
	status   map[string]int
	requests []string
}

func (f *fakeRelease) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.Path)
	if code, ok := f.status[r.URL.Path]; ok {
		http.Error(w, http.StatusText(code), code)
		return
	}
	tag, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	data, ok := f.files[tag][name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(data)
}

func (f *fakeRelease) requested() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// packArchive makes an archive of files, a zip for a .zip name and a
// gzipped tar otherwise, with the modes GoReleaser gives (binaries 0755).
func packArchive(t *testing.T, name string, files map[string]string) []byte {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	if strings.HasSuffix(name, ".zip") {
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			h := &zip.FileHeader{Name: n, Method: zip.Deflate}
			h.SetMode(0o755)
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(files[n]))
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(files[n]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// stubBinary is a prodready binary that runs anywhere bash does and says
// its name and version, as `prodready version` does.
func stubBinary(name, version string) string {
	return fmt.Sprintf("#!/bin/sh\necho %q\n", name+" "+version)
}

// scriptResult is one run of scripts/install-release.sh.
type scriptResult struct {
	code           int
	stdout, stderr string
}

func runInstallScript(t *testing.T, args ...string) scriptResult {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"../../scripts/install-release.sh"}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("bash: %v", err)
	}
	return scriptResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the test binaries are shell scripts; the script's Windows path (Git Bash, zip) is tested with -os windows on another OS")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
}

// TestInstallRelease runs scripts/install-release.sh, the Action's
// download, against a local server holding releases laid out exactly as
// GoReleaser names them: it installs a release whose checksum matches (a
// zip for windows too), refuses one whose checksum does not with nothing
// installed, exits 3 (build from source) for a missing release, a branch
// or a SHA, and 1 (fail) for a server error.
func TestInstallRelease(t *testing.T) {
	needTools(t, "bash", "curl", "tar", "unzip")
	c := readGoreleaser(t)
	srv := &fakeRelease{files: map[string]map[string][]byte{}, status: map[string]int{}}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	// addRelease lays out release tag for platforms; corrupt makes the
	// checksums file name another archive's hash for the first platform.
	addRelease := func(tag string, corrupt bool, platforms ...[2]string) {
		files := map[string][]byte{}
		var sums strings.Builder
		var checksums string
		seen := map[[2]string]bool{}
		for i, p := range platforms {
			if seen[p] {
				continue
			}
			seen[p] = true
			exe := ""
			if p[0] == "windows" {
				exe = ".exe"
			}
			var archive string
			archive, checksums = releaseNames(t, c, strings.TrimPrefix(tag, "v"), p[0], p[1])
			data := packArchive(t, archive, map[string]string{
				"prodready" + exe: stubBinary("prodready", strings.TrimPrefix(tag, "v")),
				"LICENSE":         "Apache License 2.0\n",
				"README.md":       "# prodready\n",
			})
			files[archive] = data
			sum := sha256Hex(data)
			if corrupt && i == 0 {
				sum = sha256Hex(append(data, 0))
			}
			fmt.Fprintf(&sums, "%s  %s\n", sum, archive)
			fmt.Fprintf(&sums, "%s  %s.sbom.json\n", sha256Hex([]byte(archive)), archive)
		}
		files[checksums] = []byte(sums.String())
		srv.files[tag] = files
	}
	addRelease("v1.2.3", false, [2]string{"linux", "amd64"}, [2]string{"windows", "arm64"}, [2]string{runtime.GOOS, runtime.GOARCH})
	addRelease("v1.2.4", true, [2]string{"linux", "amd64"})

	t.Run("installs and runs", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bin")
		// runner.os and runner.arch spellings, as action.yml passes them.
		runnerOS := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
		runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
		if runnerOS == "" || runnerArch == "" {
			t.Skipf("no release platform for %s/%s", runtime.GOOS, runtime.GOARCH)
		}
		r := runInstallScript(t, "--version", "v1.2.3", "--os", runnerOS, "--arch", runnerArch, "--dir", dir, "--base-url", ts.URL)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		bin := filepath.Join(dir, "prodready")
		if strings.TrimSpace(r.stdout) != bin {
			t.Errorf("stdout %q, want the installed path %s", r.stdout, bin)
		}
		out, err := exec.Command(bin, "version").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "prodready 1.2.3" {
			t.Errorf("prodready version: %q, %v", out, err)
		}
		if !strings.Contains(r.stderr, "SHA-256") || !strings.Contains(r.stderr, "matches") {
			t.Errorf("the log does not say the checksum was verified:\n%s", r.stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s holds %v, want the one binary only", dir, entries)
		}
	})

	t.Run("zip for windows", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bin")
		r := runInstallScript(t, "--version", "v1.2.3", "--os", "Windows", "--arch", "ARM64", "--dir", dir, "--base-url", ts.URL)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if got, want := strings.TrimSpace(r.stdout), filepath.Join(dir, "prodready.exe"); got != want {
			t.Errorf("stdout %q, want %s", got, want)
		}
		data, err := os.ReadFile(filepath.Join(dir, "prodready.exe"))
		if err != nil || string(data) != stubBinary("prodready", "1.2.3") {
			t.Errorf("prodready.exe: %q, %v", data, err)
		}
	})

	t.Run("checksum mismatch installs nothing", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bin")
		r := runInstallScript(t, "--version", "v1.2.4", "--os", "linux", "--arch", "amd64", "--dir", dir, "--base-url", ts.URL)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1 (a mismatch must fail, never fall back)\n%s%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "checksum mismatch for prodready_1.2.4_linux_amd64.tar.gz") || !strings.Contains(r.stderr, "nothing installed") {
			t.Errorf("stderr does not name the mismatch:\n%s", r.stderr)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a mismatch (%v)", dir, err)
		}
	})

	t.Run("missing release exits 3", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bin")
		r := runInstallScript(t, "--version", "v9.9.9", "--os", "linux", "--arch", "amd64", "--dir", dir, "--base-url", ts.URL)
		if r.code != 3 {
			t.Fatalf("exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "release v9.9.9 has no prodready_9.9.9_checksums.txt") || !strings.Contains(r.stdout, "404") {
			t.Errorf("stdout (the action's notice) %q does not say what is missing", r.stdout)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists (%v)", dir, err)
		}
	})

	t.Run("platform without an archive exits 3", func(t *testing.T) {
		if runtime.GOOS == "darwin" && runtime.GOARCH == "amd64" {
			t.Skip("the fake release has this host's archive")
		}
		r := runInstallScript(t, "--version", "v1.2.3", "--os", "darwin", "--arch", "amd64", "--dir", t.TempDir(), "--base-url", ts.URL)
		if r.code != 3 || !strings.Contains(r.stdout, "prodready_1.2.3_darwin_amd64.tar.gz") {
			t.Errorf("exit %d, stdout %q; want 3 naming the archive", r.code, r.stdout)
		}
		r = runInstallScript(t, "--version", "v1.2.3", "--os", "Linux", "--arch", "X86", "--dir", t.TempDir(), "--base-url", ts.URL)
		if r.code != 3 || !strings.Contains(r.stdout, "no archive for linux/X86") {
			t.Errorf("X86: exit %d, stdout %q; want 3", r.code, r.stdout)
		}
	})

	t.Run("server error fails", func(t *testing.T) {
		srv.mu.Lock()
		srv.status["/v5.0.0/prodready_5.0.0_checksums.txt"] = http.StatusForbidden
		srv.mu.Unlock()
		r := runInstallScript(t, "--version", "v5.0.0", "--os", "linux", "--arch", "amd64", "--dir", t.TempDir(), "--base-url", ts.URL)
		if r.code != 1 || !strings.Contains(r.stderr, "HTTP 403") {
			t.Errorf("exit %d, stderr %q; want 1 with the status", r.code, r.stderr)
		}
	})

	t.Run("no release refs exit 3 without a request", func(t *testing.T) {
		before := len(srv.requested())
		for _, ref := range []string{"main", "feature/v1.2.3", "0123456789abcdef0123456789abcdef01234567", ""} {
			r := runInstallScript(t, "--version", ref, "--os", "linux", "--arch", "amd64", "--dir", t.TempDir(), "--base-url", ts.URL)
			if r.code != 3 || strings.TrimSpace(r.stdout) == "" {
				t.Errorf("ref %q: exit %d, stdout %q; want 3 with the reason", ref, r.code, r.stdout)
			}
		}
		if after := srv.requested(); len(after) != before {
			t.Errorf("requests for refs with no release: %v", after[before:])
		}
	})

	t.Run("bad usage exits 2", func(t *testing.T) {
		for _, args := range [][]string{
			{"--version", "v1.2.3", "--os", "linux", "--arch", "amd64"},
			{"--version", "v1.2.3", "--os", "plan9", "--arch", "amd64", "--dir", "x"},
			{"--version", "v1.2.3", "--os", "linux", "--arch", "amd64", "--dir", "x", "--repo", "not a repo"},
			{"--bogus"},
		} {
			r := runInstallScript(t, args...)
			if r.code != 2 || !strings.Contains(r.stderr, "usage:") {
				t.Errorf("%v: exit %d, stderr %q; want 2 with the usage", args, r.code, r.stderr)
			}
		}
	})
}

// TestInstallReleaseResolvesTags checks how the script finds the release
// of a major or minor tag (v1, v1.2): the newest vX.Y.Z tag on the same
// commit, by number (v1.10.0 after v1.9.0), never a pre-release, read with
// git ls-remote from a repository here; and how it reads the ref from the
// action's path when GitHub gave none.
func TestInstallReleaseResolvesTags(t *testing.T) {
	needTools(t, "bash", "git")
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "one")
	gitIn(t, repo, "tag", "v1.1.0")
	gitIn(t, repo, "tag", "v2") // a major tag no release shares a commit with
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "two")
	for _, tag := range []string{"v1.2.0", "v1.9.0", "v1.11.0-rc.1", "v1.2"} {
		gitIn(t, repo, "tag", tag)
	}
	gitIn(t, repo, "tag", "-a", "-m", "release", "v1.10.0") // annotated: its commit is on the peeled line
	gitIn(t, repo, "tag", "-a", "-m", "major", "v1")

	for ref, want := range map[string]string{"v1": "v1.10.0", "v1.2": "v1.2.0", "v1.1.0": "v1.1.0", "v1.11.0-rc.1": "v1.11.0-rc.1"} {
		r := runInstallScript(t, "--resolve-only", "--version", ref, "--repo-url", repo)
		if r.code != 0 || strings.TrimSpace(r.stdout) != want {
			t.Errorf("%s: exit %d, stdout %q, want %s\n%s", ref, r.code, r.stdout, want, r.stderr)
		}
	}
	for ref, reason := range map[string]string{"v2": "no release tag v2.* points to the commit of v2", "v3": "v3 is not a tag of"} {
		r := runInstallScript(t, "--resolve-only", "--version", ref, "--repo-url", repo)
		if r.code != 3 || !strings.Contains(r.stdout, reason) {
			t.Errorf("%s: exit %d, stdout %q; want 3 saying %q", ref, r.code, r.stdout, reason)
		}
	}
	if r := runInstallScript(t, "--resolve-only", "--version", "v1", "--repo-url", filepath.Join(repo, "missing")); r.code != 1 || !strings.Contains(r.stderr, "cannot list the tags") {
		t.Errorf("unreachable remote: exit %d, stderr %q; want 1", r.code, r.stderr)
	}

	// The runner's layout: _actions/OWNER/REPO/REF; a branch with a slash
	// stays whole, and a local action has no ref.
	for path, want := range map[string]string{
		"/home/runner/work/_actions/prodready/prodready/v1.4.2": "v1.4.2",
		`D:\a\_actions\prodready\prodready\v1.4.2`:              "v1.4.2",
	} {
		r := runInstallScript(t, "--resolve-only", "--action-path", path)
		if r.code != 0 || strings.TrimSpace(r.stdout) != want {
			t.Errorf("%s: exit %d, stdout %q, want %s", path, r.code, r.stdout, want)
		}
	}
	for _, path := range []string{"/home/runner/work/_actions/prodready/prodready/release/v1.4.2", "/home/runner/work/project/project"} {
		if r := runInstallScript(t, "--resolve-only", "--action-path", path); r.code != 3 {
			t.Errorf("%s: exit %d, stdout %q; want 3", path, r.code, r.stdout)
		}
	}
}

// TestActionReleaseSteps runs action.yml's own step scripts with bash -e,
// as the runner does, against a stand-in for scripts/install-release.sh
// that exits 0, 3 or 1: a release's version and a download reach the step
// outputs the later steps read, exit 3 turns into a ::notice:: and the
// build-from-source output, and any other exit fails the step.
func TestActionReleaseSteps(t *testing.T) {
	needTools(t, "bash")
	a := readActionYAML(t)
	for _, tc := range []struct {
		step, stdout string
		code         int
		wantExit     int
		wantOutput   string
		wantNotice   bool
		wantArgs     []string
	}{
		{step: "release", stdout: "v1.10.0", code: 0, wantOutput: "version=v1.10.0\n", wantArgs: []string{"--resolve-only", "--version", "v1", "--repo", "prodready/prodready"}},
		{step: "release", stdout: "the action's ref main is not a release tag", code: 3, wantOutput: "build=true\n", wantNotice: true},
		{step: "release", code: 1, wantExit: 1},
		{step: "install", stdout: "/tmp/x/prodready", code: 0, wantOutput: "installed=true\n", wantArgs: []string{"--version", "v1.10.0", "--os", "Linux", "--arch", "X64", "--dir"}},
		{step: "install", stdout: "release v1.10.0 has no prodready_1.10.0_linux_amd64.tar.gz (404)", code: 3, wantOutput: "build=true\n", wantNotice: true},
		{step: "install", code: 1, wantExit: 1},
	} {
		t.Run(fmt.Sprintf("%s exit %d", tc.step, tc.code), func(t *testing.T) {
			actionPath := t.TempDir()
			argsFile := filepath.Join(actionPath, "args")
			stub := fmt.Sprintf("#!/usr/bin/env bash\nprintf '%%s\\n' \"$@\" >%q\necho %q\nexit %d\n", argsFile, tc.stdout, tc.code)
			if err := os.MkdirAll(filepath.Join(actionPath, "scripts"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(actionPath, "scripts", "install-release.sh"), []byte(stub), 0o755); err != nil {
				t.Fatal(err)
			}
			code, stdout, output := runActionStep(t, a.step(t, tc.step), map[string]string{
				"github.action_ref":             "v1",
				"github.action_repository":      "prodready/prodready",
				"github.action_path":            actionPath,
				"steps.release.outputs.version": "v1.10.0",
				"runner.temp":                   t.TempDir(),
			})
			if code != tc.wantExit {
				t.Fatalf("step exit %d, want %d\n%s", code, tc.wantExit, stdout)
			}
			if output != tc.wantOutput {
				t.Errorf("GITHUB_OUTPUT %q, want %q", output, tc.wantOutput)
			}
			notice := "::notice title=prodready::" + tc.stdout + ": building prodready from the action's source"
			if strings.Contains(stdout, notice) != tc.wantNotice {
				t.Errorf("stdout %q: notice %q %v, want %v", stdout, notice, !tc.wantNotice, tc.wantNotice)
			}
			if tc.wantArgs != nil {
				args, _ := os.ReadFile(argsFile)
				got := strings.Fields(string(args))
				if len(got) < len(tc.wantArgs) || !slices.Equal(got[:len(tc.wantArgs)], tc.wantArgs) {
					t.Errorf("install-release.sh got %q, want it to start %q", got, tc.wantArgs)
				}
			}
		})
	}

	// The step that names the binary: the release's, or the build's when
	// either step asked for one; it runs the binary.
	for fromSource, dir := range map[string]string{"true": "prodready-source", "false": "prodready-release"} {
		temp := t.TempDir()
		for _, d := range []string{"prodready-source", "prodready-release"} {
			os.MkdirAll(filepath.Join(temp, d), 0o755)
			os.WriteFile(filepath.Join(temp, d, "prodready"), []byte(stubBinary("prodready", d)), 0o755)
		}
		step := a.step(t, "bin")
		code, stdout, output := runActionStep(t, step, map[string]string{
			"runner.temp": temp,
			"steps.release.outputs.build == 'true' || steps.install.outputs.build == 'true'": fromSource,
		})
		if want := "path=" + filepath.Join(temp, dir, "prodready") + "\n"; code != 0 || output != want || !strings.Contains(stdout, "prodready "+dir) {
			t.Errorf("from source %s: exit %d, output %q, stdout %q; want %q", fromSource, code, output, stdout, want)
		}
	}
}

// runActionStep runs a step's run script as the runner does (bash -e -o
// pipefail, the step's env with its expressions replaced from exprs, RUNNER_OS
// Linux, RUNNER_ARCH X64) and returns its exit code, its output, and what it
// wrote to GITHUB_OUTPUT. An expression exprs lacks fails the test.
func runActionStep(t *testing.T, s actionStep, exprs map[string]string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	outputs := filepath.Join(dir, "github_output")
	if err := os.WriteFile(outputs, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GITHUB_OUTPUT="+outputs, "RUNNER_OS=Linux", "RUNNER_ARCH=X64")
	for k, v := range s.Env {
		for {
			i := strings.Index(v, "${{ ")
			if i < 0 {
				break
			}
			j := strings.Index(v[i:], " }}")
			expr := v[i+4 : i+j]
			val, ok := exprs[expr]
			if !ok {
				t.Fatalf("step %s: env %s uses ${{ %s }}, which the test does not give", s.ID, k, expr)
			}
			v = v[:i] + val + v[i+j+3:]
		}
		env = append(env, k+"="+v)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	written, err := os.ReadFile(outputs)
	if err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out), string(written)
}
