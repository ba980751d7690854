package render

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/checks/rendered"
)

// Helm's random and clock functions give a chart the same render every
// time (a Job named with randAlphaNum keeps its name from a check to the
// render that verifies its fix), each call a value of the kind Helm's
// gives, and two calls two values.
func TestRandomFunctionsRenderTheSameEveryTime(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml": []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/templates/job.yaml": []byte(`apiVersion: batch/v1
kind: Job
metadata:
  name: migrate-{{ randAlphaNum 5 | lower }}
  annotations:
    alnum: {{ randAlphaNum 8 | quote }}
    alpha: {{ randAlpha 8 | quote }}
    numeric: {{ randNumeric 8 | quote }}
    ascii: {{ randAscii 8 | b64enc | quote }}
    bytes: {{ randBytes 6 | quote }}
    int: {{ randInt 10 20 | quote }}
    shuffled: {{ shuffle "abcdefgh" | quote }}
    uuid: {{ uuidv4 | quote }}
    day: {{ now | date "2006-01-02T15:04:05Z07:00" | quote }}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: "busybox:1.36"}]
`),
	}
	first := renderOne(t, files, rendered.Options{})
	again := renderOne(t, files, rendered.Options{})
	if string(first.Stream) != string(again.Stream) {
		t.Fatalf("two renders differ:\n%s\n---\n%s", first.Stream, again.Stream)
	}
	job := first.Documents[docIndex(t, first, "Job")]
	if !regexp.MustCompile(`^migrate-[a-z0-9]{5}$`).MatchString(job.Name) {
		t.Errorf("the Job's name = %q", job.Name)
	}
	text := string(job.YAML)
	today := time.Now().UTC().Format("2006-01-02")
	for key, form := range map[string]string{
		"alnum":    `"[a-zA-Z0-9]{8}"`,
		"alpha":    `"[a-zA-Z]{8}"`,
		"numeric":  `"[0-9]{8}"`,
		"ascii":    `"[A-Za-z0-9+/]{11}="`,
		"bytes":    `"[A-Za-z0-9+/]{8}"`,
		"int":      `"1[0-9]"`,
		"shuffled": `"[a-h]{8}"`,
		"uuid":     `"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"`,
		"day":      `"` + today + `T00:00:00Z"`,
	} {
		if !regexp.MustCompile(`(?m)^    ` + key + `: ` + form + `$`).MatchString(text) {
			t.Errorf("%s is not %s in:\n%s", key, form, text)
		}
	}
	if strings.Contains(text, `shuffled: "abcdefgh"`) {
		t.Errorf("shuffle left its string as it was:\n%s", text)
	}
	if a, b := annotation(text, "alnum"), annotation(text, "alpha"); a[:5] == b[:5] {
		t.Errorf("two calls drew the same: %s and %s", a, b)
	}
}

// annotation returns the value written for key in text.
func annotation(text, key string) string {
	_, rest, _ := strings.Cut(text, "    "+key+": ")
	v, _, _ := strings.Cut(rest, "\n")
	return v
}

// A chart that asks for more random text than a render takes fails to
// render, with the template line and why, rather than taking the
// process's memory.
func TestRandomFunctionsAreBounded(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":            []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/templates/secret.yaml": []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: {{ randAlphaNum 2000000000 }}\n"),
	}
	r := renderOne(t, files, rendered.Options{})
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "2000000000 random characters is more than a render takes (1048576)") || r.Problems[0].Line != 6 {
		t.Errorf("problems = %+v, want the template's line 6 and the bound", r.Problems)
	}
}
