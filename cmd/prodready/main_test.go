package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCLILinksNoHostClients keeps the GitHub and GitLab API clients, the
// webhook server and the Action out of the CLI binary: they belong to
// cmd/prodready-bot (see package cli for why).
func TestCLILinksNoHostClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, dep := range deps {
		for _, banned := range []string{
			"github.com/google/go-github/",
			"gitlab.com/gitlab-org/api/client-go",
			"github.com/bradleyfalzon/ghinstallation",
			"github.com/prodready/prodready/vcs/github",
			"github.com/prodready/prodready/vcs/gitlab",
			"github.com/prodready/prodready/vcs/ghaction",
		} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the CLI links %s", dep)
			}
		}
	}
}
