package rendered_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
)

// viaJSON is res as the worker protocol carried it before it had its own
// framing: encoding/json both ways. The protocol must give the same.
func viaJSON(t testing.TB, res rendered.Result) rendered.Result {
	t.Helper()
	for _, r := range res.Renders {
		r.MakeMaps()
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out rendered.Result
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func viaWire(t testing.TB, res rendered.Result) rendered.Result {
	t.Helper()
	var buf bytes.Buffer
	if err := rendered.WriteResult(&buf, res); err != nil {
		t.Fatal(err)
	}
	out, err := rendered.ReadResult(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameResult(t *testing.T, want, got rendered.Result) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("the protocol changes the result: %s", cmp.Diff(want, got))
	}
}

func TestResultRoundTrip(t *testing.T) {
	stream := []byte("---\n# Source: web/templates/a.yaml\nkind: A\n---\n# Source: web/templates/b.yaml\nkind: B\n")
	res := rendered.Result{
		Renders: []*rendered.Render{{
			Kind: rendered.Helm, Root: "web", ValuesFiles: []string{"web/values-prod.yaml"}, Stream: stream,
			Documents: []rendered.Document{
				{Source: "web/templates/a.yaml", Line: 3, YAML: []byte("kind: A\n"), Kind: "A", Name: "a"},
				{Source: "web/templates/b.yaml", Line: 6, YAML: []byte("kind: B\n"), Kind: "B", Namespace: "ns"},
				{Source: "elsewhere", YAML: []byte("kind: \xff not in the stream\n")},
				{Source: "none"},
			},
			Inputs:   []string{"web/Chart.yaml", "web/templates/a.yaml"},
			Skipped:  []rendered.Skipped{{File: "web/templates/NOTES.txt", Reason: "notes"}, {File: "web/templates/pdb.yaml", Reason: "nothing", Writes: []string{"PodDisruptionBudget"}, Guard: "{{- if .Values.pdb }}"}},
			Unmapped: []rendered.Skipped{{File: "web/templates/b.yaml", Reason: "lost"}},
			Problems: []rendered.Problem{{File: "web/Chart.yaml", Line: 2, Column: 5, Message: "m"}, {File: "web/values.yaml", Line: 3, Message: "refused", Values: true}, {Message: "no dep", Missing: true}},
			Maps: []rendered.DocMap{
				{"": {{File: "web/templates/a.yaml", Line: 1, Kind: rendered.Template}},
					"kind":                   {{File: "web/values.yaml", Line: 4, Column: 3, Kind: rendered.Values}, {File: "web/templates/a.yaml", Line: 2, Column: 11, Kind: rendered.Template, Inherited: true}},
					"metadata.labels[\"é\"]": {{File: "web/templates/a.yaml", Line: 5, Kind: rendered.Template}},
					"metadata.labels[\"è\"]": nil,
					"spec":                   {}},
				{},
				nil,
				{"a": {{File: "web/templates/a.yaml"}}},
			},
		}, {
			Kind: rendered.Kustomize, Root: "overlays/prod/kustomization.yaml", Stream: []byte{},
			Documents: []rendered.Document{}, Maps: []rendered.DocMap{},
			Unmatched: []rendered.Unmatched{{RuleID: "kustomize-replacement-unmatched", Kustomization: "base/kustomization.yaml",
				Problem: rendered.Problem{File: "base/r.yaml", Line: 4, Message: "selects nothing"}}},
			Unjudged: []rendered.Skipped{{File: "components/x/kustomization.yaml", Reason: "a component"}},
		}, {
			Kind: rendered.Helm, Root: "broken", Problems: []rendered.Problem{{Message: "failed"}},
		}},
		Problems:    []rendered.Problem{{Message: "render cap"}},
		NotRendered: []rendered.Skipped{{File: "x/Chart.yaml", Reason: "cap"}},
	}
	sameResult(t, viaJSON(t, res), viaWire(t, res))
	sameResult(t, viaJSON(t, rendered.Result{}), viaWire(t, rendered.Result{}))
}

func TestServe(t *testing.T) {
	files := rendered.Files{"web/Chart.yaml": []byte("name: web\n"), "web/empty": {}, "web/nil": nil, "web/bin.tgz": {0, 0xff, '\n', 0}}
	opts := rendered.Options{KubeVersion: "1.33", ExtraValues: map[string][][]string{"web": {{"web/v.yaml"}}}, ValuesYAMLOnly: true}
	var req bytes.Buffer
	if err := rendered.WriteRequest(&req, rendered.Request{Files: files, Options: opts}); err != nil {
		t.Fatal(err)
	}
	want := rendered.Result{Renders: []*rendered.Render{{Kind: rendered.Helm, Root: "web", Stream: []byte("---\nkind: A\n")}, {Kind: rendered.Kustomize, Root: "k/kustomization.yaml"}},
		Problems: []rendered.Problem{{Message: "render cap"}}}
	var out bytes.Buffer
	err := rendered.Serve(&req, &out, func(_ context.Context, got rendered.Files, gotOpts rendered.Options, emit func(*rendered.Render)) rendered.Result {
		if !reflect.DeepEqual(got, files) {
			t.Errorf("files: %s", cmp.Diff(files, got))
		}
		if !reflect.DeepEqual(gotOpts, opts) {
			t.Errorf("options: %s", cmp.Diff(opts, gotOpts))
		}
		for _, r := range want.Renders {
			emit(r)
		}
		return rendered.Result{Problems: want.Problems}
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rendered.ReadResult(&out)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, viaJSON(t, want), got)
}

func TestReadResultRefusesTruncated(t *testing.T) {
	var buf bytes.Buffer
	res := rendered.Result{Renders: []*rendered.Render{{Kind: rendered.Helm, Root: "web", Stream: []byte("---\nkind: A\n")}}}
	if err := rendered.WriteResult(&buf, res); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for _, n := range []int{0, 10, len(data) - 1} {
		if _, err := rendered.ReadResult(bytes.NewReader(data[:n])); err == nil {
			t.Errorf("a result cut to %d of %d bytes reads without an error", n, len(data))
		}
	}
	if _, err := rendered.ReadRequest(io.LimitReader(bytes.NewReader([]byte(`{"files":[{"path":"a","size":5}]}`+"\nab")), 100)); err == nil {
		t.Error("a request short of its files reads without an error")
	}
}

func TestNeeded(t *testing.T) {
	files := rendered.Files{
		"README.md":                         []byte("x"),
		"plain/deploy.yaml":                 []byte("kind: Deployment\n"),
		"common/shared.yaml":                []byte("kind: ConfigMap\n"),
		"common/props.env":                  []byte("A=1\n"),
		"common/unused.yaml":                []byte("kind: Secret\n"),
		"charts/web/Chart.yaml":             []byte("name: web\n"),
		"charts/web/templates/a.yaml":       []byte("kind: A\n"),
		"charts/web/charts/db/Chart.yaml":   []byte("name: db\n"),
		"overlays/prod/kustomization.yaml":  []byte("resources: [../../common/shared.yaml, ../base, ../../nokust]\nconfigMapGenerator:\n- name: c\n  envs: [../../common/props.env]\n  files: [k=../../README.md]\n"),
		"nokust/a.yaml":                     []byte("kind: A\n"),
		"nokust/b.yaml":                     []byte("kind: B\n"),
		"overlays/prod/patch.yaml":          []byte("kind: Deployment\n"),
		"base/kustomization.yaml":           []byte("resources: [deploy.yaml]\n"),
		"base/deploy.yaml":                  []byte("kind: Deployment\n"),
		"values/prod.yaml":                  []byte("replicas: 3\n"),
		"values/other.yaml":                 []byte("replicas: 1\n"),
		"charts/web/templates/_helpers.tpl": []byte(""),
	}
	got := rendered.Needed(files, rendered.Options{ExtraValues: map[string][][]string{"charts/web": {{"values/prod.yaml"}}}})
	var kept []string
	for p := range got {
		kept = append(kept, p)
	}
	var dropped []string
	for p := range files {
		if _, ok := got[p]; !ok {
			dropped = append(dropped, p)
		}
	}
	// Of a folder the overlay names that holds no kustomization, one file:
	// enough for the render to say what the folder is.
	want := []string{"common/unused.yaml", "nokust/b.yaml", "plain/deploy.yaml", "values/other.yaml"}
	if diff := cmp.Diff(want, sortedStrings(dropped)); diff != "" {
		t.Errorf("dropped (-want +got):\n%s\nkept: %v", diff, sortedStrings(kept))
	}
	withRoot := rendered.Files{"kustomization.yaml": []byte("resources: [a.yaml]\n"), "a.yaml": nil, "b/c.yaml": nil}
	if got := rendered.Needed(withRoot, rendered.Options{}); len(got) != len(withRoot) {
		t.Errorf("a kustomization at the root keeps %d of %d files", len(got), len(withRoot))
	}
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// TestWorkerProtocolOnCorpus renders the shared corpus's charts and
// overlays as Prepare asks a worker to: sending it only the Needed files,
// and reading its answer through the protocol, gives what rendering every
// file and carrying the answer as JSON gave; so does a worker per render
// (render.Isolated), each sent the files its render reads.
func TestWorkerProtocolOnCorpus(t *testing.T) {
	for _, sub := range []string{"helm-charts", "kustomize-examples", "realworld", "charts-more/bitnami"} {
		t.Run(sub, func(t *testing.T) {
			dir := "../../../shared/corpus/" + sub
			if _, err := os.Stat(dir); err != nil {
				t.Skip("../shared corpus absent: " + sub)
			}
			files, err := rendered.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			opts := rendered.Options{KubeVersion: "1.37", ValuesYAMLOnly: true}
			want := viaJSON(t, render.Run(context.Background(), files, opts))
			got, err := viaProtocol(context.Background(), files, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Renders) == 0 {
				t.Fatal("nothing rendered")
			}
			sameResult(t, want, got)
			// As serve asks: a worker per render, sent what that render
			// reads.
			got, err = render.Isolated(viaProtocol, 2)(context.Background(), files, opts)
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, want, viaJSON(t, got))
		})
	}
}

// viaProtocol renders files as a render worker does: sent the Needed
// files in a request, answering through the protocol.
func viaProtocol(_ context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
	var req bytes.Buffer
	if err := rendered.WriteRequest(&req, rendered.Request{Files: rendered.Needed(files, opts), Options: opts}); err != nil {
		return rendered.Result{}, err
	}
	var out bytes.Buffer
	if err := rendered.Serve(&req, &out, render.Streaming); err != nil {
		return rendered.Result{}, err
	}
	return rendered.ReadResult(&out)
}
