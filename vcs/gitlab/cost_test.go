package gitlab_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegitlab"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/vcs/gitlab"
)

// costManifest renders manifest i of the cost repository: a Deployment
// with image tag tag and a trailing comment line rev.
func costManifest(i int, tag, rev string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%04[1]d
spec:
  replicas: 2
  selector:
    matchLabels: {app: app-%04[1]d}
  template:
    metadata:
      labels: {app: app-%04[1]d}
    spec:
      containers:
        - name: app
          image: registry.example.com/app-%04[1]d:%[2]s
# %[3]s
`, i, tag, rev)
}

// endpointOf names a recorded call without its variable parts.
func endpointOf(c fakegitlab.Call) string {
	parts := strings.Split(strings.Trim(c.Path, "/"), "/")
	vars := map[string]bool{"projects": true, "merge_requests": true, "discussions": true, "notes": true, "statuses": true, "blobs": true}
	for i := 1; i < len(parts); i++ {
		if vars[parts[i-1]] {
			parts[i] = "*"
		}
	}
	if i := len("projects/*/repository/files/"); strings.HasPrefix(strings.Join(parts, "/"), "projects/*/repository/files/") {
		parts = strings.Split(strings.Join(parts, "/")[:i]+"*/raw", "/")
	}
	return c.Method + " /" + strings.Join(parts, "/")
}

// TestReviewCostGitLab reviews merge requests changing 1, 10 and 100 of
// 2,000 manifests, twice each (a first push with an empty cache, then a
// push changing the same files again), and checks from the fake's request
// log that the reads are the same whatever the sizes: the merge request,
// its diffs, the config, the two trees (one keyset page per 100 entries),
// the discussions, and one archive on the cold push; no blob.
func TestReviewCostGitLab(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews a 2,000-file repository six times")
	}
	const files = 2000
	for _, changed := range []int{1, 10, 100} {
		t.Run(fmt.Sprintf("%d-files", changed), func(t *testing.T) {
			fake := fakegitlab.New(e2eToken)
			defer fake.Close()
			fake.AddProject(seqProject, seqPath)
			base, head1, head2 := map[string]string{}, map[string]string{}, map[string]string{}
			for i := range files {
				p := fmt.Sprintf("apps/app-%04d.yaml", i)
				base[p] = costManifest(i, "1.0.0", "rev 1")
				head1[p], head2[p] = base[p], base[p]
				if i%(files/changed) == 0 {
					head1[p] = costManifest(i, "latest", "rev 1")
					head2[p] = costManifest(i, "latest", "rev 2")
				}
			}
			cfg := testconfig.OnlyRules("image-tag-mutable", "cpu-requests-missing")
			base[".prodready.yaml"], head1[".prodready.yaml"], head2[".prodready.yaml"] = cfg, cfg, cfg
			b := fake.Commit(seqProject, base)
			host, err := gitlab.NewHost(gitlab.Options{BaseURL: fake.URL, Token: e2eToken, RetryWait: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			rv := bot.NewReviewer(bot.NewLRUCache(256<<20), nil)
			var before int
			for push, head := range []map[string]string{head1, head2} {
				h := fake.Commit(seqProject, head)
				fake.Push(seqProject, 1, b, h, 0)
				before = len(fake.Calls())
				pr := bot.PullRequest{Host: "gitlab", Repo: seqPath, RepoID: seqProject, Number: 1, HeadSHA: h, BaseRef: "main"}
				if err := rv.Review(context.Background(), host, pr); err != nil {
					t.Fatal(err)
				}
				tally := map[string]int{}
				reads, writes := 0, 0
				for _, c := range fake.Calls()[before:] {
					tally[endpointOf(c)]++
					if c.Method == "GET" {
						reads++
					} else {
						writes++
					}
				}
				var lines []string
				for k, v := range tally {
					lines = append(lines, fmt.Sprintf("%s: %d", k, v))
				}
				sort.Strings(lines)
				all := strings.Join(lines, "\n")
				archives := 0
				if push == 0 {
					archives = 1
				}
				pages := (files + 1 + 99) / 100 // the tree's entries: files, the config, apps/
				trees := 2 * pages              // the base's and the head's
				if push > 0 {
					trees = pages // the base's is kept from the first push
				}
				want := map[string]int{
					"GET /projects/*/repository/archive.tar.gz":    archives,
					"GET /projects/*/repository/tree":              trees,
					"GET /projects/*/merge_requests/*/diffs":       (changed + 99) / 100,
					"GET /projects/*/repository/blobs/*/raw":       0,
					"GET /projects/*/repository/files/*/raw":       1,
					"GET /projects/*/merge_requests/*/discussions": 1,
				}
				for k, n := range want {
					if tally[k] != n {
						t.Errorf("push %d: %s: %d calls, want %d\n%s", push+1, k, tally[k], n, all)
					}
				}
				t.Logf("push %d (%d files changed): %d reads, %d writes:\n%s", push+1, changed, reads, writes, all)
			}
		})
	}
}
