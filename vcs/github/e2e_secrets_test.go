package github_test

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	ghv "github.com/prodready/prodready/vcs/github"
)

// credentialManifest has an env var and ConfigMap keys holding
// credential-looking values that no output of the bot may repeat.
const credentialManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: example/api:latest
          env:
            - name: DB_PASSWORD
              value: hunter2-sekrit
            - name: API_TOKEN
              value: tok-9f8e7d6c5b4a
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: aws
data:
  AWS_ACCESS_KEY_ID: AKIAZ3SEKRITKEY12345
  aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYSEKRITKEY
`

// TestSecretsNeverLeave runs a whole review through the real server and
// the fake GitHub with a known webhook secret, private key and installation
// token, on a manifest full of credentials, with the real fixes. It
// captures every log line (debug level included), every answer of the
// server and every request body sent to GitHub (review body and comments,
// check-run summary and annotations) and asserts none of the secrets
// appears in any of them.
func TestSecretsNeverLeave(t *testing.T) {
	logs := &lockedLog{}
	var (
		mu     sync.Mutex
		tokens []string
	)
	tokenRE := regexp.MustCompile(`"token":"([^"]+)"`)
	// Note the installation tokens GitHub issues, as they pass the proxy.
	seeTokens := func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.URL.Path, "/access_tokens") {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		mu.Lock()
		for _, m := range tokenRE.FindAllSubmatch(b, -1) {
			tokens = append(tokens, string(m[1]))
		}
		mu.Unlock()
		return nil
	}
	p := newProxied(t, seeTokens, logs, nil) // nil: the real suggestions of package fix
	p.fake.AddCommit("acme", "deploys", synthBase, map[string]string{"README.md": "x\n"})
	p.fake.AddCommit("acme", "deploys", synthHead, map[string]string{"README.md": "x\n", "deploy/api.yaml": credentialManifest})
	p.fake.SetPR("acme", "deploys", 7, synthBase, synthHead)

	body := syntheticOpened(t)
	req, _ := http.NewRequest(http.MethodPost, p.srv.URL+"/webhooks/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", "sec-1")
	req.Header.Set("X-Hub-Signature-256", ghv.Sign([]byte(testSecret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("review: %v", err)
	}
	// The review happened and talked about the credentials.
	runs := p.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Conclusion != "failure" || !strings.Contains(runs[0].Summary, "sensitive-env-literal") || len(p.fake.Reviews("acme", "deploys")) != 1 {
		t.Fatalf("review did not report the credentials: runs %+v", runs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tokens) == 0 {
		t.Fatal("no installation token was issued: the test proves nothing")
	}

	var out strings.Builder
	out.WriteString(logs.String())
	out.Write(answer)
	for _, c := range p.fake.Calls() {
		if strings.HasSuffix(c.Path, "/access_tokens") {
			continue
		}
		out.WriteString(c.Method + " " + c.Path + "\n")
		out.Write(c.Body)
	}
	for _, r := range runs {
		out.WriteString(r.Title + r.Summary)
		for _, a := range r.Annotations {
			out.WriteString(a.Title + a.Message + a.RawDetails)
		}
	}
	for _, rv := range p.fake.Reviews("acme", "deploys") {
		out.WriteString(rv.Body)
		for _, c := range rv.Comments {
			out.WriteString(c.Body)
		}
	}
	all := out.String()
	keyPEM, _ := testKey(t)
	secrets := map[string]string{
		"webhook secret": testSecret,
		"signature":      strings.TrimPrefix(ghv.Sign([]byte(testSecret), body), "sha256="),
		"DB password":    "hunter2-sekrit",
		"API token":      "tok-9f8e7d6c5b4a",
		"AWS key id":     "AKIAZ3SEKRITKEY12345",
		"AWS secret":     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSEKRITKEY",
	}
	for i, tok := range tokens {
		secrets["installation token "+string(rune('0'+i))] = tok
	}
	for i, line := range strings.Split(string(keyPEM), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			secrets["private key line "+itoa(i)] = line
		}
	}
	for what, s := range secrets {
		if i := strings.Index(all, s); i >= 0 {
			t.Errorf("the %s appears in the output: …%s…", what, all[max(0, i-80):min(len(all), i+len(s)+20)])
		}
	}
}
