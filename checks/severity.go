// Package checks is the domain of rules: Rule, Finding, Severity, the
// registry of every rule, the configuration, and Run, which parses files,
// evaluates every enabled rule and returns findings with exact positions and
// fixes.
package checks

import (
	"fmt"
	"strings"
)

// Severity orders findings. The zero value means "not set" (a rule's
// default applies).
type Severity int

// Severities from least to most serious.
const (
	Info Severity = iota + 1
	Warning
	Error
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "none"
}

// ParseSeverity reads "info", "warning" or "error" (case-insensitive).
// "none" and "never" parse as a severity above every real one, so a
// fail-on threshold of "none" never fails.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	case "none", "never":
		return Error + 1, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want info, warning, error or none)", s)
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
