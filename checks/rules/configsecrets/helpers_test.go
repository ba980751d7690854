package configsecrets

import (
	"strings"
	"testing"
)

// TestCredentialFormatLiterals checks that every credential format's
// literal prefilter is text each of its matches holds, so skipping values
// without it never hides a credential.
func TestCredentialFormatLiterals(t *testing.T) {
	samples := map[string]string{
		"a PEM private key":              "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7Jv0mJ9m4a1Bq2Q7fZk3lY8p0RrK1sT2uV3wX4yZ5aB6cD7eF8g\n",
		"an AWS access key ID":           "key: AKIAQ3EGRJLSIHWBMD5K",
		"a GitHub personal access token": "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
		"a Slack token":                  "xoxb-1234567890-abcdefghij",
		"a JSON Web Token":               "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	}
	for _, f := range credentialFormats {
		v, ok := samples[f.what]
		if !ok {
			t.Errorf("no sample for %s", f.what)
			continue
		}
		if got := credentialFormat(v); got != f.what {
			t.Errorf("csCredentialFormat(%q) = %q, want %q", v, got, f.what)
		}
		if !strings.Contains(f.re.FindString(v), f.lit) {
			t.Errorf("%s: a match %q does not hold the literal %q", f.what, f.re.FindString(v), f.lit)
		}
	}
}

func TestPlaceholderValue(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"GOOGLE_API_KEY", "GOOGLE_API_KEY_VAL", true},
		{"API_TOKEN", "${API_TOKEN}", true},
		{"DB_PASSWORD", "<your password>", true},
		{"STRIPE_API_KEY", "YOUR_STRIPE_KEY", true},
		{"DB_PASSWORD", "password", false},
		{"DB_PASSWORD", "S3CR3T_PASSWORD_2024", false}, // upper case, but not its name
		{"GITHUB_TOKEN", "ghp_FixtureFixtureFixtureFixture12345678", false},
	} {
		if got := placeholderValue(tc.name, tc.value); got != tc.want {
			t.Errorf("placeholderValue(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
	for name, want := range map[string]bool{"DB_PASSWD": true, "GITHUB_TOKEN": true, "GOOGLE_API_KEY": true,
		// The catalog's list leaves out the shorter spellings.
		"RABBITMQ_DEFAULT_PASS": false, "PGPASSWORD": false, "DB_PASS": false, "MYSQL_PWD": false,
		"PASSPORT_ID": false, "COMPASS": false, "MAX_TOTAL_TOKENS": false, "PASSWORD_FILE": false} {
		if got := credentialEnvName(name); got != want {
			t.Errorf("credentialEnvName(%q) = %v, want %v", name, got, want)
		}
	}
}
