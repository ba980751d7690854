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

// chunkSize is how many findings one goroutine renders at a time.
const chunkSize = 64

// writeChunked renders items 0..n-1 in chunks of chunkSize on every CPU
// (render writes items [from, to) into a chunk's buffer) and writes the
// chunks to w in order, a few in flight at a time: a long report takes a
// fraction of the time and is never held whole. The first error stops the
// output (every chunk is still waited for, so no goroutine is left behind).
func writeChunked(w *bufio.Writer, n int, render func(b *bytes.Buffer, from, to int) error) error {
	type part struct {
		b   *bytes.Buffer
		err error
	}
	chunks := (n + chunkSize - 1) / chunkSize
	parts := make([]chan part, chunks)
	for c := range parts {
		parts[c] = make(chan part, 1)
	}
	inFlight := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	go func() {
		for c := range parts {
			inFlight <- struct{}{} // released by the writer once chunk c is written
			go func() {
				b := new(bytes.Buffer)
				err := render(b, c*chunkSize, min(n, (c+1)*chunkSize))
				parts[c] <- part{b, err}
			}()
		}
	}()
	var firstErr error
	for _, ch := range parts {
		p := <-ch
		<-inFlight
		if p.err != nil && firstErr == nil {
			firstErr = p.err
		}
		if firstErr == nil {
			w.Write(p.b.Bytes())
		}
	}
	return firstErr
}

// jsonArray writes a JSON array whose items come in batches, exactly as
// json.MarshalIndent (indent jsonIndent) writes the whole array when it
// starts on a line indented depth levels deep. encoding/json spends most of
// a report's time indenting, one item after another: here a batch is
// encoded in chunks on every CPU (writeChunked), each by one json.Encoder
// that reuses its buffers from item to item.
type jsonArray struct {
	depth int
	n     int // items written so far
}

// add writes items 0..n-1 of the next batch.
func (a *jsonArray) add(w *bufio.Writer, n int, item func(i int) any) error {
	if n == 0 {
		return nil
	}
	if a.n == 0 {
		w.WriteByte('[')
	}
	before := a.n
	a.n += n
	inner := strings.Repeat(jsonIndent, a.depth+1)
	return writeChunked(w, n, func(b *bytes.Buffer, from, to int) error {
		enc := json.NewEncoder(b)
		enc.SetIndent(inner, jsonIndent)
		for i := from; i < to; i++ {
			if before+i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
			b.WriteString(inner)
			if err := enc.Encode(item(i)); err != nil {
				return err
			}
			b.Truncate(b.Len() - 1) // the newline Encode ends each value with
		}
		return nil
	})
}

// close ends the array ("[]" when no item was added).
func (a *jsonArray) close(w *bufio.Writer) {
	if a.n == 0 {
		w.WriteString("[]")
		return
	}
	w.WriteByte('\n')
	w.WriteString(strings.Repeat(jsonIndent, a.depth))
	w.WriteByte(']')
}
