package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
)

// jsonIndent is the indentation of every JSON report.
const jsonIndent = "  "

// jsonChunk is how many items one goroutine encodes at a time.
const jsonChunk = 64

// writeJSONArray writes items 0..n-1 as a JSON array, exactly as
// json.MarshalIndent (indent jsonIndent) writes that array when it starts on
// a line indented depth levels deep. encoding/json spends most of a report's
// time indenting, one item after another; here chunks of items are encoded
// on every CPU and written in order, a few chunks in flight at a time, so a
// long report takes a fraction of the time and is never held whole.
func writeJSONArray(w *bufio.Writer, n, depth int, item func(i int) any) error {
	if n == 0 {
		w.WriteString("[]")
		return nil
	}
	inner := strings.Repeat(jsonIndent, depth+1)
	type part struct {
		b   []byte
		err error
	}
	chunks := (n + jsonChunk - 1) / jsonChunk
	parts := make([]chan part, chunks)
	for c := range parts {
		parts[c] = make(chan part, 1)
	}
	inFlight := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	go func() {
		for c := range parts {
			inFlight <- struct{}{} // released by the writer once chunk c is written
			go func() {
				// One Encoder per chunk: it reuses its buffers from item to
				// item, where MarshalIndent allocates two per item.
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetIndent(inner, jsonIndent)
				for i := c * jsonChunk; i < min(n, (c+1)*jsonChunk); i++ {
					if i > 0 {
						buf.WriteByte(',')
					}
					buf.WriteByte('\n')
					buf.WriteString(inner)
					if err := enc.Encode(item(i)); err != nil {
						parts[c] <- part{err: err}
						return
					}
					buf.Truncate(buf.Len() - 1) // the newline Encode ends each value with
				}
				parts[c] <- part{b: buf.Bytes()}
			}()
		}
	}()
	var firstErr error
	w.WriteByte('[')
	for _, ch := range parts { // every chunk is waited for, even after an error, so no goroutine is left blocked
		p := <-ch
		<-inFlight
		if p.err != nil && firstErr == nil {
			firstErr = p.err
		}
		if firstErr == nil {
			w.Write(p.b)
		}
	}
	if firstErr != nil {
		return firstErr
	}
	w.WriteByte('\n')
	w.WriteString(strings.Repeat(jsonIndent, depth))
	w.WriteByte(']')
	return nil
}
