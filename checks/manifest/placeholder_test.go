package manifest

import "testing"

// TestIsPlaceholderPrefilterKeepsTheRegexp checks that the cheap test before
// each regular expression never skips a value the expression matches.
func TestIsPlaceholderPrefilterKeepsTheRegexp(t *testing.T) {
	values := []string{
		"", "a", "PORT", "PROJECT_ID", "TCP", "ALL", "AB", "ABC", "A_B", "A__B", "_ABC", "ABC_", "1ABC", "ABc",
		"${VAR}", "x-${VAR}-y", "${", "{{ .Values.image }}", "a{{b}}c", "{{", "}}", "<your-value>", "<>", "x<y>",
		"...", "a...b", "..", "%VAR%", "%var%", "%%", "nginx:1.25", "registry.example/app@sha256:abc", "REPLACE_ME",
		"ghcr.io/org/IMAGE:TAG", "<", "%", "$", "{", "é${x}", "ÉCOLE",
	}
	for _, v := range values {
		if got, want := IsPlaceholder(v), placeholderByRegexp(v); got != want {
			t.Errorf("IsPlaceholder(%q) = %v, the regular expressions say %v", v, got, want)
		}
	}
}

// FuzzIsPlaceholder checks the same on any string.
func FuzzIsPlaceholder(f *testing.F) {
	for _, s := range []string{"PORT", "${X}", "{{ x }}", "<v>", "a...b", "%X%", "nginx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if want := placeholderByRegexp(v); IsPlaceholder(v) != want {
			t.Errorf("IsPlaceholder(%q) = %v, the regular expressions say %v", v, !want, want)
		}
	})
}

// placeholderByRegexp is IsPlaceholder without its cheap tests.
func placeholderByRegexp(v string) bool {
	return markedPlaceholderRE.MatchString(v) || (len(v) >= 3 && capsPlaceholderRE.MatchString(v) && !knownCaps[v])
}
