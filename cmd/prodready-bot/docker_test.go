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

// TestDockerfileBuild builds the binary exactly as the Dockerfile's RUN
// line does (read from the Dockerfile) and checks what the image relies
// on: the stamped version, and a static binary (no ELF interpreter, no
// dynamic section), since distroless/static has no libc.
func TestDockerfileBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	df, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(df), "\\\n", " ")
	m := regexp.MustCompile(`(?m)^RUN (CGO_ENABLED=0 go build .*)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("Dockerfile has no `RUN CGO_ENABLED=0 go build` line")
	}
	line := strings.Join(strings.Fields(m[1]), " ")
	const want = `CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/prodready-bot ./cmd/prodready-bot`
	if line != want {
		t.Fatalf("Dockerfile builds with\n  %s\nthis test builds with\n  %s\nkeep them the same", line, want)
	}
	for _, must := range []string{"USER 65532:65532", `ENTRYPOINT ["/usr/local/bin/prodready-bot"]`, "FROM gcr.io/distroless/static"} {
		if !strings.Contains(string(df), must) {
			t.Errorf("Dockerfile lacks %q", must)
		}
	}
	bin := filepath.Join(t.TempDir(), "prodready-bot")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=test", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "prodready test" {
		t.Errorf("prodready-bot version = %q (%v), want the stamped \"prodready test\"", out, err)
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
