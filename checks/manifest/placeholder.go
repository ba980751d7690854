package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

var (
	// A whole value that is an ALL_CAPS word of three or more characters
	// (PORT, PROJECT_ID, FILESTORE_CAPACITY).
	capsPlaceholderRE = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	// Values that are placeholders wherever they appear.
	markedPlaceholderRE = regexp.MustCompile(`\$\{[^}]*\}|\{\{.*\}\}|^<[^>]+>$|\.\.\.|^%[A-Z_]+%$`)
)

// knownCaps are ALL_CAPS values that are real Kubernetes values, not
// placeholders.
var knownCaps = map[string]bool{"TCP": true, "UDP": true, "SCTP": true, "ALL": true, "NONE": true}

// IsPlaceholder reports whether a scalar value looks like a placeholder a
// script or template fills in: ${VAR}, {{ .Values.x }}, <your-value>, an
// ALL_CAPS word, or a value containing "...".
func IsPlaceholder(v string) bool {
	if mayBeMarked(v) && markedPlaceholderRE.MatchString(v) {
		return true
	}
	return len(v) >= 3 && v[0] >= 'A' && v[0] <= 'Z' && capsPlaceholderRE.MatchString(v) && !knownCaps[v]
}

// mayBeMarked reports whether v holds what every match of
// markedPlaceholderRE needs ("${", "{{", "...", or a leading < or %): rules
// ask about every image and value, and most are plainly not placeholders.
func mayBeMarked(v string) bool {
	if v == "" {
		return false
	}
	return v[0] == '<' || v[0] == '%' || strings.Contains(v, "${") || strings.Contains(v, "{{") || strings.Contains(v, "...")
}

// placeholderCaused reports whether a decode error comes from a placeholder:
// the value at a type error's field is one, or (for errors that name no
// field, such as a bad quantity or base64 text) a placeholder sits where
// such values live. root is the object's node tree, text its document's
// text when at hand (nil once the parse is done).
func (o *Object) placeholderCaused(err error, root *yaml.Node, text []byte) bool {
	if strings.Contains(err.Error(), "invalid map key") && (bytes.Contains(text, []byte("{{")) || bytes.Contains(text, []byte("${"))) {
		return true // an unquoted {{ .value }} reads as a mapping key
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		n := findField(root, strings.Split(typeErr.Field, "."))
		if n == nil {
			return false
		}
		v := valueOfKey(root, n)
		return v != nil && v.Kind == yaml.ScalarNode && IsPlaceholder(v.Value)
	}
	msg := err.Error()
	if !strings.Contains(msg, "quantities must match") && !strings.Contains(msg, "illegal base64") {
		return false
	}
	found := false
	walkScalars(root, func(key string, v *yaml.Node) {
		switch key {
		case "capabilities", "add", "drop":
			return
		}
		if IsPlaceholder(v.Value) {
			found = true
		}
	})
	return found
}

// valueOfKey returns the value node paired with key node k.
func valueOfKey(n, k *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i] == k {
				return n.Content[i+1]
			}
		}
	}
	for _, c := range n.Content {
		if v := valueOfKey(c, k); v != nil {
			return v
		}
	}
	return nil
}

// walkScalars calls fn for every scalar value with the key that holds it
// ("" for sequence items and the root).
func walkScalars(n *yaml.Node, fn func(key string, v *yaml.Node)) {
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		switch n.Kind {
		case yaml.ScalarNode:
			fn(key, n)
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Value)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, key)
			}
		}
	}
	if n != nil {
		walk(n, "")
	}
}

// hasKey reports whether any mapping in the tree has key.
func hasKey(n *yaml.Node, key string) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return true
			}
		}
	}
	for _, c := range n.Content {
		if hasKey(c, key) {
			return true
		}
	}
	return false
}
