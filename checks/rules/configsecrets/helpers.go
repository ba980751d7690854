package configsecrets

import (
	"regexp"
	"strconv"
	"strings"
)

// The credential-like names (sensitive-env-literal), and the names it excludes.
var (
	// A credential word as the name's last word (DB_PASSWD, GITHUB_TOKEN,
	// GOOGLE_API_KEY). The catalog's list, measured on the corpus: the
	// shorter PASS and PWD, and PASSWORD run into a prefix (PGPASSWORD),
	// are left out, as the catalog leaves them.
	credName        = regexp.MustCompile(`(^|_)(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|SECRET_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)$`)
	credNameExclude = regexp.MustCompile(`(^|_)(ALLOW_EMPTY|MAX|MIN|NUM|ENABLE|DISABLE)_`)
	// The same, case-insensitive, for ConfigMap keys.
	credNameI        = regexp.MustCompile(`(?i)` + credName.String())
	credNameExcludeI = regexp.MustCompile(`(?i)` + credNameExclude.String())
)

// credentialEnvName reports whether an env var name is credential-like
// (pattern C, as written: upper case).
func credentialEnvName(name string) bool {
	return credName.MatchString(name) && !credNameExclude.MatchString(name)
}

// keySuffixesExcluded are ConfigMap key suffixes that name settings about
// a credential, not the credential.
var keySuffixesExcluded = []string{"-ttl", "-policy", "-file", "-path", "-name", "-ref", "-mode", "-audience", "-enabled"}

// credentialKey reports whether a ConfigMap key is credential-like
// (pattern C, case-insensitive, without the excluded suffixes).
func credentialKey(key string) bool {
	lower := strings.ToLower(key)
	for _, s := range keySuffixesExcluded {
		if strings.HasSuffix(lower, s) {
			return false
		}
	}
	return credNameI.MatchString(key) && !credNameExcludeI.MatchString(key)
}

// credentialFormats are value formats that are credentials whatever the
// key is called. lit is text every match contains: values without it skip
// the regular expression (most ConfigMap values, and the bulk of the time).
var credentialFormats = []struct {
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

// credentialFormat returns what credential a value holds ("" for none).
// AWS's documented example key (…EXAMPLE) is not one.
func credentialFormat(v string) string {
	for _, f := range credentialFormats {
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

// inertValue reports whether a value cannot be a credential: empty, a
// boolean, a number or a file path.
func inertValue(v string) bool {
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

// placeholderValue reports whether an env value is a placeholder to be
// replaced before deploying, not a credential: a whole ${VAR}, <value> or
// {{ template }}, or an upper-case identifier that spells the variable's
// own name (GOOGLE_API_KEY_VAL for GOOGLE_API_KEY) or asks for a value
// (YOUR_API_KEY, REPLACE_ME, CHANGE_ME).
func placeholderValue(name, v string) bool {
	v = strings.TrimSpace(v)
	for _, p := range [][2]string{{"${", "}"}, {"<", ">"}, {"{{", "}}"}} {
		if strings.HasPrefix(v, p[0]) && strings.HasSuffix(v, p[1]) {
			return true
		}
	}
	if !placeholderIdent.MatchString(v) {
		return false
	}
	return strings.Contains(v, name) || strings.HasPrefix(v, "YOUR_") || strings.HasPrefix(v, "REPLACE") || strings.HasPrefix(v, "CHANGE_ME") || strings.HasPrefix(v, "CHANGEME")
}

// placeholderIdent is an upper-case identifier with at least one
// underscore: a credential is not spelt that way.
var placeholderIdent = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$|^CHANGEME$`)

// varRef finds a Kubernetes dependent variable reference, $(VAR), in an
// env value: the value is built from another variable, not a literal.
var varRef = regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_.-]*\)`)

// volumeName turns a Secret name into a valid volume name.
func volumeName(secret string) string {
	n := strings.ToLower(strings.ReplaceAll(secret, ".", "-"))
	if len(n) > 63 {
		n = strings.TrimRight(n[:63], "-")
	}
	return n
}
