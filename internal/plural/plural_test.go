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

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{1: "1 byte", 812: "812 bytes", 4 << 10: "4.0 KiB", 10 << 20: "10.0 MiB", 5<<20 + 1<<19: "5.5 MiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
