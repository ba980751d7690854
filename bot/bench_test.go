package bot

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func BenchmarkParsePatch(b *testing.B) {
	var p strings.Builder
	for h := 0; h < 200; h++ {
		fmt.Fprintf(&p, "@@ -%d,7 +%d,8 @@\n a\n b\n c\n-d\n+D\n+E\n e\n f\n g\n", h*20+1, h*20+1)
	}
	patch := p.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePatch(patch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepare reviews a pull request changing one file of a
// repository of 200 manifests.
func BenchmarkPrepare(b *testing.B) {
	files := map[string]string{}
	for i := 0; i < 200; i++ {
		files[fmt.Sprintf("deploy/app%03d.yaml", i)] = strings.Replace(badProbe, "name: web\nspec", fmt.Sprintf("name: web%d\nspec", i), 1)
	}
	h := &memHost{
		refs:    map[string]map[string]string{"head": files},
		changed: []ChangedFile{{Path: "deploy/app000.yaml", Status: "modified", Patch: "@@ -17,1 +17,1 @@\n-              port: 1\n+              port: metrics\n"}},
	}
	rv := NewReviewer(nil, nil)
	rv.Suggest = portSuggest
	pr := PullRequest{BaseSHA: "base", HeadSHA: "head"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rv.Prepare(context.Background(), h, pr, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareBase measures what checking the base costs on top of the
// head: a repository of 200 manifests, one changed, reviewed with a warm
// parse cache (as every push after a pull request's first), with the base
// (base) and without (head-only: no base commit, nothing compared).
func BenchmarkPrepareBase(b *testing.B) {
	head, base := map[string]string{}, map[string]string{}
	for i := 0; i < 200; i++ {
		d := strings.Replace(badProbe, "name: web\nspec", fmt.Sprintf("name: web%d\nspec", i), 1)
		p := fmt.Sprintf("deploy/app%03d.yaml", i)
		head[p], base[p] = d, d
	}
	base["deploy/app000.yaml"] = strings.Replace(head["deploy/app000.yaml"], "port: metrics", "port: 8080", 1)
	for _, tc := range []struct {
		name string
		pr   PullRequest
	}{{"head-only", PullRequest{BaseRef: "base", HeadSHA: "head"}}, {"base", PullRequest{BaseSHA: "base", HeadSHA: "head"}}} {
		b.Run(tc.name, func(b *testing.B) {
			h := &memHost{
				refs:     map[string]map[string]string{"head": head, "base": base},
				changed:  []ChangedFile{{Path: "deploy/app000.yaml", Status: "modified", Patch: "@@ -17,1 +17,1 @@\n-              port: 8080\n+              port: metrics\n"}},
				blobSHAs: true,
			}
			rv := NewReviewer(NewLRUCache(64<<20), nil)
			if _, err := rv.Prepare(context.Background(), h, tc.pr, nil); err != nil { // warms the cache
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rv.Prepare(context.Background(), h, tc.pr, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
