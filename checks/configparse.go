package checks

import (
	"errors"
	"fmt"
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

// ParseConfigFile parses the text of the config file name (as the user
// knows it: ".prodready.yaml", "../.prodready.yaml", "ci/prodready.yaml")
// and validates it against the rules of catalog. Its errors are
// *ConfigError: they name that file, the line, and the key at fault, with
// the nearest known key or rule when one is close.
func ParseConfigFile(name string, data []byte, catalog *Catalog) (*Config, error) {
	c := &Config{catalog: catalog}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	lines := map[string]int{}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		w := configWalk{file: name, lines: lines}
		if err := w.walk(root, reflect.TypeFor[Config](), ""); err != nil {
			return nil, err
		}
		if err := root.Decode(c); err != nil {
			// The walk accepts only what decodes: this is a bug, said as
			// the decoder says it.
			return nil, yamlError(name, err)
		}
	}
	if err := c.validate(); err != nil {
		ce := &ConfigError{File: name, Message: err.Error()}
		var fe *fieldError
		if errors.As(err, &fe) {
			ce.Line = lines[fe.field]
		}
		return nil, ce
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
func yamlError(name string, err error) error {
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
// path for the errors of validate.
type configWalk struct {
	file  string
	lines map[string]int
}

var (
	ruleConfigType = reflect.TypeFor[RuleConfig]()
	severityNames  = []string{"info", "warning", "error"}
)

// walk checks node n, at path at ("" for the root), against type t.
func (w *configWalk) walk(n *yaml.Node, t reflect.Type, at string) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // not set: the default applies
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem() // a setting whose absence differs from its zero value
	}
	switch {
	case t == ruleConfigType:
		return w.rule(n, at)
	case t.Kind() == reflect.Struct:
		return w.mapping(n, t, at)
	case t.Kind() == reflect.Map:
		return w.rules(n, t.Elem(), at)
	case t.Kind() == reflect.Slice:
		if n.Kind == yaml.ScalarNode {
			return w.errorf(n, "%s: want a list, not %s (write [%s])", at, describe(n), describe(n))
		}
		if n.Kind != yaml.SequenceNode {
			return w.errorf(n, "%s: want a list, not %s", at, describe(n))
		}
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", at, i)
			w.lines[p] = item.Line
			if err := w.walk(item, t.Elem(), p); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return w.errorf(n, "%s: want %s, not %s", at, scalarWant(t.Kind()), describe(n))
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		return w.errorf(n, "%s: want %s, not %s", at, scalarWant(t.Kind()), describe(n))
	}
	return nil
}

// mapping checks a mapping against struct type t: every key must be one of
// its fields' yaml names.
func (w *configWalk) mapping(n *yaml.Node, t reflect.Type, at string) error {
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
		what := "the config"
		if at != "" {
			what = at
		}
		return w.errorf(n, "%s: want a mapping with the keys %s, not %s", what, strings.Join(names, ", "), describe(n))
	}
	return w.pairs(n, at, func(key, value *yaml.Node, p string) error {
		ft, ok := fields[key.Value]
		if !ok {
			in := ""
			if at != "" {
				in = " in " + at
			}
			return w.errorf(key, "unknown key %q%s%s", key.Value, in, hint(key.Value, names, "it takes "+strings.Join(names, ", ")))
		}
		return w.walk(value, ft, p)
	})
}

// rules checks the rules mapping: rule IDs, each with its settings (elem).
// Which IDs and parameters exist is validate's to say: the walk records
// their lines.
func (w *configWalk) rules(n *yaml.Node, elem reflect.Type, at string) error {
	if n.Kind != yaml.MappingNode {
		return w.errorf(n, "%s: want a mapping of rule IDs, not %s", at, describe(n))
	}
	return w.pairs(n, at, func(_, value *yaml.Node, p string) error {
		return w.walk(value, elem, p)
	})
}

// rule checks one rule's settings: true, false, or a mapping of enabled,
// severity and the rule's parameters.
func (w *configWalk) rule(n *yaml.Node, at string) error {
	switch n.Kind {
	case yaml.ScalarNode:
		var b bool
		if n.Decode(&b) != nil {
			return w.errorf(n, "%s: want true, false or a mapping (enabled, severity, the rule's parameters), not %s", at, describe(n))
		}
		return nil
	case yaml.MappingNode:
		return w.pairs(n, at, func(key, value *yaml.Node, p string) error {
			if value.Kind == yaml.AliasNode && value.Alias != nil {
				value = value.Alias
			}
			switch key.Value {
			case "enabled":
				var b bool
				if value.Kind != yaml.ScalarNode || value.Decode(&b) != nil {
					return w.errorf(value, "%s: want true or false, not %s", p, describe(value))
				}
			case "severity":
				if sev, err := ParseSeverity(value.Value); value.Kind != yaml.ScalarNode || err != nil || sev > Error {
					return w.errorf(value, "%s: want info, warning or error, not %s%s", p, describe(value), hint(value.Value, severityNames, ""))
				}
			}
			return nil // a parameter: validate knows the rule's
		})
	}
	return w.errorf(n, "%s: want true, false or a mapping (enabled, severity, the rule's parameters), not %s", at, describe(n))
}

// pairs calls each for every key and value of mapping n (at path at),
// recording each key's line, and refuses a key given twice.
func (w *configWalk) pairs(n *yaml.Node, at string, each func(key, value *yaml.Node, path string) error) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			return w.errorf(key, "%s: a key must be a plain name, not %s", orConfig(at), describe(key))
		}
		if first, dup := seen[key.Value]; dup {
			return w.errorf(key, "key %q is given twice (first at line %d)", key.Value, first)
		}
		seen[key.Value] = key.Line
		p := key.Value
		if at != "" {
			p = at + "." + key.Value
		}
		w.lines[p] = key.Line
		if err := each(key, value, p); err != nil {
			return err
		}
	}
	return nil
}

func (w *configWalk) errorf(n *yaml.Node, format string, args ...any) error {
	return &ConfigError{File: w.file, Line: n.Line, Message: fmt.Sprintf(format, args...)}
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
	return strconv.Quote(n.Value)
}

// scalarWant is what a scalar of kind k is, for people.
func scalarWant(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
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
