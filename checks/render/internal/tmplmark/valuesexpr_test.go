package tmplmark

import (
	"reflect"
	"testing"
)

// valuesExprByRegexp is valuesExpr as it read every action before its
// first word could turn one away: every field read, with the string
// literals blanked by the regexp first.
func valuesExprByRegexp(inner string, d dot) ([]string, bool) {
	inner, ok := valuesAction(inner)
	if !ok {
		return nil, false
	}
	return valuesPath(inner, d)
}

// TestValuesExprAsTheRegexp holds valuesExpr, which turns an action away
// by its first word before the regexp runs, to the reading that runs the
// regexp on every action, with the dots a template's actions have.
func TestValuesExprAsTheRegexp(t *testing.T) {
	actions := []string{
		"", "/* c */", ".Values.image.tag", ".Values.a | quote", `.Values.a | default "x"`,
		`default "x" .Values.a`, `printf "%s" .Values.a`, `printf "%s=%s" .a .b`, `include "x.labels" .`,
		`include "x.labels" .Values.a`, `template "t" .Values.a.b`, `"lit" | quote`, `"lit" .Values.a`, `  ( .Values.a | quote )`,
		"(.Values.a)", "|.Values.a", `.Values.a"x"`, `x"y" .Values.a`, "quote .Values.a", "1 .Values.a", "true",
		"$.Values.a.b", "$x := .Values.a", ".Values.a = 1", "toYaml . | nindent 4", ". | quote", ".name",
		".Values", ".Values.", ".Values..a", "tpl .Values.a $", `eq .Values.mode "a=b"`, "\u00a0.Values.a",
		"\u0085.Values.a\u0085quote", "\xff.Values.a", ".Values.a\xff", "`raw` .Values.a", "'c' .Values.a",
		`ternary "a" "b" .Values.c`, `.Values.a | default 'x' | upper`, "1e3", "-1 | int", "int64 .Values.n",
		`lookup "v1" "Secret" "ns" "n"`, `"unterminated .Values.a`, `.Values.a | trunc 63 | trimSuffix "-"`,
	}
	dots := []dot{{root: true}, {}, {values: []string{"item"}}, {root: true, values: []string{"a", "b"}}}
	for _, a := range actions {
		for _, d := range dots {
			gotP, gotOK := valuesExpr(a, d)
			wantP, wantOK := valuesExprByRegexp(a, d)
			if gotOK != wantOK || !reflect.DeepEqual(gotP, wantP) {
				t.Errorf("valuesExpr(%q, %+v) = %q, %v; by the regexp: %q, %v", a, d, gotP, gotOK, wantP, wantOK)
			}
		}
	}
}
