package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {-1, "-1 files"}, {21, "21 files"}} {
		if got := Count(tc.n, "file", "files"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if Form(1, "holds", "hold") != "holds" || Form(3, "holds", "hold") != "hold" || Form(0, "holds", "hold") != "hold" {
		t.Error("Form picks the wrong form")
	}
}
