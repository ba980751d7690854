package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	ghv "github.com/prodready/prodready/vcs/github"
)

// manifestFields are the keys GitHub documents for a GitHub App manifest
// ("Registering a GitHub App from a manifest"); url and hook_attributes.url
// are required.
var manifestFields = []string{"name", "url", "hook_attributes", "redirect_url", "callback_urls", "setup_url", "description", "public", "default_events", "default_permissions", "request_oauth_on_install", "setup_on_update"}

// TestGitHubAppManifest holds docs/github-app-manifest.json to GitHub's
// manifest format and to the server: only documented keys, the webhook at
// the path serve handles, the permissions docs/github-app.md lists, and
// exactly the events the GitHub intake decodes into a review (an event it
// handles fails to decode a broken body; one it ignores does not look).
func TestGitHubAppManifest(t *testing.T) {
	data, err := os.ReadFile("../../docs/github-app-manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for k := range raw {
		if !slices.Contains(manifestFields, k) {
			t.Errorf("key %q is not a GitHub App manifest field", k)
		}
	}
	var m struct {
		Name           string `json:"name"`
		URL            string `json:"url"`
		RedirectURL    string `json:"redirect_url"`
		Public         *bool  `json:"public"`
		HookAttributes struct {
			URL    string `json:"url"`
			Active bool   `json:"active"`
		} `json:"hook_attributes"`
		DefaultPermissions map[string]string `json:"default_permissions"`
		DefaultEvents      []string          `json:"default_events"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name == "" || m.URL == "" || m.RedirectURL == "" {
		t.Errorf("name %q, url %q, redirect_url %q: all needed", m.Name, m.URL, m.RedirectURL)
	}
	hook, err := url.Parse(m.HookAttributes.URL)
	if err != nil || hook.Scheme != "https" || hook.Path != "/webhooks/github" || !m.HookAttributes.Active {
		t.Errorf("hook_attributes %+v: want an active https webhook on /webhooks/github", m.HookAttributes)
	}
	wantPerms := map[string]string{"contents": "read", "pull_requests": "write", "checks": "write", "metadata": "read"}
	if !mapsEqual(m.DefaultPermissions, wantPerms) {
		t.Errorf("default_permissions %v, want %v (docs/github-app.md)", m.DefaultPermissions, wantPerms)
	}

	// Every event the app could be sent: those the intake names.
	var handled []string
	for _, event := range []string{"pull_request", "check_suite", "check_run", "installation", "installation_repositories", "installation_target", "ping", "push", "pull_request_review", "pull_request_review_comment", "pull_request_review_thread", "issues", "issue_comment", "create", "delete", "release", "status", "workflow_run", "workflow_job", "github_app_authorization"} {
		if _, _, err := ghv.Decode(event, []byte("{")); errors.Is(err, bot.ErrBadDelivery) {
			handled = append(handled, event)
		}
	}
	sort.Strings(handled)
	events := slices.Clone(m.DefaultEvents)
	sort.Strings(events)
	if len(handled) == 0 || !slices.Equal(events, handled) {
		t.Errorf("default_events %v, want the events serve reviews on: %v", m.DefaultEvents, handled)
	}

	doc, err := os.ReadFile("../../docs/github-app.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "(github-app-manifest.json)") || !strings.Contains(string(doc), "/app-manifests/CODE/conversions") {
		t.Error("docs/github-app.md does not link the manifest or say how to exchange the code")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestMetricsDocumented: every metric bot/metrics.go registers has a row in
// docs/metrics.md, and the page names no metric that does not exist.
func TestMetricsDocumented(t *testing.T) {
	src, err := os.ReadFile("../../bot/metrics.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`prodready_[a-z_]+[a-z]`)
	registered := map[string]bool{}
	for _, m := range regexp.MustCompile(`"(prodready_[a-z_]+)"`).FindAllSubmatch(src, -1) {
		registered[string(m[1])] = true
	}
	if len(registered) < 5 {
		t.Fatalf("found %d metrics in bot/metrics.go: the pattern is stale", len(registered))
	}
	for m := range registered {
		if !bytes.Contains(doc, []byte("| `"+m+"` |")) {
			t.Errorf("%s has no row in docs/metrics.md", m)
		}
	}
	for _, m := range name.FindAll(doc, -1) {
		if !registered[string(m)] {
			t.Errorf("docs/metrics.md names %s, which bot/metrics.go does not register", m)
		}
	}
}
