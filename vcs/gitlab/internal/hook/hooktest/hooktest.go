// Package hooktest holds what GitLab's two webhook fuzz targets share (the
// decoding's, in package hook, and the whole handler's, in vcs/gitlab):
// the deliveries they start from and the token each fuzzed mode sends.
package hooktest

import (
	"os"
	"path/filepath"
	"testing"
)

// AddSeeds adds to f the deliveries to start fuzzing from, in every mode
// that reads them, and two hand-made ones: fixtures/gitlab (ours) and
// ../shared/payloads/gitlab when present (third-party: read at fuzz time,
// never copied). root is the repository's root, relative to the test's
// folder.
func AddSeeds(f *testing.F, root string) {
	paths, _ := filepath.Glob(filepath.Join(root, "fixtures", "gitlab", "*.json"))
	shared, _ := filepath.Glob(filepath.Join(root, "..", "shared", "payloads", "gitlab", "*.json"))
	if len(shared) == 0 {
		f.Log("../shared/payloads/gitlab absent: fuzzing from fixtures/gitlab only")
	}
	for _, p := range append(paths, shared...) {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, ev := range []string{"Merge Request Hook", "System Hook"} {
			f.Add(ev, data, uint8(0))
		}
		f.Add("Merge Request Hook", data, uint8(1))
		f.Add("Merge Request Hook", data, uint8(2))
	}
	f.Add("Merge Request Hook", []byte(`{"object_kind":"merge_request","project":{"id":1},"object_attributes":{"iid":1,"action":"open","last_commit":{"id":"x"}}}`), uint8(0))
	f.Add("Push Hook", []byte(`{}`), uint8(3))
}

// Token returns the X-Gitlab-Token a fuzzed delivery sends, by mode%4: 0
// the secret, 1 another token, 2 the secret truncated to mode/4 characters
// (modulo its length), 3 none.
func Token(secret string, mode uint8) string {
	switch mode % 4 {
	case 1:
		return "not-the-token"
	case 2:
		return secret[:int(mode/4)%len(secret)]
	case 3:
		return ""
	}
	return secret
}
