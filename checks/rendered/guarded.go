package rendered

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
	"go.yaml.in/yaml/v3"
)

// guardOpen matches a template line that opens a block on one values key
// alone: {{- with .Values.resources }}, {{- if .Values.securityContext }}.
var guardOpen = regexp.MustCompile(`^\{\{-?\s*(with|if)\s+\.Values\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*-?\}\}$`)

// guardWrite matches the action that writes the block's value: toYaml of
// it, indented.
var guardWrite = regexp.MustCompile(`^\{\{-?\s*toYaml\s+(\S+)\s*\|\s*nindent\s+\d+\s*-?\}\}$`)

// guardEnd matches the action that closes the block.
var guardEnd = regexp.MustCompile(`^\{\{-?\s*end\s*-?\}\}$`)

// guarded returns f's fix as edits of values.yaml when each key the fix
// adds to its document is one the chart's template writes only from a
// values key, in a block that writes nothing else:
//
//	{{- with .Values.resources }}
//	resources:
//	  {{- toYaml . | nindent 12 }}
//	{{- end }}
//
// (or `if .Values.resources` with `toYaml .Values.resources`). The values
// key holds nothing yet (an empty mapping, or null), so the render lacks
// the key; the fix's value under it becomes that values key's, which is
// how the chart's users set it. Only templates of the chart itself, not
// of its subcharts, are read; rendering again still decides.
func (pl *placed) guarded(files fileSet, f checks.Finding) (placement, bool) {
	r := pl.render
	if r.Kind != Helm {
		return placement{}, false
	}
	doc, root := pl.findingDoc(f)
	valuesFile := path.Join(r.Root, "values.yaml")
	values := pl.valuesDoc(files, valuesFile)
	if root == nil || values == nil {
		return placement{}, false
	}
	out := placement{file: valuesFile}
	for _, op := range f.Fix.Edits {
		segs, nodes := yamlpath.Walk(root, op.Path)
		n := 0 // the first segment the document lacks
		for n < len(segs) && nodes[n+1] != nil {
			n++
		}
		if n == len(segs) || segs[n].Index >= 0 {
			return placement{}, false // an edit of what exists, or a list item
		}
		parent := nodes[n]
		if parent == nil || parent.Kind != yaml.MappingNode || len(parent.Content) == 0 {
			return placement{}, false
		}
		first := FormatPath(append(slices.Clip(segs[:n]), Segment{Key: parent.Content[0].Value, Index: -1}))
		var at *Location
		for _, loc := range r.Map(doc)[first] {
			if loc.Kind == Template && !loc.Inherited && loc.Line > 0 {
				at = &loc
				break
			}
		}
		if at == nil || !strings.HasPrefix(at.File, path.Join(r.Root, "templates")+"/") {
			return placement{}, false
		}
		key, ok := guardOf(bytes.SplitAfter(contents(files, at.File), []byte("\n")), at.Line, segs[n].Key)
		if !ok {
			return placement{}, false
		}
		keyPath := strings.Split(key, ".")
		_, held := yamlpath.Walk(values, keyPath)
		if v := held[len(keyPath)]; v == nil || !(v.Kind == yaml.MappingNode && len(v.Content) == 0 || v.Tag == "!!null") {
			return placement{}, false // what it holds would be rendered already
		}
		t := op
		t.Path = append(keyPath, op.Path[n+1:]...)
		out.addValuesEdit(t)
	}
	return out.atValues(values)
}

// guardOf returns the values key of the block that writes key in the
// mapping of tmpl (lines with their endings) whose first key is written
// on line first (1-based, as "key:" or "- key:"), when that block is the
// only way the template writes the key there: the line before the key's
// opens it on the values key alone, the key's value is toYaml of it (on
// the key's line or the next), and the line after closes it.
func guardOf(tmpl [][]byte, first int, key string) (string, bool) {
	if first < 1 || first > len(tmpl) {
		return "", false
	}
	_, _, col := yamlLineShape(string(tmpl[first-1]))
	for i := first; i < len(tmpl); i++ { // tmpl[i] is line i+1
		line := string(tmpl[i])
		t := strings.TrimSpace(line)
		ind, dash, _ := yamlLineShape(line)
		switch {
		case ind < 0 || strings.HasPrefix(t, "{{"):
			continue // blank, a comment, or an action line
		case ind < col:
			return "", false // past the mapping: the key is not there
		case ind > col || dash || !strings.HasPrefix(t, key+":"):
			continue // inside an entry, or a compact list's item
		}
		open := strings.TrimSpace(string(tmpl[i-1]))
		m := guardOpen.FindStringSubmatch(open)
		if m == nil {
			return "", false
		}
		want := "."
		if m[1] == "if" {
			want = ".Values." + m[2]
		}
		write, next := strings.TrimSpace(strings.TrimPrefix(t, key+":")), i+1
		if write == "" && next < len(tmpl) {
			write, next = strings.TrimSpace(string(tmpl[next])), next+1
		}
		w := guardWrite.FindStringSubmatch(write)
		if w == nil || w[1] != want || next >= len(tmpl) || !guardEnd.MatchString(strings.TrimSpace(string(tmpl[next]))) {
			return "", false
		}
		return m[2], true
	}
	return "", false
}
