package tmplmark

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"reflect"
	"strconv"
	"strings"
	"text/template"

	yaml3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// Carry holds what the marked render's own fromYaml learnt about the marks
// of the text it parsed, so that its toYaml can write them again. A chart
// that pipes a helper through `fromYaml | toYaml` (traefik's pod template)
// or merges label dicts parsed from helpers (kyverno's labels.merge) would
// otherwise lose every mark, or worse: a mark read as a YAML comment turns
// `component: #@pr3.38@ admission-controller` into `component: null`, and
// the marked render no longer matches the render it traces. Its zero value
// is ready to use; one Carry serves one render.
type Carry struct {
	maps  map[uintptr]carried // by the address of a map fromYaml returned
	marks int                 // marks held, bounded by maxCarried
	// remarked says a toYaml wrote marks again.
	remarked bool
}

// Remarked reports whether toYaml or mustToYaml of this render wrote marks
// again (see [Table.Observable]).
func (c *Carry) Remarked() bool { return c.remarked }

// carried is one map fromYaml returned: the map (held, so that its address
// is not reused while the render runs), the marks of the text it came from
// by key path, and the path of the map within that text.
type carried struct {
	m      map[string]any
	marks  map[string]Mark
	prefix string
}

// maxCarried bounds the marks a Carry holds over one render.
const maxCarried = 200000

// Funcs returns the template functions that replace Helm's in the marked
// render: fromYaml, fromYamlArray, fromJson and fromJsonArray parse the
// text without its marks, so that what a template computes from a helper's
// output is what it computes in the render traced; fromYaml also keeps the
// marks of the keys it parsed, and toYaml (and mustToYaml) writes them at
// the end of the lines of those keys; checksums and encodings are of the
// text without its marks. Every output stripped of its marks
// is Helm's, byte for byte.
func (c *Carry) Funcs() template.FuncMap {
	return template.FuncMap{
		"fromYaml":      c.fromYAML,
		"fromYamlArray": fromYAMLArray,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"toYaml":        c.toYAML,
		"mustToYaml":    c.mustToYAML,
		// A checksum of another template's output (checksum/config
		// annotations) or a Secret's encoded helper output is of the
		// text as Helm renders it.
		"sha256sum": func(s string) string { h := sha256.Sum256([]byte(Strip(s))); return hex.EncodeToString(h[:]) },
		"sha1sum":   func(s string) string { h := sha1.Sum([]byte(Strip(s))); return hex.EncodeToString(h[:]) },
		"sha512sum": func(s string) string { h := sha512.Sum512([]byte(Strip(s))); return hex.EncodeToString(h[:]) },
		"adler32sum": func(s string) string {
			return strconv.FormatUint(uint64(adler32.Checksum([]byte(Strip(s)))), 10)
		},
		"b64enc": func(s string) string { return base64.StdEncoding.EncodeToString([]byte(Strip(s))) },
		"b32enc": func(s string) string { return base32.StdEncoding.EncodeToString([]byte(Strip(s))) },
	}
}

// fromYAML is Helm's fromYaml on str without its marks, remembering the
// marks of its keys.
func (c *Carry) fromYAML(str string) map[string]any {
	clean, lineMarks := stripLines(str)
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(clean), &m); err != nil {
		m["Error"] = err.Error()
		return m
	}
	if len(lineMarks) == 0 || c.marks >= maxCarried {
		return m
	}
	var n yaml3.Node
	if yaml3.Unmarshal([]byte(clean), &n) != nil {
		return m
	}
	marks := map[string]Mark{}
	keyLines(&n, "", func(line int, p string) {
		if mk, ok := lineMarks[line-1]; ok {
			marks[p] = mk
		}
	})
	if len(marks) == 0 {
		return m
	}
	c.marks += len(marks)
	if c.maps == nil {
		c.maps = map[uintptr]carried{}
	}
	var reg func(v any, p string, depth int)
	reg = func(v any, p string, depth int) {
		if depth > maxDepth {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			c.maps[reflect.ValueOf(v).Pointer()] = carried{m: v, marks: marks, prefix: p}
			for k, sub := range v {
				reg(sub, joinKey(p, k), depth+1)
			}
		case []any:
			for i, sub := range v {
				reg(sub, joinIndex(p, i), depth+1)
			}
		}
	}
	reg(m, "", 0)
	return m
}

// toYAML is Helm's toYaml; when v is a map fromYaml returned (or one
// within it), the marks of its keys follow them to the end of their lines.
func (c *Carry) toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return c.remark(v, strings.TrimSuffix(string(data), "\n"))
}

// mustToYAML is Helm's mustToYaml, marked as toYAML marks.
func (c *Carry) mustToYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		panic(err)
	}
	return c.remark(v, strings.TrimSuffix(string(data), "\n"))
}

// remark writes the marks fromYaml kept for v at the end of the lines of
// out (v written as YAML) that hold their keys.
func (c *Carry) remark(v any, out string) string {
	m, ok := v.(map[string]any)
	if !ok || m == nil || len(c.maps) == 0 {
		return out
	}
	cd, ok := c.maps[reflect.ValueOf(m).Pointer()]
	if !ok {
		return out
	}
	var n yaml3.Node
	if yaml3.Unmarshal([]byte(out), &n) != nil {
		return out
	}
	lines := strings.Split(out, "\n")
	keysOn := map[int]int{}
	at := map[int]Mark{}
	keyLines(&n, cd.prefix, func(line int, p string) {
		keysOn[line-1]++
		if mk, ok := cd.marks[p]; ok {
			at[line-1] = mk
		}
	})
	if len(at) == 0 {
		return out
	}
	for i, mk := range at {
		if i < len(lines) && keysOn[i] == 1 {
			lines[i] += TemplateMark(mk.File, mk.Line)
			c.remarked = true
		}
	}
	return strings.Join(lines, "\n")
}

// TemplateMark is the mark of line line of template file file, as Annotate
// writes it.
func TemplateMark(file, line int) string {
	return fmt.Sprintf(" #@pr%d.%d@", file, line)
}

// stripLines returns s without its marks and, by 0-based line, the first
// template mark of each line that has one.
func stripLines(s string) (string, map[int]Mark) {
	if !strings.Contains(s, " #@p") {
		return s, nil
	}
	lines := strings.Split(s, "\n")
	var marks map[int]Mark
	for i, l := range lines {
		clean, ms := ReadLine(l)
		lines[i] = clean
		for _, mk := range ms {
			if mk.Binding < 0 {
				if marks == nil {
					marks = map[int]Mark{}
				}
				marks[i] = mk
				break
			}
		}
	}
	return strings.Join(lines, "\n"), marks
}

// maxDepth bounds how deep keyLines and fromYAML's bookkeeping walk.
const maxDepth = 100

// keyLines calls fn with the 1-based line and the path (below prefix) of
// every mapping key of the YAML document n.
func keyLines(n *yaml3.Node, prefix string, fn func(line int, p string)) {
	var walk func(n *yaml3.Node, p string, depth int)
	walk = func(n *yaml3.Node, p string, depth int) {
		if n == nil || depth > maxDepth {
			return
		}
		switch n.Kind {
		case yaml3.DocumentNode:
			for _, c := range n.Content {
				walk(c, p, depth+1)
			}
		case yaml3.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				kp := joinKey(p, n.Content[j].Value)
				fn(n.Content[j].Line, kp)
				walk(n.Content[j+1], kp, depth+1)
			}
		case yaml3.SequenceNode:
			for i, it := range n.Content {
				walk(it, joinIndex(p, i), depth+1)
			}
		}
	}
	walk(n, prefix, 0)
}

// joinKey and joinIndex extend a key path written as the funcs keep it:
// each key after a NUL, each index in brackets.
func joinKey(p, k string) string       { return p + "\x00" + k }
func joinIndex(p string, i int) string { return p + "[" + strconv.Itoa(i) + "]" }

// fromYAMLArray is Helm's fromYamlArray on str without its marks.
func fromYAMLArray(str string) []any {
	a := []any{}
	if err := yaml.Unmarshal([]byte(Strip(str)), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}

// fromJSON is Helm's fromJson on str without its marks.
func fromJSON(str string) map[string]any {
	m := make(map[string]any)
	if err := json.Unmarshal([]byte(Strip(str)), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

// fromJSONArray is Helm's fromJsonArray on str without its marks.
func fromJSONArray(str string) []any {
	a := []any{}
	if err := json.Unmarshal([]byte(Strip(str)), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}
