package checks

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ConfigError is a problem of a config file said in the file's own terms:
// the file's name as the user knows it, the 1-based line, and the YAML key,
// never a Go type: `cfg.yaml: line 2: unknown key "rulez" (did you mean
// "rules"?)`.
type ConfigError struct {
	// File is the config file's name as the caller gave it.
	File string
	// Line is the 1-based line of the key or value at fault; 0 when the
	// problem is not at one line.
	Line int
	// Message says what is wrong and, where it can, what is meant.
	Message string
}

// Error is `file: line N: message`.
func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.File, e.Line, e.Message)
	}
	return e.File + ": " + e.Message
}

// ConfigErrors are every problem of one config file, in the order of their
// lines: a file is read whole, so that one run says all that is wrong in
// it. Error is one problem a line.
type ConfigErrors []*ConfigError

// maxSaidConfigErrors bounds the lines of a ConfigErrors' message: a file
// with more problems is not a config with a few mistakes, and its first
// ones say so.
const maxSaidConfigErrors = 50

// Error is each problem as ConfigError says it, one a line, at most
// maxSaidConfigErrors of them and then how many more there are.
func (es ConfigErrors) Error() string {
	lines := make([]string, 0, min(len(es), maxSaidConfigErrors+1))
	for i, e := range es {
		if i == maxSaidConfigErrors {
			lines = append(lines, fmt.Sprintf("%s: … and %d more problems", e.File, len(es)-i))
			break
		}
		lines = append(lines, e.Error())
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find each *ConfigError.
func (es ConfigErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// ParseConfigFile parses the text of the config file name (as the user
// knows it: ".prodready.yaml", "../.prodready.yaml", "ci/prodready.yaml")
// and validates it against the rules of catalog. Its error is a
// ConfigErrors holding every problem of the file, each naming that file,
// the line, and the key at fault, with the nearest known key or rule when
// one is close.
func ParseConfigFile(name string, data []byte, catalog *Catalog) (*Config, error) {
	c := &Config{catalog: catalog}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, ConfigErrors{yamlError(name, err)}
	}
	w := configWalk{file: name, catalog: catalog, lines: map[string]int{}}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		if w.walk(root, reflect.TypeFor[Config](), "", "") {
			// The walk dropped what it refused, so that the rest decodes
			// and validate can say what else is wrong.
			if err := root.Decode(c); err != nil {
				// The walk accepts only what decodes: this is a bug, said
				// as the decoder says it.
				return nil, ConfigErrors{yamlError(name, err)}
			}
		}
	}
	errs := w.errs
	for _, fe := range c.validate() {
		if !w.saidAt(fe.field) {
			errs = append(errs, &ConfigError{File: name, Line: w.lines[fe.field], Message: fe.message})
		}
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return nil, errs
	}
	return c, nil
}

// fieldError is a problem validate finds in one field of a config, named by
// its path ("failOn", "charts[0]", "rules.pdb-missing.minReplicas"), which
// ParseConfigFile turns into the line that field is on.
type fieldError struct {
	field, message string
}

func (e *fieldError) Error() string { return e.message }

// yamlLineRE finds the line go-yaml names at the start of its messages.
var yamlLineRE = regexp.MustCompile(`^line (\d+): `)

// yamlError is a YAML syntax error (or a decoding one) of config file name,
// without the "yaml: " prefix and with its line in the ConfigError.
func yamlError(name string, err error) *ConfigError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "unmarshal errors:\n"))
	msg, _, _ = strings.Cut(msg, "\n")
	ce := &ConfigError{File: name, Message: msg}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		ce.Line, _ = strconv.Atoi(m[1])
		ce.Message = msg[len(m[0]):]
	}
	return ce
}

// configWalk checks a config's YAML against the Config type before it is
// decoded, so that a problem is said with the key's name and line (the
// decoder would name a Go type), and records the line of every key by its
// path for the errors of validate. It goes on past a problem: it records
// it, drops the node at fault from the tree (a default applies in its
// place) and checks the rest, so that a file's problems are said at once.
type configWalk struct {
	file    string
	catalog *Catalog
	lines   map[string]int
	errs    ConfigErrors
	// said holds the paths of the nodes the walk refused.
	said []string
}

var (
	ruleConfigType = reflect.TypeFor[RuleConfig]()
	severityNames  = []string{"info", "warning", "error"}
)

// saidAt reports whether the walk refused the node at path field, or one
// under or above it: validate does not say a second thing about it.
func (w *configWalk) saidAt(field string) bool {
	for _, p := range w.said {
		if p == field || under(p, field) || under(field, p) {
			return true
		}
	}
	return false
}

// under reports whether path p lies under path q ("charts[0].values"
// under "charts[0]", "rules.a.b" under "rules.a").
func under(p, q string) bool {
	return strings.HasPrefix(p, q) && len(p) > len(q) && (p[len(q)] == '.' || p[len(q)] == '[')
}

// walk checks node n, at path at ("" for the root) and at schema path key
// (at without list indices: the key of configFields), against type t. It
// reports whether n is kept: false when it was refused, and its parent
// drops it.
func (w *configWalk) walk(n *yaml.Node, t reflect.Type, at, key string) bool {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return true // not set: the default applies
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem() // a setting whose absence differs from its zero value
	}
	switch {
	case t == ruleConfigType:
		return w.rule(n, at)
	case t.Kind() == reflect.Struct:
		return w.mapping(n, t, at, key)
	case t.Kind() == reflect.Map:
		return w.rules(n, t.Elem(), at)
	case t.Kind() == reflect.Slice:
		if n.Kind == yaml.ScalarNode {
			return w.refuse(n, at, "%s: want a list, not %s (write [%s])", at, describe(n), describe(n))
		}
		if n.Kind != yaml.SequenceNode {
			return w.refuse(n, at, "%s: want a list, not %s", at, describe(n))
		}
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", at, i)
			w.lines[p] = item.Line
			if !w.walk(item, t.Elem(), p, key) {
				n.Content[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: item.Line}
			}
		}
		return true
	}
	spec := configFields[key]
	if n.Kind != yaml.ScalarNode {
		return w.refuse(n, at, "%s: want %s, not %s", at, scalarWant(t.Kind(), spec), describe(n))
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		return w.refuse(n, at, "%s: want %s, not %s", at, scalarWant(t.Kind(), spec), describe(n))
	}
	if spec.ints != nil {
		var v int64
		if n.Decode(&v) != nil || v < int64(spec.ints.Min) || v > int64(spec.ints.Max) {
			return w.refuse(n, at, "%s: want %s, not %s", at, scalarWant(t.Kind(), spec), describe(n))
		}
	}
	if spec.check != nil {
		if err := spec.check(n.Value); err != nil {
			return w.refuse(n, at, "%s: %v", at, err)
		}
	}
	return true
}

// mapping checks a mapping against struct type t: every key must be one of
// its fields' yaml names.
func (w *configWalk) mapping(n *yaml.Node, t reflect.Type, at, key string) bool {
	fields := map[string]reflect.Type{}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f.Type
		names = append(names, name)
	}
	if n.Kind != yaml.MappingNode {
		return w.refuse(n, at, "%s: want a mapping with the keys %s, not %s", orConfig(at), strings.Join(names, ", "), describe(n))
	}
	w.pairs(n, at, func(k, value *yaml.Node, p string) bool {
		ft, ok := fields[k.Value]
		if !ok {
			in := ""
			if at != "" {
				in = " in " + at
			}
			return w.refuse(k, p, "unknown key %q%s%s", k.Value, in, hint(k.Value, names, "it takes "+strings.Join(names, ", ")))
		}
		return w.walk(value, ft, p, join(key, k.Value))
	})
	return true
}

// join is the schema path of key name under path key.
func join(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// rules checks the rules mapping: rule IDs, each with its settings (elem).
// Which IDs exist is validate's to say: the walk records their lines.
func (w *configWalk) rules(n *yaml.Node, elem reflect.Type, at string) bool {
	if n.Kind != yaml.MappingNode {
		return w.refuse(n, at, "%s: want a mapping of rule IDs, not %s", at, describe(n))
	}
	w.pairs(n, at, func(_, value *yaml.Node, p string) bool {
		return w.walk(value, elem, p, "")
	})
	return true
}

// rule checks one rule's settings: true, false, or a mapping of enabled,
// severity and the rule's parameters, each of the type and in the range
// the rule gives it.
func (w *configWalk) rule(n *yaml.Node, at string) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		var b bool
		if n.Decode(&b) != nil {
			return w.refuse(n, at, "%s: want true, false or a mapping (enabled, severity, the rule's parameters), not %s", at, describe(n))
		}
		return true
	case yaml.MappingNode:
		r := w.catalog.Lookup(strings.TrimPrefix(at, "rules."))
		w.pairs(n, at, func(key, value *yaml.Node, p string) bool {
			if value.Kind == yaml.AliasNode && value.Alias != nil {
				value = value.Alias
			}
			switch key.Value {
			case "enabled":
				var b bool
				if value.Kind != yaml.ScalarNode || value.Decode(&b) != nil {
					return w.refuse(value, p, "%s: want true or false, not %s", p, describe(value))
				}
			case "severity":
				if sev, err := ParseSeverity(value.Value); value.Kind != yaml.ScalarNode || err != nil || sev > Error {
					return w.refuse(value, p, "%s: want info, warning or error, not %s%s", p, describe(value), hint(value.Value, severityNames, ""))
				}
			default:
				if r == nil {
					return true // an unknown rule: validate says so
				}
				def, ok := r.Params[key.Value]
				if !ok {
					return true // an unknown parameter: validate says so
				}
				if bad, at, want := paramProblem(value, p, def, r.ParamRanges[key.Value]); want != "" {
					return w.refuse(bad, at, "%s: want %s, not %s", at, want, describe(bad))
				}
				if check := r.ParamItems[key.Value]; check != nil {
					for i, item := range value.Content {
						if err := check(item.Value); err != nil {
							return w.refuse(item, fmt.Sprintf("%s[%d]", p, i), "%s[%d]: %v", p, i, err)
						}
					}
				}
			}
			return true
		})
		return true
	}
	return w.refuse(n, at, "%s: want true, false or a mapping (enabled, severity, the rule's parameters), not %s", at, describe(n))
}

// paramProblem says what a parameter at path p whose default is def
// takes, when value is not that: the node at fault (value or one of its
// items), its path, and what is wanted ("" when nothing is wrong). It takes
// a whole number in rng (from 0 when rng is the zero range), true or
// false, or a list of text values, as its default is.
func paramProblem(value *yaml.Node, p string, def any, rng IntRange) (*yaml.Node, string, string) {
	switch def.(type) {
	case int:
		if rng == (IntRange{}) {
			rng = IntRange{Min: 0, Max: math.MaxInt32}
		}
		var v int64
		if value.Kind != yaml.ScalarNode || value.Tag != "!!int" || value.Decode(&v) != nil || v < int64(rng.Min) || v > int64(rng.Max) {
			return value, p, wholeNumber(rng)
		}
	case bool:
		var b bool
		if value.Kind != yaml.ScalarNode || value.Decode(&b) != nil {
			return value, p, "true or false"
		}
	case []string:
		if value.Kind == yaml.ScalarNode {
			return value, p, fmt.Sprintf("a list of text values (write [%s])", describe(value))
		}
		if value.Kind != yaml.SequenceNode {
			return value, p, "a list of text values"
		}
		for i, item := range value.Content {
			if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
				return item, fmt.Sprintf("%s[%d]", p, i), "a text value"
			}
		}
	}
	return nil, "", ""
}

// wholeNumber says a range of whole numbers: "a whole number from 1 to
// 30", or "a whole number from 2 up" when it ends at the int32 limit.
func wholeNumber(r IntRange) string {
	if r.Max >= math.MaxInt32 {
		return fmt.Sprintf("a whole number from %d up", r.Min)
	}
	return fmt.Sprintf("a whole number from %d to %d", r.Min, r.Max)
}

// pairs calls each for every key and value of mapping n (at path at),
// recording each key's line; it refuses a key given twice or one that is
// not a plain name, and drops from n each pair refused (by it or by each).
func (w *configWalk) pairs(n *yaml.Node, at string, each func(key, value *yaml.Node, path string) bool) {
	seen := map[string]int{}
	kept := n.Content[:0:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			w.refuse(key, at, "%s: a key must be a plain name, not %s", orConfig(at), describe(key))
			continue
		}
		p := key.Value
		if at != "" {
			p = at + "." + key.Value
		}
		if first, dup := seen[key.Value]; dup {
			w.refuse(key, p, "key %q is given twice (first at line %d)", key.Value, first)
			continue
		}
		seen[key.Value] = key.Line
		w.lines[p] = key.Line
		if each(key, value, p) {
			kept = append(kept, key, value)
		}
	}
	n.Content = kept
}

// refuse records a problem of node n at path at and returns false: the
// caller drops n.
func (w *configWalk) refuse(n *yaml.Node, at, format string, args ...any) bool {
	w.errs = append(w.errs, &ConfigError{File: w.file, Line: n.Line, Message: fmt.Sprintf(format, args...)})
	w.said = append(w.said, at)
	return false
}

func orConfig(at string) string {
	if at == "" {
		return "the config"
	}
	return at
}

// describe names what a node is in YAML's terms: a mapping, a list, or its
// scalar value quoted.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!int", "!!float", "!!bool":
		return n.Value // a number or a boolean, as written
	}
	return strconv.Quote(n.Value)
}

// scalarWant is what a scalar of kind k is, for people, in the range
// spec gives it.
func scalarWant(k reflect.Kind, spec fieldSpec) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if spec.ints != nil {
			return wholeNumber(*spec.ints)
		}
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a text value"
}

// hint is the parenthesised suggestion after an unknown name: the closest
// of known, else otherwise (nothing when otherwise is empty).
func hint(word string, known []string, otherwise string) string {
	if s := Closest(word, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	if otherwise != "" {
		return " (" + otherwise + ")"
	}
	return ""
}

// Closest returns the name of known nearest to word when it is near enough
// to be what was meant (a letter or two off, or another case), else "".
func Closest(word string, known []string) string {
	best, bestDist := "", -1
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	for _, k := range sorted {
		if strings.EqualFold(k, word) {
			return k
		}
		d := editDistance(strings.ToLower(word), strings.ToLower(k))
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len([]rune(word))/3) || bestDist >= len([]rune(word)) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b: the fewest
// insertions, deletions and substitutions of runes that make one the other.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
