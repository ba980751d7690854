package render

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/prodready/prodready/checks/rendered"
)

// typeMismatch is Helm's error for values of a subchart that are not a
// mapping ("type mismatch on NAME: …"), which it gives before it renders,
// naming the subchart alone and printing the value with a verb that does
// not fit it ("%!t(string=hello)").
var typeMismatch = regexp.MustCompile(`^type mismatch on ([^\s:]+): `)

// valuesProblem is the problem of err, which Helm gave while step (processing
// dependencies, preparing values) of a render of chart c with user values:
// values of a subchart that are not a mapping at the values line that sets
// them, with what they are; any other error at chartFile, as Helm says it.
func valuesProblem(err error, step, chartFile string, l *chartLoader, c *chart.Chart, user map[string]any, userTrees []valuesFile) rendered.Problem {
	whole := rendered.Problem{File: chartFile, Message: fmt.Sprintf("%s: %v", step, err)}
	m := typeMismatch.FindStringSubmatch(err.Error())
	if m == nil {
		return whole
	}
	keys, v, ok := notAMapping([]*chart.Chart{c}, nil, user, m[1])
	if !ok {
		return whole
	}
	idx := &templateIndex{root: c, l: l} // locate reads the chart tree and its sources, not the templates
	vm := &valuesMap{user: userTrees}
	loc, ok := vm.locate(idx, keys[:len(keys)-1], []seg{{Key: keys[len(keys)-1], Index: -1}})
	if !ok || loc.Line == 0 {
		return whole
	}
	return rendered.Problem{File: loc.File, Line: loc.Line, Column: loc.Column,
		Message: fmt.Sprintf("the values of subchart %s are %s, not a mapping (helm template and helm install refuse them)", strings.Join(keys, "."), valueKind(v))}
}

// notAMapping finds the subchart named name, below the last of charts (the
// chart tree from the root, keys naming each below it), whose values are
// not a mapping, and returns its keys and values: the user's values at its
// keys, else the nearest ancestor's defaults, as Helm coalesces them.
func notAMapping(charts []*chart.Chart, keys []string, user map[string]any, name string) ([]string, any, bool) {
	if len(charts) > maxChartDepth {
		return nil, nil, false
	}
	for _, d := range charts[len(charts)-1].Dependencies() {
		at := append(slices.Clip(keys), d.Name())
		v, set := valuesAt(charts, at, user)
		if d.Name() == name && set && !isMapping(v) {
			return at, v, true
		}
		if found, v, ok := notAMapping(append(slices.Clip(charts), d), at, user, name); ok {
			return found, v, true
		}
	}
	return nil, nil, false
}

// valuesAt returns the value at keys: the user's, else the defaults of the
// chart nearest to it among charts (charts[i] sits at keys[:i]).
func valuesAt(charts []*chart.Chart, keys []string, user map[string]any) (any, bool) {
	if v, ok := lookupKeys(user, keys); ok && v != nil {
		return v, true
	}
	for i := len(charts) - 1; i >= 0; i-- {
		if v, ok := lookupKeys(charts[i].Values, keys[i:]); ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// lookupKeys walks m along keys.
func lookupKeys(m map[string]any, keys []string) (any, bool) {
	var v any = m
	for _, k := range keys {
		mm, ok := asMapping(v)
		if !ok {
			return nil, false
		}
		if v, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// isMapping reports whether v is a mapping of values.
func isMapping(v any) bool {
	_, ok := asMapping(v)
	return ok
}

// asMapping returns v as a mapping, as values files decode to (Helm's
// Values as its AsMap gives them: empty, not nil).
func asMapping(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case common.Values:
		return m.AsMap(), true
	}
	return nil, false
}
