package ghaction

import (
	"errors"
	"strings"
	"testing"
)

func TestParseEvent(t *testing.T) {
	const tmpl = `{"pull_request":{"number":3,"draft":true,"head":{"ref":"f","sha":"h1","repo":HEAD},"base":{"ref":"main","sha":"b1","repo":{"name":"r","full_name":"o/r","owner":{"login":"o"}}}},"repository":{"name":"r","full_name":"o/r","owner":{"login":"o"}}}`
	for _, tc := range []struct {
		name, head string
		fork       bool
	}{
		{"same repository", `{"full_name":"o/r"}`, false},
		{"fork", `{"full_name":"someone/r"}`, true},
		{"deleted fork", `null`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := ParseEvent([]byte(strings.Replace(tmpl, "HEAD", tc.head, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if pr.Repo != "o/r" || pr.Number != 3 || pr.BaseSHA != "b1" || pr.HeadSHA != "h1" || !pr.Draft || pr.Fork != tc.fork {
				t.Errorf("pr = %+v, want o/r#3 b1..h1 draft, fork %v", pr, tc.fork)
			}
		})
	}
	if _, err := ParseEvent([]byte(`{"ref":"refs/heads/main"}`)); !errors.Is(err, ErrNoPullRequest) {
		t.Errorf("push event: err = %v, want ErrNoPullRequest", err)
	}
	if _, err := ParseEvent([]byte(`{"pull_request":{"number":3}}`)); err == nil || errors.Is(err, ErrNoPullRequest) {
		t.Errorf("incomplete pull request: err = %v, want a clear error", err)
	}
	if _, err := ParseEvent([]byte(`{`)); err == nil {
		t.Error("broken JSON: no error")
	}
}

func TestUnder(t *testing.T) {
	h := &Host{Paths: []string{"./deploy/", "k8s/app.yaml"}}
	for p, want := range map[string]bool{"deploy/a.yaml": true, "deploy": true, "deployx/a.yaml": false, "k8s/app.yaml": true, "k8s/other.yaml": false} {
		if got := h.Under(p); got != want {
			t.Errorf("Under(%q) = %v, want %v", p, got, want)
		}
	}
	if !(&Host{Paths: []string{"."}}).Under("any/thing.yaml") {
		t.Error(`"." does not cover everything`)
	}
}
