package kyvernovalues

import "testing"

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]bool{
		"3.2.9": true, "v3.2.9": true, "3.3.0-rc.1": true, " 2.7.5 ": true,
		"3.x": false, "~3.2.0": false, ">=3.0.0 <4.0.0": false, "${KYVERNO_VERSION}": false, "3.2": false, "": false,
	} {
		if _, ok := ParseVersion(in); ok != want {
			t.Errorf("ParseVersion(%q) ok = %v, want %v", in, ok, want)
		}
	}
}

func TestFor(t *testing.T) {
	if n := len(Charts()); n != 5 {
		t.Fatalf("%d embedded charts, want 5", n)
	}
	for in, want := range map[string][]string{
		"3.2.9":  {"3.2.9"},
		"3.5.1":  {"3.2.9", "3.9.0"},
		"3.10.0": {"3.9.0"},
		"2.6.0":  {"2.3.4", "2.7.5"},
		"2.0.0":  {"2.3.4"},
		"1.5.0":  nil,
	} {
		v, _ := ParseVersion(in)
		got := For(v)
		if len(got) != len(want) {
			t.Errorf("For(%s) = %d charts, want %v", in, len(got), want)
			continue
		}
		for i := range got {
			if got[i].Version.String() != want[i] || got[i].Root == nil {
				t.Errorf("For(%s)[%d] = %s, want %s", in, i, got[i].Version, want[i])
			}
		}
	}
}
