package render

import (
	"testing"

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
	})
}
