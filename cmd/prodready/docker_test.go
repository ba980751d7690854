package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestDockerfileBuild checks that the Dockerfile builds the binary as
// `make build` does (the same flags, read from both files) with the release
// toolchain, and what the image relies on: a non-root distroless base.
// Then, on the binary in bin/ (`make build`'s, or the release snapshot's,
// which .ci/run puts there before the tests; building it here would compile
// every package once more, with -trimpath and without cgo, minutes on a
// cold cache), the stamped version
// and a static binary (no ELF interpreter, no dynamic section), since
// distroless/static has no libc.
func TestDockerfileBuild(t *testing.T) {
	df, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(df), "\\\n", " ")
	m := regexp.MustCompile(`(?m)^RUN GOTOOLCHAIN=\$\(cat \.release-toolchain\) (CGO_ENABLED=0 go build .*)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("Dockerfile has no `RUN GOTOOLCHAIN=$(cat .release-toolchain) CGO_ENABLED=0 go build` line")
	}
	docker := strings.Join(strings.Fields(m[1]), " ")
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	mm := regexp.MustCompile(`(?m)^\t(CGO_ENABLED=0 \$\(GO\) build .*-o \$\(BIN\) ./cmd/prodready)$`).FindStringSubmatch(string(mk))
	if mm == nil {
		t.Fatal("Makefile's build target has no prodready line")
	}
	make := strings.NewReplacer("$(GO)", "go", "'$(LDFLAGS)'", `"-s -w -X main.version=${VERSION}"`, "$(BIN)", "/out/prodready").Replace(mm[1])
	if docker != make {
		t.Errorf("Dockerfile builds with\n  %s\nmake build with\n  %s\nkeep them the same", docker, make)
	}
	for _, must := range []string{"USER 65532:65532", `ENTRYPOINT ["/usr/local/bin/prodready"]`, "FROM gcr.io/distroless/static", "COPY go.mod go.sum .release-toolchain ./"} {
		if !strings.Contains(string(df), must) {
			t.Errorf("Dockerfile lacks %q", must)
		}
	}
	if runtimeBase(t, string(df)) == "" {
		t.Error("Dockerfile's runtime base is not pinned by digest")
	}
	bin := filepath.Join("..", "..", "bin", "prodready")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("bin/prodready not built: `make build` first checks the built binary too (static, version stamped)")
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if v := strings.TrimSpace(string(out)); err != nil || !strings.HasPrefix(v, "prodready ") || v == "prodready dev" {
		t.Errorf("bin/prodready version = %q (%v), want a version make build stamped", out, err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("binary has a %v program header: it is not static", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("binary links %v", libs)
	}
}

// baseRe is a FROM line of distroless static pinned by an index digest.
var baseRe = regexp.MustCompile(`(?m)^FROM (gcr\.io/distroless/static-debian12:nonroot@sha256:[0-9a-f]{64})\s*$`)

// runtimeBase returns the Dockerfile's digest-pinned distroless FROM, or
// "" when it has none.
func runtimeBase(t *testing.T, df string) string {
	t.Helper()
	m := baseRe.FindAllStringSubmatch(df, -1)
	if len(m) != 1 {
		return ""
	}
	return m[0][1]
}

// TestDockerfileRelease keeps the release image (Dockerfile.release, built
// by GoReleaser from the released binaries) the same as the Dockerfile's:
// the same digest-pinned distroless base, non-root 65532, the binary at
// /usr/local/bin with serve as its default command and port 8080; and it
// copies the binary GoReleaser lays out per platform, compiling nothing
// (no RUN: buildx makes the arm64 image without emulation).
func TestDockerfileRelease(t *testing.T) {
	df, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := os.ReadFile("../../Dockerfile.release")
	if err != nil {
		t.Fatal(err)
	}
	base, relBase := runtimeBase(t, string(df)), runtimeBase(t, string(rel))
	if relBase == "" || relBase != base {
		t.Errorf("Dockerfile.release's base %q, the Dockerfile's %q: want the same, pinned by digest", relBase, base)
	}
	// The runtime lines, from the distroless FROM on, must match but for
	// how the binary gets there.
	tail := func(text string) []string {
		var out []string
		on := false
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "FROM gcr.io/distroless/") {
				on = true
			}
			if on && line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "COPY ") && !strings.HasPrefix(line, "ARG ") {
				out = append(out, line)
			}
		}
		return out
	}
	if a, b := tail(string(df)), tail(string(rel)); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("runtime of the Dockerfile:\n%s\nof Dockerfile.release:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	for _, must := range []string{"USER 65532:65532", `ENTRYPOINT ["/usr/local/bin/prodready"]`, `CMD ["serve"]`, "EXPOSE 8080", "COPY ${TARGETPLATFORM}/prodready /usr/local/bin/prodready"} {
		if !strings.Contains(string(rel), must+"\n") {
			t.Errorf("Dockerfile.release lacks %q", must)
		}
	}
	if regexp.MustCompile(`(?m)^RUN `).Match(rel) || strings.Count(string(rel), "\nFROM ") != 1 {
		t.Error("Dockerfile.release builds: it must only copy the released binary onto the one base")
	}
}
