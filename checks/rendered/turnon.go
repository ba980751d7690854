package rendered

import (
	"path"
	"slices"
	"strings"
	"text/template/parse"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// turnOn returns f's fix that turns on a template of the chart
// (Fix.TurnOn) as edits of the chart's values.yaml: each values key the
// template's guard reads that holds false, null or nothing is set to
// true, and one that holds an empty mapping is given the fix's Mapping.
// None when the template is not one of the render's own (a subchart's),
// its guard reads anything but values keys, a key holds another falsy
// value (0, "", an empty list), or no key needs setting: the template's
// guard then is not what leaves it empty. Rendering again decides whether
// the template renders and the finding is gone.
func (pl *placed) turnOn(files fileSet, f checks.Finding) (placement, bool) {
	on := f.Fix.TurnOn
	if on == nil {
		return placement{}, false
	}
	tmpl := ""
	for _, s := range pl.render.Skipped {
		if joinDir(pl.dir, s.File) == on.Template.File {
			tmpl = s.File
			break
		}
	}
	if tmpl == "" || pl.vendored(tmpl) {
		return placement{}, false
	}
	keys, ok := guardKeys(on.Template.Guard)
	if !ok {
		return placement{}, false
	}
	out := placement{file: path.Join(pl.render.Root, "values.yaml")}
	values := pl.valuesDoc(files, out.file)
	if values == nil {
		return placement{}, false
	}
	for _, k := range keys {
		_, held := yamlpath.Walk(values, k)
		for _, n := range held[:len(k)] { // what holds the key, when there
			if n != nil && n.Kind != yaml.MappingNode {
				return placement{}, false
			}
		}
		v := held[len(k)]
		switch {
		case v == nil || v.Kind == yaml.ScalarNode && (v.ShortTag() == "!!null" || v.ShortTag() == "!!bool" && !truthy(v)):
			out.addValuesEdit(edit.Op{Action: edit.Set, Path: k, Value: "true"})
		case v.Kind == yaml.MappingNode && len(v.Content) == 0 && len(on.Mapping) > 0:
			for _, m := range on.Mapping {
				m.Path = append(slices.Clone(k), m.Path...)
				out.addValuesEdit(m)
			}
		case truthy(v):
			// already on: another key of the guard is what is off
		default:
			return placement{}, false
		}
	}
	return out.atValues(values)
}

// truthy reports whether a template's `if` takes v, a values node, as
// true: what is not false, null, zero, an empty string or empty.
func truthy(v *yaml.Node) bool {
	switch v.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		return len(v.Content) > 0
	case yaml.ScalarNode:
		switch v.ShortTag() {
		case "!!null":
			return false
		case "!!bool":
			return !strings.EqualFold(v.Value, "false")
		case "!!int", "!!float":
			return v.Value != "0" && v.Value != "0.0"
		case "!!str":
			return v.Value != ""
		}
		return true
	}
	return false // an alias: not followed
}

// guardKeys returns the paths of the values keys guard (the action a
// template opens with: `{{- if and .Values.a .Values.b.enabled -}}`)
// needs true, when it is an `if` on one values key or on `and` of values
// keys alone; false for any other (a `with`, a comparison, a helper, a
// key of anything but .Values).
func guardKeys(guard string) ([][]string, bool) {
	t := parse.New("guard")
	t.Mode = parse.SkipFuncCheck
	if _, err := t.Parse(guard+"{{end}}", "", "", map[string]*parse.Tree{}); err != nil || len(t.Root.Nodes) != 1 {
		return nil, false
	}
	n, ok := t.Root.Nodes[0].(*parse.IfNode)
	if !ok || len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) != 1 {
		return nil, false
	}
	args := n.Pipe.Cmds[0].Args
	if id, ok := args[0].(*parse.IdentifierNode); ok && id.Ident == "and" && len(args) > 2 {
		args = args[1:]
	} else if len(args) != 1 {
		return nil, false
	}
	var keys [][]string
	for _, a := range args {
		k, ok := valuesKey(a)
		if !ok {
			return nil, false
		}
		keys = append(keys, k)
	}
	return keys, true
}

// valuesKey returns the path under .Values that n reads (.Values.a.b or
// $.Values.a.b), if it reads one.
func valuesKey(n parse.Node) ([]string, bool) {
	var ident []string
	switch n := n.(type) {
	case *parse.FieldNode:
		ident = n.Ident
	case *parse.VariableNode:
		if len(n.Ident) == 0 || n.Ident[0] != "$" {
			return nil, false
		}
		ident = n.Ident[1:]
	default:
		return nil, false
	}
	if len(ident) < 2 || ident[0] != "Values" {
		return nil, false
	}
	return ident[1:], true
}
