package crdschema

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v2"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// A version's schema block is YAML; the API server's path to its typed
// schema, which decodeBlock follows, is sigs.k8s.io/yaml's YAMLToJSON
// (yaml.v2 into generic values, made JSON-able, marshalled) and then a
// case-sensitive JSON decode into the v1 JSONSchemaProps, which compile
// converts to the internal JSONSchemaProps the validators are built from.
// decodeSchema takes the same yaml.v2 values and fills the internal
// JSONSchemaProps from them directly, with no JSON text and no v1 schema
// between: for the 4 MB of schema the corpus's custom resources reach,
// the round trip was a third of decoding them, and the two trees built
// before the internal one were most of what compiling them allocated.
//
// It gives the schema the round trip and the conversion give, or none: whatever the round
// trip could read otherwise or fail on (a key that is a field's name in
// another case, which the decoders of items and additionalProperties
// match; a number where a string goes, which YAMLToJSON turns into a
// string; a key that is not a string; a value JSON cannot hold; a field
// written as an unusual type, null in a list) makes it give up, and the
// caller decodes the block the usual way. TestDecodeSchemaAsRoundTrip
// holds it to the round trip on every CRD of the corpus and on those
// cases.

// decodeSchema decodes a block (`openAPIV3Schema:` and its mapping), or
// reports false when only the JSON round trip can say what it holds.
func decodeSchema(block []byte) (*apiextensions.JSONSchemaProps, bool) {
	var doc any
	if yaml.Unmarshal(block, &doc) != nil || deeper(doc, maxDirectDepth) {
		return nil, false
	}
	top, ok := doc.(map[any]any)
	if !ok {
		return nil, false
	}
	var out *apiextensions.JSONSchemaProps
	for k, v := range top {
		key, ok := k.(string)
		if !ok {
			return nil, false
		}
		if key != "openAPIV3Schema" {
			if !jsonable(v) {
				return nil, false
			}
			continue
		}
		m, ok := v.(map[any]any)
		if !ok {
			return nil, false // null or a scalar: the round trip says
		}
		out = &apiextensions.JSONSchemaProps{}
		if !fillProps(out, m) {
			return nil, false
		}
	}
	return out, out != nil
}

// maxDirectDepth is the deepest nesting of mappings and lists the direct
// decode takes: yaml.v2 and the round trip's JSON decoder each refuse more
// than 10,000 levels, and a schema near that is left to them to say what
// it is; none in the corpus comes near (their deepest is a few dozen).
const maxDirectDepth = 1000

// deeper reports whether v nests mappings and lists more than levels deep.
func deeper(v any, levels int) bool {
	if levels < 0 {
		return true
	}
	switch t := v.(type) {
	case map[any]any:
		for _, e := range t {
			if deeper(e, levels-1) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if deeper(e, levels-1) {
				return true
			}
		}
	}
	return false
}

// ignorable reports whether key, not one of names, is safe to ignore as
// the round trip ignores it: ASCII, and no name's case variant (which the
// case-insensitive decoders inside items and additionalProperties would
// match).
func ignorable(key string, names []string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return false
		}
	}
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return false
		}
	}
	return true
}

// propsFields are JSONSchemaProps's JSON names.
var propsFields = []string{
	"id", "$schema", "$ref", "description", "type", "format", "title", "default", "maximum",
	"exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
	"maxItems", "minItems", "uniqueItems", "multipleOf", "enum", "maxProperties", "minProperties",
	"required", "items", "allOf", "oneOf", "anyOf", "not", "properties", "additionalProperties",
	"patternProperties", "dependencies", "additionalItems", "definitions", "externalDocs",
	"example", "nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
	"x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
	"x-kubernetes-map-type", "x-kubernetes-validations",
}

// fillProps fills p from m, a schema's mapping; false: give up.
func fillProps(p *apiextensions.JSONSchemaProps, m map[any]any) bool {
	for k, v := range m {
		key, ok := k.(string)
		if !ok {
			return false
		}
		ok = true
		switch key {
		case "id":
			ok = setString(&p.ID, v)
		case "$schema":
			var s string
			ok = setString(&s, v)
			p.Schema = apiextensions.JSONSchemaURL(s)
		case "$ref":
			ok = setStringPtr(&p.Ref, v)
		case "description":
			ok = setString(&p.Description, v)
		case "type":
			ok = setString(&p.Type, v)
		case "format":
			ok = setString(&p.Format, v)
		case "title":
			ok = setString(&p.Title, v)
		case "pattern":
			ok = setString(&p.Pattern, v)
		case "default":
			p.Default, ok = rawJSON(v)
		case "example":
			p.Example, ok = rawJSON(v)
		case "maximum":
			ok = setFloat(&p.Maximum, v)
		case "minimum":
			ok = setFloat(&p.Minimum, v)
		case "multipleOf":
			ok = setFloat(&p.MultipleOf, v)
		case "exclusiveMaximum":
			ok = setBool(&p.ExclusiveMaximum, v)
		case "exclusiveMinimum":
			ok = setBool(&p.ExclusiveMinimum, v)
		case "uniqueItems":
			ok = setBool(&p.UniqueItems, v)
		case "nullable":
			ok = setBool(&p.Nullable, v)
		case "x-kubernetes-embedded-resource":
			ok = setBool(&p.XEmbeddedResource, v)
		case "x-kubernetes-int-or-string":
			ok = setBool(&p.XIntOrString, v)
		case "x-kubernetes-preserve-unknown-fields":
			ok = setBoolPtr(&p.XPreserveUnknownFields, v)
		case "maxLength":
			ok = setInt(&p.MaxLength, v)
		case "minLength":
			ok = setInt(&p.MinLength, v)
		case "maxItems":
			ok = setInt(&p.MaxItems, v)
		case "minItems":
			ok = setInt(&p.MinItems, v)
		case "maxProperties":
			ok = setInt(&p.MaxProperties, v)
		case "minProperties":
			ok = setInt(&p.MinProperties, v)
		case "enum":
			ok = setEnum(&p.Enum, v)
		case "required":
			ok = setStrings(&p.Required, v)
		case "x-kubernetes-list-map-keys":
			ok = setStrings(&p.XListMapKeys, v)
		case "x-kubernetes-list-type":
			ok = setStringPtr(&p.XListType, v)
		case "x-kubernetes-map-type":
			ok = setStringPtr(&p.XMapType, v)
		case "items":
			ok = setItems(&p.Items, v)
		case "allOf":
			ok = setPropsList(&p.AllOf, v)
		case "oneOf":
			ok = setPropsList(&p.OneOf, v)
		case "anyOf":
			ok = setPropsList(&p.AnyOf, v)
		case "not":
			ok = setPropsPtr(&p.Not, v)
		case "properties":
			ok = setPropsMap(&p.Properties, v)
		case "patternProperties":
			ok = setPropsMap(&p.PatternProperties, v)
		case "definitions":
			var defs map[string]apiextensions.JSONSchemaProps
			ok = setPropsMap(&defs, v)
			p.Definitions = defs
		case "additionalProperties":
			ok = setPropsOrBool(&p.AdditionalProperties, v)
		case "additionalItems":
			ok = setPropsOrBool(&p.AdditionalItems, v)
		case "externalDocs":
			ok = setExternalDocs(&p.ExternalDocs, v)
		case "x-kubernetes-validations":
			ok = setValidations(&p.XValidations, v)
		default: // dependencies (rare) is left to the round trip
			ok = key != "dependencies" && ignorable(key, propsFields) && jsonable(v)
		}
		if !ok {
			return false
		}
	}
	return true
}

// setString sets a string field: a string, or null (which leaves it).
func setString(dst *string, v any) bool {
	switch s := v.(type) {
	case nil:
		return true
	case string:
		*dst = s
		return utf8.ValidString(s)
	}
	return false
}

// setStringPtr sets a *string field: null makes it nil.
func setStringPtr(dst **string, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	s, ok := v.(string)
	if !ok || !utf8.ValidString(s) {
		return false
	}
	*dst = &s
	return true
}

// setBool sets a bool field: a bool, or null (which leaves it).
func setBool(dst *bool, v any) bool {
	switch b := v.(type) {
	case nil:
		return true
	case bool:
		*dst = b
		return true
	}
	return false
}

// setBoolPtr sets a *bool field: null makes it nil.
func setBoolPtr(dst **bool, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	b, ok := v.(bool)
	if ok {
		*dst = &b
	}
	return ok
}

// setFloat sets a *float64 field from an integer or a finite float; null
// makes it nil.
func setFloat(dst **float64, v any) bool {
	var f float64
	switch n := v.(type) {
	case nil:
		*dst = nil
		return true
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return false
		}
		f = n
	default:
		return false
	}
	*dst = &f
	return true
}

// setInt sets a *int64 field from an integer; null makes it nil. A float,
// which the round trip takes when it is whole, is left to it.
func setInt(dst **int64, v any) bool {
	var i int64
	switch n := v.(type) {
	case nil:
		*dst = nil
		return true
	case int:
		i = int64(n)
	case int64:
		i = n
	default:
		return false
	}
	*dst = &i
	return true
}

// setStrings sets a []string field from a list of strings; null makes it nil.
func setStrings(dst *[]string, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	l, ok := v.([]any)
	if !ok {
		return false
	}
	out := make([]string, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok || !utf8.ValidString(s) {
			return false
		}
		out[i] = s
	}
	*dst = out
	return true
}

// rawJSON is a JSON field (default, example); null is nil.
func rawJSON(v any) (*apiextensions.JSON, bool) {
	if v == nil {
		return nil, true
	}
	j, ok := jsonValue(v)
	if !ok {
		return nil, false
	}
	return &j, true
}

// jsonValue is a JSON value as the round trip and the conversion make it:
// its JSON as YAMLToJSON writes it (in v1's JSON.Raw), decoded by the
// conversion (Convert_v1_JSON_To_apiextensions_JSON: integers int64).
func jsonValue(v any) (apiextensions.JSON, bool) {
	raw, ok := marshal(v)
	if !ok {
		return nil, false
	}
	var i any
	if utiljson.Unmarshal(raw, &i) != nil {
		return nil, false
	}
	return i, true
}

// setEnum sets enum from a list; a null item is nil, as the JSON decoder
// and the conversion leave it.
func setEnum(dst *[]apiextensions.JSON, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	l, ok := v.([]any)
	if !ok {
		return false
	}
	out := make([]apiextensions.JSON, len(l))
	for i, e := range l {
		if e == nil {
			continue
		}
		if out[i], ok = jsonValue(e); !ok {
			return false
		}
	}
	*dst = out
	return true
}

// props decodes a nested schema, which must be a mapping.
func props(v any) (apiextensions.JSONSchemaProps, bool) {
	var p apiextensions.JSONSchemaProps
	m, ok := v.(map[any]any)
	if !ok {
		return p, false
	}
	return p, fillProps(&p, m)
}

// setPropsPtr sets a *JSONSchemaProps field (not); null makes it nil.
func setPropsPtr(dst **apiextensions.JSONSchemaProps, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	p, ok := props(v)
	if ok {
		*dst = &p
	}
	return ok
}

// setPropsList sets a []JSONSchemaProps field (allOf…) from a list of
// mappings; null makes it nil.
func setPropsList(dst *[]apiextensions.JSONSchemaProps, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	l, ok := v.([]any)
	if !ok {
		return false
	}
	out := make([]apiextensions.JSONSchemaProps, len(l))
	for i, e := range l {
		if out[i], ok = props(e); !ok {
			return false
		}
	}
	*dst = out
	return true
}

// setPropsMap sets a map[string]JSONSchemaProps field (properties…) from a
// mapping of string keys to mappings; null makes it nil.
func setPropsMap(dst *map[string]apiextensions.JSONSchemaProps, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	m, ok := v.(map[any]any)
	if !ok {
		return false
	}
	out := make(map[string]apiextensions.JSONSchemaProps, len(m))
	for k, e := range m {
		key, ok := k.(string)
		if !ok || !utf8.ValidString(key) {
			return false
		}
		if out[key], ok = props(e); !ok {
			return false
		}
	}
	*dst = out
	return true
}

// setItems sets items: a schema, or a list of schemas; null makes it nil.
func setItems(dst **apiextensions.JSONSchemaPropsOrArray, v any) bool {
	switch v.(type) {
	case nil:
		*dst = nil
		return true
	case map[any]any:
		p, ok := props(v)
		if ok {
			*dst = &apiextensions.JSONSchemaPropsOrArray{Schema: &p}
		}
		return ok
	case []any:
		var l []apiextensions.JSONSchemaProps
		if !setPropsList(&l, v) {
			return false
		}
		*dst = &apiextensions.JSONSchemaPropsOrArray{JSONSchemas: l}
		return true
	}
	return false
}

// setPropsOrBool sets additionalProperties or additionalItems: a schema or
// a bool; null makes it nil.
func setPropsOrBool(dst **apiextensions.JSONSchemaPropsOrBool, v any) bool {
	switch b := v.(type) {
	case nil:
		*dst = nil
		return true
	case bool:
		*dst = &apiextensions.JSONSchemaPropsOrBool{Allows: b}
		return true
	case map[any]any:
		p, ok := props(v)
		if ok {
			*dst = &apiextensions.JSONSchemaPropsOrBool{Allows: true, Schema: &p}
		}
		return ok
	}
	return false
}

// docsFields are ExternalDocumentation's JSON names.
var docsFields = []string{"description", "url"}

// setExternalDocs sets externalDocs from a mapping; null makes it nil.
func setExternalDocs(dst **apiextensions.ExternalDocumentation, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	m, ok := v.(map[any]any)
	if !ok {
		return false
	}
	d := &apiextensions.ExternalDocumentation{}
	for k, e := range m {
		key, ok := k.(string)
		if !ok {
			return false
		}
		switch key {
		case "description":
			ok = setString(&d.Description, e)
		case "url":
			ok = setString(&d.URL, e)
		default:
			ok = ignorable(key, docsFields) && jsonable(e)
		}
		if !ok {
			return false
		}
	}
	*dst = d
	return true
}

// ruleFields are ValidationRule's JSON names.
var ruleFields = []string{"rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf"}

// setValidations sets x-kubernetes-validations from a list of mappings;
// null makes it nil.
func setValidations(dst *apiextensions.ValidationRules, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	l, ok := v.([]any)
	if !ok {
		return false
	}
	out := make(apiextensions.ValidationRules, len(l))
	for i, e := range l {
		m, ok := e.(map[any]any)
		if !ok {
			return false
		}
		r := &out[i]
		for k, f := range m {
			key, ok := k.(string)
			if !ok {
				return false
			}
			switch key {
			case "rule":
				ok = setString(&r.Rule, f)
			case "message":
				ok = setString(&r.Message, f)
			case "messageExpression":
				ok = setString(&r.MessageExpression, f)
			case "fieldPath":
				ok = setString(&r.FieldPath, f)
			case "reason":
				var s *string
				ok = setStringPtr(&s, f)
				if s != nil {
					reason := apiextensions.FieldValueErrorReason(*s)
					r.Reason = &reason
				}
			case "optionalOldSelf":
				ok = setBoolPtr(&r.OptionalOldSelf, f)
			default:
				ok = ignorable(key, ruleFields) && jsonable(f)
			}
			if !ok {
				return false
			}
		}
	}
	*dst = out
	return true
}

// marshal writes v as YAMLToJSON does (encoding/json of the value with
// string keys), or reports false for what it would not write the same
// way or at all.
func marshal(v any) ([]byte, bool) {
	j, ok := toJSONable(v)
	if !ok {
		return nil, false
	}
	raw, err := json.Marshal(j)
	return raw, err == nil
}

// jsonable reports whether v, a value the schema's decode ignores, is one
// YAMLToJSON writes without error and toJSONable can read.
func jsonable(v any) bool {
	_, ok := toJSONable(v)
	return ok
}

// toJSONable is v with string-keyed maps, as YAMLToJSON makes it for a
// value no typed field reads (no number becomes a string there); false for
// a key that is not a string, a float JSON cannot hold, text that is not
// UTF-8, or a type yaml.v2 gives rarely (a time, a large unsigned number).
func toJSONable(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool, int, int64:
		return v, true
	case string:
		return v, utf8.ValidString(t)
	case float64:
		return v, !math.IsNaN(t) && !math.IsInf(t, 0)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			var ok bool
			if out[i], ok = toJSONable(e); !ok {
				return nil, false
			}
		}
		return out, true
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			key, ok := k.(string)
			if !ok || !utf8.ValidString(key) {
				return nil, false
			}
			if out[key], ok = toJSONable(e); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}
