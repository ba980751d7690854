package bot

import (
	"io"
	"strings"
	"testing"
)

func TestLimitBody(t *testing.T) {
	for _, tc := range []struct {
		body    string
		limit   int64
		wantErr bool
	}{
		{"", 0, false},
		{"abc", 3, false}, // exactly the limit
		{"abc", 10, false},
		{"abcd", 3, true}, // one byte over: an error, not a silent cut
		{strings.Repeat("x", 1<<16), 1 << 10, true},
	} {
		got, err := io.ReadAll(LimitBody(io.NopCloser(strings.NewReader(tc.body)), tc.limit))
		if (err != nil) != tc.wantErr {
			t.Errorf("%d bytes, limit %d: err %v, want error %v", len(tc.body), tc.limit, err, tc.wantErr)
		}
		if !tc.wantErr && string(got) != tc.body {
			t.Errorf("%d bytes, limit %d: read %d bytes", len(tc.body), tc.limit, len(got))
		}
		if tc.wantErr && int64(len(got)) > tc.limit {
			t.Errorf("read %d bytes past the limit %d", len(got), tc.limit)
		}
	}
}
