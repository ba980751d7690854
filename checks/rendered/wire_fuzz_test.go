package rendered_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// FuzzReadResult: what the render child writes is read by a process that
// must not fall with it: any bytes read as a result give a result or an
// error, never a panic, and a result read is one the protocol writes
// again and reads back the same.
func FuzzReadResult(f *testing.F) {
	stream := []byte("---\n# Source: web/templates/a.yaml\nkind: A\n")
	for _, res := range []rendered.Result{
		{},
		{Renders: []*rendered.Render{{
			Kind: rendered.Helm, Root: "web", Stream: stream,
			Documents: []rendered.Document{{Source: "web/templates/a.yaml", Line: 3, YAML: []byte("kind: A\n"), Kind: "A", Name: "a"}},
			Maps: []rendered.DocMap{{"": {{File: "web/templates/a.yaml", Line: 1, Column: 1, Kind: rendered.Template}},
				"kind": {{File: "web/values.yaml", Line: 4, Column: 3, Kind: rendered.Values, Inherited: true}}}},
			Problems: []rendered.Problem{{File: "web/Chart.yaml", Line: 2, Message: "m"}},
		}}, Problems: []rendered.Problem{{Message: "cap"}}},
	} {
		var buf bytes.Buffer
		if err := rendered.WriteResult(&buf, res); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := rendered.ReadResult(bytes.NewReader(data))
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := rendered.WriteResult(&again, res); err != nil {
			t.Fatalf("a result read cannot be written again: %v", err)
		}
		if _, err := rendered.ReadResult(&again); err != nil {
			t.Fatalf("a result read and written again does not read: %v", err)
		}
	})
}

// TestReadResultClaimsCostWhatIsSent: a render's frame that claims more
// bytes than follow it (a child that went wrong) is refused, having cost
// no more memory than what was sent, and one that claims past the bound
// (or more than Go can allocate) is refused before anything is read,
// without a panic.
func TestReadResultClaimsCostWhatIsSent(t *testing.T) {
	for _, blob := range []int{512 << 20, 1 << 40, 1<<62 + 1} {
		frame := fmt.Sprintf(`{"render":{"kind":"helm","root":"web","stream":0,"blob":%d}}`+"\nten bytes.", blob)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := rendered.ReadResult(strings.NewReader(frame))
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("a frame claiming %d bytes and sending 10 reads without an error", blob)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("a frame claiming %d bytes and sending 10 allocated %d bytes", blob, grew)
		}
	}
}
