package github_test

import (
	"context"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/internal/fakegithub"
	ghv "github.com/prodready/prodready/vcs/github"
)

func identifiers(t *testing.T, st *fixStack, pr bot.PullRequest, fs []checks.Finding) []string {
	t.Helper()
	h, err := st.app.Host(fixInst)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range h.(*ghv.Host).FixActions(context.Background(), pr, fs) {
		if len(a.Label) > 20 || len(a.Description) > 40 || len(a.Identifier) > 20 {
			t.Errorf("action %+v is over GitHub's bounds", a)
		}
		out = append(out, a.Identifier)
	}
	return out
}

func TestFixActionsOffered(t *testing.T) {
	op := []edit.Op{{Action: edit.Set, Path: []string{"spec", "replicas"}, Value: "3"}}
	exact := checks.Finding{RuleID: "a", Fix: &checks.Fix{Kind: checks.Exact, Edits: op}}
	starting := checks.Finding{RuleID: "b", Fix: &checks.Fix{Kind: checks.StartingPoint, Edits: op}}
	described := checks.Finding{RuleID: "c", Fix: &checks.Fix{Kind: checks.Exact, Description: "by hand"}}
	pr := bot.PullRequest{Host: "github", Repo: "o/r", Number: 1}
	st := newFixStack(t, false)
	cases := []struct {
		name string
		fs   []checks.Finding
		fork bool
		want []string
	}{
		{"exact and starting points", []checks.Finding{exact, starting}, false, []string{ghv.ActionApplyFixes, ghv.ActionApplyAllFixes}},
		{"exact only", []checks.Finding{exact}, false, []string{ghv.ActionApplyFixes}},
		{"starting points only", []checks.Finding{starting}, false, []string{ghv.ActionApplyAllFixes}},
		{"nothing fixable", []checks.Finding{described}, false, nil},
		{"fork", []checks.Finding{exact, starting}, true, []string{ghv.ActionPatchFixes, ghv.ActionPatchAllFixes}},
	}
	for _, c := range cases {
		p := pr
		p.Fork = c.fork
		if got := identifiers(t, st, p, c.fs); !equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if n := st.fake.Count(fakegithub.RouteInstallation); n != 1 {
		t.Errorf("the permissions were read %d times, want once (kept five minutes)", n)
	}
}

func TestFixActionsNeedContentsWrite(t *testing.T) {
	st := newFixStack(t, false)
	st.fake.SetPermissions(fixInst, fakegithub.DefaultPermissions)
	op := []edit.Op{{Action: edit.Set, Path: []string{"spec", "replicas"}, Value: "3"}}
	fs := []checks.Finding{{RuleID: "a", Fix: &checks.Fix{Kind: checks.Exact, Edits: op}}}
	if got := identifiers(t, st, bot.PullRequest{Host: "github", Repo: "o/r", Number: 1}, fs); len(got) != 0 {
		t.Errorf("offered %v without Contents: write", got)
	}
	// A fork's patch needs no write.
	if got := identifiers(t, st, bot.PullRequest{Host: "github", Repo: "o/r", Number: 1, Fork: true}, fs); len(got) != 1 {
		t.Errorf("fork: %v", got)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
