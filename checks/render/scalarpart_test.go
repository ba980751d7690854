package render

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks/rendered"
)

// A values key is where an author changes a rendered scalar only when its
// action wrote the whole scalar: one written from two keys, or from a key
// and the template's own text, is changed on the template line (the
// ":latest" of an image built from repository and tag is not the
// repository's line). Quotes the template writes around one action do not
// make it part of a scalar.
func TestValuesLineOnlyForAWholeScalar(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml": []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/values.yaml": []byte(`image:
  repository: ghcr.io/acme/web
  tag: latest
ref: ghcr.io/acme/api:latest
mem: 128
`),
		"c/templates/deploy.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: two-keys
          image: {{ .Values.image.repository }}:{{ .Values.image.tag }}
        - name: two-keys-quoted
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
        - name: key-and-text
          image: {{ .Values.image.repository }}:v1
        - name: quoted
          image: "{{ .Values.ref }}"
        - name: single-quoted
          image: '{{ .Values.ref }}' # a comment
        - name: plain
          image: {{ .Values.ref }}
          resources:
            requests: {memory: {{ .Values.mem }}Mi, cpu: {{ .Values.mem }}}
          args:
            - "{{ .Values.ref }}"
`),
	}
	r := renderOne(t, files, rendered.Options{})
	const tpl, values = "c/templates/deploy.yaml", "c/values.yaml"
	checkLocations(t, r, docIndex(t, r, "Deployment"), []locCase{
		{"spec.template.spec.containers[0].image", rendered.Location{File: tpl, Line: 10, Column: 11, Kind: Template}},
		{"spec.template.spec.containers[1].image", rendered.Location{File: tpl, Line: 12, Column: 11, Kind: Template}},
		{"spec.template.spec.containers[2].image", rendered.Location{File: tpl, Line: 14, Column: 11, Kind: Template}},
		{"spec.template.spec.containers[3].image", rendered.Location{File: values, Line: 4, Column: 1, Kind: Values}},
		{"spec.template.spec.containers[4].image", rendered.Location{File: values, Line: 4, Column: 1, Kind: Values}},
		{"spec.template.spec.containers[5].image", rendered.Location{File: values, Line: 4, Column: 1, Kind: Values}},
		{"spec.template.spec.containers[5].resources.requests.memory", rendered.Location{File: tpl, Line: 22, Column: 13, Kind: Template}},
		{"spec.template.spec.containers[5].resources.requests.cpu", rendered.Location{File: values, Line: 5, Column: 1, Kind: Values}},
		// A list item is the template's, quoted or not, as before.
		{"spec.template.spec.containers[5].args[0]", rendered.Location{File: tpl, Line: 24, Column: 15, Kind: Template}},
	})
}

// A scalar composed from several values keys lists their lines after the
// template line that composes it, as ValuesPart, in the order they write:
// where a review comments when a pull request changes one of them.
func TestCompositeScalarListsItsValuesParts(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("image:\n  repository: ghcr.io/acme/web\n  tag: latest\n"),
		"c/templates/deploy.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: quoted
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
        - name: plain
          image: {{ .Values.image.repository }}:{{ .Values.image.tag | default "v1" }}
        - name: text
          image: registry.example/web:{{ .Values.image.tag }}
        - name: whole
          image: {{ .Values.image.tag }}
`),
	}
	r := renderOne(t, files, rendered.Options{})
	doc := docIndex(t, r, "Deployment")
	const tpl, values = "c/templates/deploy.yaml", "c/values.yaml"
	repo := rendered.Location{File: values, Line: 2, Column: 3, Kind: rendered.ValuesPart}
	tag := rendered.Location{File: values, Line: 3, Column: 3, Kind: rendered.ValuesPart}
	for i, want := range [][]rendered.Location{
		{{File: tpl, Line: 10, Column: 11, Kind: Template}, repo, tag},
		{{File: tpl, Line: 12, Column: 11, Kind: Template}, repo, tag},
		{{File: tpl, Line: 14, Column: 11, Kind: Template}, tag},
		{{File: values, Line: 3, Column: 3, Kind: Values}, {File: tpl, Line: 16, Column: 11, Kind: Template}},
	} {
		p := fmt.Sprintf("spec.template.spec.containers[%d].image", i)
		if diff := cmp.Diff(want, r.Origins(doc, p)); diff != "" {
			t.Errorf("Origins(%s) (-want +got):\n%s", p, diff)
		}
	}
}

// Rune columns, not bytes: on a line with text of two bytes a character
// before them, the actions of a flow mapping's values are found where
// they write.
func TestScalarPartsOnALineWithWideCharacters(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("x: un\ny: deux\nz: trois\nw: quatre\n"),
		"c/templates/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n" +
			"data: {a: \"éé{{ .Values.x }}\", b: \"{{ .Values.y }}\", c: {{ .Values.z }}:{{ .Values.w }}, d: \"ü\"}\n"),
	}
	r := renderOne(t, files, rendered.Options{})
	doc := docIndex(t, r, "ConfigMap")
	const tpl, values = "c/templates/cm.yaml", "c/values.yaml"
	line := rendered.Location{File: tpl, Line: 5, Column: 1, Kind: Template}
	part := func(n int) rendered.Location {
		return rendered.Location{File: values, Line: n, Column: 1, Kind: rendered.ValuesPart}
	}
	for p, want := range map[string][]rendered.Location{
		"data.a": {line, part(1)},
		"data.b": {{File: values, Line: 2, Column: 1, Kind: Values}, line},
		"data.c": {line, part(3), part(4)},
		"data.d": {line},
	} {
		if diff := cmp.Diff(want, r.Origins(doc, p)); diff != "" {
			t.Errorf("Origins(%s) (-want +got):\n%s", p, diff)
		}
	}
}

// BenchmarkSourceMapOfAWideDocument maps a ConfigMap of keys keys, each
// written by a values action on a line of its own, as a finding on its
// last key asks. Each action's key is found among the keys whose values
// start where it wrote, so the map grows with the keys, not with their
// square (20,000 keys took 4 s, 80,000 more than two minutes).
func BenchmarkSourceMapOfAWideDocument(b *testing.B) {
	for _, keys := range []int{2_000, 20_000} {
		b.Run(fmt.Sprint(keys), func(b *testing.B) {
			var tpl strings.Builder
			tpl.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wide\ndata:\n")
			for i := range keys {
				fmt.Fprintf(&tpl, "  k%d: {{ .Values.v }}\n", i)
			}
			files := rendered.Files{
				"c/Chart.yaml":        []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
				"c/values.yaml":       []byte("v: x\n"),
				"c/templates/cm.yaml": []byte(tpl.String()),
			}
			last := fmt.Sprintf("data.k%d", keys-1)
			for b.Loop() {
				r := Run(context.Background(), files, rendered.Options{}).Renders[0]
				if loc, ok := r.Locate(0, last); !ok || loc.Kind != Values {
					b.Fatalf("%s is at %+v", last, loc)
				}
			}
		})
	}
}
