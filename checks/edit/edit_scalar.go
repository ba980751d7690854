package edit

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// StringScalar renders s as a YAML string scalar that reads back as a
// string ("1.0" and "true" get quotes).
func StringScalar(s string) string {
	if PlainScalarSafe(s) {
		return s // what yaml.Marshal writes for it, without building an encoder
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		return `""`
	}
	return strings.TrimSuffix(string(out), "\n")
}

// PlainScalarSafe reports whether yaml.Marshal writes s unquoted and
// unchanged: a lowercase letter, then lowercase letters, digits, hyphens,
// dots, underscores and slashes (most label keys and values, and names),
// and not a word YAML reads as a bool or null.
func PlainScalarSafe(s string) bool {
	if s == "" || len(s) > 63 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/') {
			return false
		}
	}
	switch s {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}
