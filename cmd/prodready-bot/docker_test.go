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
// Then, on the binary `make build` left in bin/ (.ci/run builds it before
// the tests; building it here would compile every package once more, with
// -trimpath and without cgo, minutes on a cold cache), the stamped version
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
	mm := regexp.MustCompile(`(?m)^\t(CGO_ENABLED=0 \$\(GO\) build .*-o \$\(BOTBIN\) ./cmd/prodready-bot)$`).FindStringSubmatch(string(mk))
	if mm == nil {
		t.Fatal("Makefile's build target has no prodready-bot line")
	}
	make := strings.NewReplacer("$(GO)", "go", "'$(LDFLAGS)'", `"-s -w -X main.version=${VERSION}"`, "$(BOTBIN)", "/out/prodready-bot").Replace(mm[1])
	if docker != make {
		t.Errorf("Dockerfile builds with\n  %s\nmake build with\n  %s\nkeep them the same", docker, make)
	}
	for _, must := range []string{"USER 65532:65532", `ENTRYPOINT ["/usr/local/bin/prodready-bot"]`, "FROM gcr.io/distroless/static", "COPY go.mod go.sum .release-toolchain ./"} {
		if !strings.Contains(string(df), must) {
			t.Errorf("Dockerfile lacks %q", must)
		}
	}
	bin := filepath.Join("..", "..", "bin", "prodready-bot")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("bin/prodready-bot not built: `make build` first checks the built binary too (static, version stamped)")
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if v := strings.TrimSpace(string(out)); err != nil || !strings.HasPrefix(v, "prodready ") || v == "prodready dev" {
		t.Errorf("bin/prodready-bot version = %q (%v), want a version make build stamped", out, err)
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
