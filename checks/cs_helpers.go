package checks

import (
	"regexp"
	"strconv"
	"strings"
)

// Pattern C of RULES.md: credential-like names, and the names it excludes.
var (
	csCredName        = regexp.MustCompile(`(^|_)(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|SECRET_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)$`)
	csCredNameExclude = regexp.MustCompile(`(^|_)(ALLOW_EMPTY|MAX|MIN|NUM|ENABLE|DISABLE)_`)
	// The same, case-insensitive, for ConfigMap keys.
	csCredNameI        = regexp.MustCompile(`(?i)` + csCredName.String())
	csCredNameExcludeI = regexp.MustCompile(`(?i)` + csCredNameExclude.String())
)

// csCredentialEnvName reports whether an env var name is credential-like
// (pattern C, as written: upper case).
func csCredentialEnvName(name string) bool {
	return csCredName.MatchString(name) && !csCredNameExclude.MatchString(name)
}

// csKeySuffixesExcluded are ConfigMap key suffixes that name settings about
// a credential, not the credential.
var csKeySuffixesExcluded = []string{"-ttl", "-policy", "-file", "-path", "-name", "-ref", "-mode", "-audience", "-enabled"}

// csCredentialKey reports whether a ConfigMap key is credential-like
// (pattern C, case-insensitive, without the excluded suffixes).
func csCredentialKey(key string) bool {
	lower := strings.ToLower(key)
	for _, s := range csKeySuffixesExcluded {
		if strings.HasSuffix(lower, s) {
			return false
		}
	}
	return csCredNameI.MatchString(key) && !csCredNameExcludeI.MatchString(key)
}

// csCredentialFormats are value formats that are credentials whatever the
// key is called. lit is text every match contains: values without it skip
// the regular expression (most ConfigMap values, and the bulk of the time).
var csCredentialFormats = []struct {
	what string
	lit  string
	re   *regexp.Regexp
}{
	{"a PEM private key", "-----BEGIN ", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?[A-Za-z0-9+/]{40,}`)},
	{"an AWS access key ID", "AKIA", regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`)},
	{"a GitHub personal access token", "ghp_", regexp.MustCompile(`\bghp_[A-Za-z0-9]{36}\b`)},
	{"a Slack token", "xox", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"a JSON Web Token", "eyJ", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
}

// csCredentialFormat returns what credential a value holds ("" for none).
// AWS's documented example key (…EXAMPLE) is not one.
func csCredentialFormat(v string) string {
	for _, f := range csCredentialFormats {
		if !strings.Contains(v, f.lit) {
			continue
		}
		for _, m := range f.re.FindAllString(v, -1) {
			if strings.HasSuffix(m, "EXAMPLE") {
				continue
			}
			return f.what
		}
	}
	return ""
}

// csInertValue reports whether a value cannot be a credential: empty, a
// boolean, a number or a file path.
func csInertValue(v string) bool {
	t := strings.TrimSpace(v)
	if t == "" {
		return true
	}
	switch strings.ToLower(t) {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return true
	}
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../")
}

// csVarRef finds a Kubernetes dependent variable reference, $(VAR), in an
// env value: the value is built from another variable, not a literal.
var csVarRef = regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_.-]*\)`)

// csVolumeName turns a Secret name into a valid volume name.
func csVolumeName(secret string) string {
	n := strings.ToLower(strings.ReplaceAll(secret, ".", "-"))
	if len(n) > 63 {
		n = strings.TrimRight(n[:63], "-")
	}
	return n
}
