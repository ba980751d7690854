package render

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/prodready/prodready/checks/rendered"
)

// schemaURL is the name a chart's values.schema.json is compiled under, as
// Helm compiles it.
const schemaURL = "file:///values.schema.json"

// maxSchemaErrors bounds the values errors one schema reports in a render.
const maxSchemaErrors = 20

// valuesSchemas validates the values of a render against the
// values.schema.json of its chart and of each subchart these values
// enable, as helm template and helm install do before they render, and
// with the same library and values (the chart's defaults coalesced with
// the values given; a subchart's under its name). Helm refuses values a
// schema rejects; the render here goes on, and each value refused is a
// problem at the values line that sets it (or at the schema, when no
// values file sets it: a required key left out). A schema that names
// another document ($ref or $schema beyond the draft's own) would make
// Helm read it over HTTP or from disk: it is not compiled, and is said
// not checked, as is a schema that does not compile.
type valuesSchemas struct {
	idx      *templateIndex
	vm       *valuesMap
	problems []rendered.Problem
	skipped  []rendered.Skipped
}

// check validates values against c's schema and its dependencies', chain
// naming c from the root chart.
func (v *valuesSchemas) check(c *chart.Chart, values map[string]any, chain []string, depth int) {
	if depth > maxChartDepth {
		return
	}
	if len(c.Schema) > 0 {
		v.validate(c.Schema, values, chain, v.schemaFile(c))
	}
	for _, d := range c.Dependencies() {
		raw, ok := values[d.Name()]
		if !ok || raw == nil {
			continue // Helm validates only a subchart given values
		}
		subChain := slices.Concat(chain, []string{d.Name()})
		sub, ok := asMapping(raw)
		if !ok {
			if len(d.Schema) > 0 {
				file := v.schemaFile(d)
				at := v.at(subChain, nil, file)
				at.Message = fmt.Sprintf("helm template and helm install refuse these values: the values of subchart %s are %s, not a mapping (%s)", d.Name(), valueKind(raw), file)
				v.problems = append(v.problems, at)
			}
			continue
		}
		v.check(d, sub, subChain, depth+1)
	}
}

// valueKind says what a value read from YAML is, as its author wrote it:
// "a list", "a string", "a number", "a boolean".
func valueKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

// validate validates values against one schema, file its repository path.
// The library panicking on a schema (Helm guards it the same way) leaves
// the schema said not checked, and the render goes on.
func (v *valuesSchemas) validate(schema []byte, values map[string]any, chain []string, file string) {
	defer func() {
		if r := recover(); r != nil {
			v.skipped = append(v.skipped, rendered.Skipped{File: file, Reason: fmt.Sprintf("values not validated against this schema: the validator failed on it (%v)", r)})
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		v.skipped = append(v.skipped, rendered.Skipped{File: file, Reason: "values not validated against this schema: it is not JSON (" + errLine(err) + ")"})
		return
	}
	var refused noLoader
	c := jsonschema.NewCompiler()
	c.UseLoader(&refused)
	if err := c.AddResource(schemaURL, doc); err != nil {
		v.skipped = append(v.skipped, rendered.Skipped{File: file, Reason: "values not validated against this schema: " + errLine(err)})
		return
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		reason := "values not validated against this schema: it does not compile (" + errLine(err) + ")"
		if refused.url != "" {
			reason = fmt.Sprintf("values not validated against this schema: it names %s, which helm template reads over HTTP or from disk and prodready does not", refused.url)
		}
		v.skipped = append(v.skipped, rendered.Skipped{File: file, Reason: reason})
		return
	}
	err = sch.Validate(values)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return
	}
	var leaves []*jsonschema.ValidationError
	collectLeaves(ve, &leaves)
	for i, leaf := range leaves {
		if i == maxSchemaErrors {
			v.problems = append(v.problems, rendered.Problem{File: file, Line: 1, Values: true, Message: fmt.Sprintf("helm template and helm install refuse these values: %d more values this schema refuses are not listed", len(leaves)-i)})
			break
		}
		p := v.at(chain, leaf.InstanceLocation, file)
		p.Message = fmt.Sprintf("helm template and helm install refuse these values: %s (%s)", oneLine(leaf.Error()), file)
		v.problems = append(v.problems, p)
	}
}

// at is a problem at the values line that sets instance (a path within
// the values of the chart chain names), or at the schema's first line.
func (v *valuesSchemas) at(chain, instance []string, file string) rendered.Problem {
	segs := make([]seg, len(instance))
	for i, k := range instance {
		segs[i] = seg{Key: k, Index: -1}
		if n, err := strconv.Atoi(k); err == nil && n >= 0 {
			segs[i] = seg{Index: n} // a list item: the schema's instance locations name items by number
		}
	}
	if loc, ok := v.vm.locate(v.idx, chain, segs); ok && loc.Line > 0 {
		return rendered.Problem{File: loc.File, Line: loc.Line, Column: loc.Column, Values: true}
	}
	return rendered.Problem{File: file, Line: 1, Values: true}
}

// schemaFile is the repository path of chart c's values.schema.json.
func (v *valuesSchemas) schemaFile(c *chart.Chart) string {
	if src := v.idx.l.sourceOf(c); src != nil {
		return path.Join(src.dir, "values.schema.json")
	}
	return path.Join(c.ChartFullPath(), "values.schema.json")
}

// collectLeaves appends the errors of e that say why a value is refused:
// those with no causes, and each anyOf or oneOf that failed whole (its
// branches' errors are alternatives, said together, not each a rule the
// value breaks).
func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		*out = append(*out, e)
		return
	}
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

// oneLine writes the library's indented list of an error and its causes
// on one line: "at '/x': anyOf failed; at '/x': got string, want integer".
func oneLine(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), "- ")
	}
	return strings.Join(lines, "; ")
}

// errLine returns the first line of err's message.
func errLine(err error) string {
	s := err.Error()
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// noLoader refuses every document a schema names, remembering the first:
// Helm's validator would read it over HTTP or from disk. A urn: reference
// Helm cannot resolve is a schema that allows anything, as Helm has it.
type noLoader struct {
	url string
}

// Load implements jsonschema.URLLoader.
func (l *noLoader) Load(url string) (any, error) {
	if strings.HasPrefix(url, "urn:") {
		return true, nil
	}
	if l.url == "" {
		l.url = url
	}
	return nil, fmt.Errorf("prodready does not load %s", url)
}
