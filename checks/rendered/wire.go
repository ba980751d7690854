package rendered

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"
)

// The render worker's protocol (see [Worker] and [Serve]). Each message is
// one line of JSON, the header, followed by raw bytes whose sizes the header
// gives, so that file contents and rendered streams cross as they are,
// neither base64-encoded nor escaped.
//
// A request is the header
//
//	{"options": Options, "files": [{"path": "charts/web/Chart.yaml", "size": 120}, …]}
//
// and then the files' contents, in the header's order, back to back. A size
// of -1 stands for a nil content (no bytes follow).
//
// A result is a sequence of frames, each a header line and the bytes it
// sizes: one frame a render, in order, as the worker makes them,
//
//	{"render": render}
//
// followed by the render's bytes: its stream ("stream" bytes, -1 for
// none), then the text of any document that is not found in its stream;
// and a last frame, without bytes,
//
//	{"end": {"problems": [Problem, …], "notRendered": [Skipped, …]}}
//
// A result without its last frame is cut short and is refused.
// A render's header has the fields of [Render] in lower camel case, except:
// "blob" is the size of its bytes; a document's YAML is "size" bytes at
// offset "at" of those bytes (size -1 for none); and each source map is
// {"shared": [n, …], "keys": [suffix, …], "locs": [[file, line, column,
// kind, inherited, …], …]}: the key paths in sorted order, each written as
// the number of leading bytes it shares with the one before and the rest;
// for key i, locs[i] holds five integers a location, file and kind being indexes
// into the render's "files" and "kinds" tables, inherited 0 or 1 (null for a
// nil map or list). Problem, Skipped and Options are as
// encoding/json writes them.

// locInts is how many integers a source map's location is on the wire.
const locInts = 5

// maxHeaderBytes bounds the JSON header of a message.
const maxHeaderBytes = 256 << 20

// maxBlobBytes bounds the bytes a render's frame says follow its header:
// a render's stream is bounded far below it (Options.MaxOutputBytes).
const maxBlobBytes = 1 << 30

// readBlob reads the n bytes a frame's header says follow it, its buffer
// grown as they come: a header that claims more than is sent (a child that
// went wrong) costs no more memory than what is sent, and one over
// maxBlobBytes is refused before any is read.
func readBlob(r io.Reader, n int) ([]byte, error) {
	if n > maxBlobBytes {
		return nil, fmt.Errorf("%d bytes, over the bound of %d", n, maxBlobBytes)
	}
	var buf bytes.Buffer
	buf.Grow(min(n, 1<<20))
	if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type wireFile struct {
	Path string `json:"path"`
	Size int    `json:"size"`
}

type wireRequest struct {
	Options Options    `json:"options"`
	Files   []wireFile `json:"files"`
}

// WriteRequest writes req to w in the worker protocol. The files the set
// lists with no contents are read first, with req.Options.Read.
func WriteRequest(w io.Writer, req Request) error {
	files, err := req.Files.Filled(req.Options.Read)
	if err != nil {
		return err
	}
	req.Files = files
	paths := make([]string, 0, len(req.Files))
	for p := range req.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := wireRequest{Options: req.Options, Files: make([]wireFile, len(paths))}
	total := 0
	for i, p := range paths {
		data := req.Files[p]
		h.Files[i] = wireFile{Path: p, Size: size(data)}
		total += len(data)
	}
	if total > MaxRequestBytes {
		return fmt.Errorf("the files are %d bytes, over the request bound of %d", total, MaxRequestBytes)
	}
	if err := writeHeader(w, h); err != nil {
		return err
	}
	for _, p := range paths {
		if _, err := w.Write(req.Files[p]); err != nil {
			return err
		}
	}
	return nil
}

// ReadRequest reads a request that WriteRequest wrote. The files' contents
// share one buffer.
func ReadRequest(r io.Reader) (Request, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var h wireRequest
	if err := readHeader(br, &h); err != nil {
		return Request{}, err
	}
	total := 0
	for _, f := range h.Files {
		if f.Size < -1 || f.Size > MaxRequestBytes {
			return Request{}, fmt.Errorf("file %s: bad size %d", f.Path, f.Size)
		}
		total += max(f.Size, 0)
		if total > MaxRequestBytes {
			return Request{}, errors.New("the request is over its size bound")
		}
	}
	buf := make([]byte, total)
	if _, err := io.ReadFull(br, buf); err != nil {
		return Request{}, fmt.Errorf("reading the files: %w", err)
	}
	req := Request{Options: h.Options, Files: make(Files, len(h.Files))}
	off := 0
	for _, f := range h.Files {
		req.Files[f.Path] = sub(buf, off, f.Size)
		off += max(f.Size, 0)
	}
	return req, nil
}

type wireFrame struct {
	Render *wireRender `json:"render,omitempty"`
	End    *wireEnd    `json:"end,omitempty"`
}

type wireEnd struct {
	Problems    []Problem `json:"problems"`
	NotRendered []Skipped `json:"notRendered"`
}

type wireRender struct {
	Kind        Kind           `json:"kind"`
	Root        string         `json:"root"`
	ValuesFiles []string       `json:"valuesFiles"`
	Stream      int            `json:"stream"`
	Blob        int            `json:"blob"`
	Documents   []wireDocument `json:"documents"`
	Inputs      []string       `json:"inputs"`
	Skipped     []Skipped      `json:"skipped"`
	Unmapped    []Skipped      `json:"unmapped"`
	Problems    []Problem      `json:"problems"`
	Unmatched   []Unmatched    `json:"unmatched,omitempty"`
	Unjudged    []Skipped      `json:"unjudged,omitempty"`
	Files       []string       `json:"files"`
	Kinds       []LocationKind `json:"kinds"`
	Maps        []*wireMap     `json:"maps"`
}

type wireDocument struct {
	Source     string `json:"source"`
	Line       int    `json:"line"`
	At         int    `json:"at"`
	Size       int    `json:"size"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace"`
}

type wireMap struct {
	Shared []int    `json:"shared"`
	Keys   []string `json:"keys"`
	Locs   [][]int  `json:"locs"`
}

// WriteResult writes res to w in the worker protocol: WriteRender for each
// render, then WriteEnd. Nil renders are left out.
func WriteResult(w io.Writer, res Result) error {
	for _, r := range res.Renders {
		if r == nil {
			continue
		}
		if err := WriteRender(w, r); err != nil {
			return err
		}
	}
	return WriteEnd(w, res)
}

// WriteRender writes one render's frame of a result to w.
func WriteRender(w io.Writer, r *Render) error {
	wr, extras := encodeRender(r)
	if err := writeHeader(w, wireFrame{Render: wr}); err != nil {
		return err
	}
	if _, err := w.Write(r.Stream); err != nil {
		return err
	}
	for _, e := range extras {
		if _, err := w.Write(e); err != nil {
			return err
		}
	}
	return nil
}

// WriteEnd writes the last frame of a result to w: res's problems and the
// renders it left out (not its renders).
func WriteEnd(w io.Writer, res Result) error {
	return writeHeader(w, wireFrame{End: &wireEnd{Problems: res.Problems, NotRendered: res.NotRendered}})
}

func encodeRender(r *Render) (*wireRender, [][]byte) {
	r.MakeMaps() // the other process cannot make them
	wr := &wireRender{Kind: r.Kind, Root: r.Root, ValuesFiles: r.ValuesFiles, Stream: size(r.Stream),
		Inputs: r.Inputs, Skipped: r.Skipped, Unmapped: r.Unmapped, Problems: r.Problems, Unmatched: r.Unmatched, Unjudged: r.Unjudged}
	blob := len(r.Stream)
	var extras [][]byte
	if r.Documents != nil {
		wr.Documents = make([]wireDocument, len(r.Documents))
	}
	cursor := 0
	for i, d := range r.Documents {
		wd := wireDocument{Source: d.Source, Line: d.Line, Size: size(d.YAML), APIVersion: d.APIVersion, Kind: d.Kind, Name: d.Name, Namespace: d.Namespace}
		if at := find(r.Stream, cursor, d.YAML); at >= 0 {
			wd.At, cursor = at, at+len(d.YAML)
		} else {
			wd.At = blob
			blob += len(d.YAML)
			extras = append(extras, d.YAML)
		}
		wr.Documents[i] = wd
	}
	wr.Blob = blob
	if r.Maps != nil {
		wr.Maps = make([]*wireMap, len(r.Maps))
	}
	files, kinds := map[string]int{}, map[LocationKind]int{}
	for i, m := range r.Maps {
		if m == nil {
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		wm := &wireMap{Shared: make([]int, len(keys)), Keys: make([]string, len(keys)), Locs: make([][]int, 0, len(m))}
		prev := ""
		for j, k := range keys {
			n := sharedPrefix(prev, k)
			wm.Shared[j], wm.Keys[j], prev = n, k[n:], k
			locs := m[k]
			var ints []int
			if locs != nil {
				ints = make([]int, 0, locInts*len(locs))
			}
			for _, l := range locs {
				f, ok := files[l.File]
				if !ok {
					f = len(wr.Files)
					files[l.File] = f
					wr.Files = append(wr.Files, l.File)
				}
				kd, ok := kinds[l.Kind]
				if !ok {
					kd = len(wr.Kinds)
					kinds[l.Kind] = kd
					wr.Kinds = append(wr.Kinds, l.Kind)
				}
				inh := 0
				if l.Inherited {
					inh = 1
				}
				ints = append(ints, f, l.Line, l.Column, kd, inh)
			}
			wm.Locs = append(wm.Locs, ints)
		}
		wr.Maps[i] = wm
	}
	return wr, extras
}

// find returns the offset of text in stream at or after from, or -1. A
// render's documents are in its stream in order, each after its separator
// and Source comment, so the first look is just past those.
func find(stream []byte, from int, text []byte) int {
	if text == nil || from > len(stream) {
		return -1
	}
	if i := bytes.Index(stream[from:min(len(stream), from+4096+len(text))], text); i >= 0 {
		return from + i
	}
	if i := bytes.Index(stream[from:], text); i >= 0 {
		return from + i
	}
	return -1
}

// ReadResult reads a result that WriteResult (or WriteRender and WriteEnd)
// wrote. Each render's stream and documents share one buffer.
func ReadResult(r io.Reader) (Result, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var res Result
	for {
		var f wireFrame
		if err := readHeader(br, &f); err != nil {
			return Result{}, err
		}
		switch {
		case f.Render != nil:
			r, err := decodeRender(br, f.Render)
			if err != nil {
				return Result{}, fmt.Errorf("render %d (%s): %w", len(res.Renders), f.Render.Root, err)
			}
			res.Renders = append(res.Renders, r)
		case f.End != nil:
			res.Problems, res.NotRendered = f.End.Problems, f.End.NotRendered
			return res, nil
		default:
			return Result{}, errors.New("a frame of the result is neither a render nor the end")
		}
	}
}

func decodeRender(br io.Reader, wr *wireRender) (*Render, error) {
	if wr.Blob < 0 || wr.Stream > wr.Blob {
		return nil, fmt.Errorf("bad sizes (stream %d, blob %d)", wr.Stream, wr.Blob)
	}
	blob, err := readBlob(br, wr.Blob)
	if err != nil {
		return nil, fmt.Errorf("reading its stream: %w", err)
	}
	r := &Render{Kind: wr.Kind, Root: wr.Root, ValuesFiles: wr.ValuesFiles, Stream: sub(blob, 0, wr.Stream),
		Inputs: wr.Inputs, Skipped: wr.Skipped, Unmapped: wr.Unmapped, Problems: wr.Problems, Unmatched: wr.Unmatched, Unjudged: wr.Unjudged}
	if wr.Documents != nil {
		r.Documents = make([]Document, len(wr.Documents))
	}
	for i, wd := range wr.Documents {
		if wd.At < 0 || wd.Size < -1 || wd.At+max(wd.Size, 0) > len(blob) {
			return nil, fmt.Errorf("document %d: bad offset %d or size %d", i, wd.At, wd.Size)
		}
		r.Documents[i] = Document{Source: wd.Source, Line: wd.Line, YAML: sub(blob, wd.At, wd.Size),
			APIVersion: wd.APIVersion, Kind: wd.Kind, Name: wd.Name, Namespace: wd.Namespace}
	}
	if wr.Maps != nil {
		r.Maps = make([]DocMap, len(wr.Maps))
	}
	for i, wm := range wr.Maps {
		if wm == nil {
			continue
		}
		if len(wm.Keys) != len(wm.Locs) || len(wm.Keys) != len(wm.Shared) {
			return nil, fmt.Errorf("source map %d: %d keys, %d shared lengths, %d location lists", i, len(wm.Keys), len(wm.Shared), len(wm.Locs))
		}
		m := make(DocMap, len(wm.Keys))
		prev := ""
		for j, suffix := range wm.Keys {
			n := wm.Shared[j]
			if n < 0 || n > len(prev) {
				return nil, fmt.Errorf("source map %d, key %d: shares %d bytes with a key of %d", i, j, n, len(prev))
			}
			k := prev[:n] + suffix
			prev = k
			ints := wm.Locs[j]
			if ints == nil {
				m[k] = nil
				continue
			}
			if len(ints)%locInts != 0 {
				return nil, fmt.Errorf("source map %d, key %q: %d integers, not %d a location", i, k, len(ints), locInts)
			}
			locs := make([]Location, len(ints)/locInts)
			for n := range locs {
				l := ints[locInts*n : locInts*(n+1)]
				f, line, col, kd, inh := l[0], l[1], l[2], l[3], l[4]
				if f < 0 || f >= len(wr.Files) || kd < 0 || kd >= len(wr.Kinds) {
					return nil, fmt.Errorf("source map %d, key %q: file %d or kind %d out of its table", i, k, f, kd)
				}
				locs[n] = Location{File: wr.Files[f], Line: line, Column: col, Kind: wr.Kinds[kd], Inherited: inh != 0}
			}
			m[k] = locs
		}
		r.Maps[i] = m
	}
	return r, nil
}

// sharedPrefix returns how many leading bytes b shares with a, cut back to
// the start of a UTF-8 sequence so that the rest of b stays valid text.
func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

// size is len(b), or -1 for nil: the protocol keeps nil and empty apart.
func size(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// sub returns n bytes of buf at off (nil when n is -1), capped so that an
// append cannot write over the bytes after it.
func sub(buf []byte, off, n int) []byte {
	if n < 0 {
		return nil
	}
	return buf[off : off+n : off+n]
}

func writeHeader(w io.Writer, h any) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	data = append(data, '\n') // json.Marshal escapes newlines within strings
	_, err = w.Write(data)
	return err
}

func readHeader(br *bufio.Reader, h any) error {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderBytes {
			return errors.New("the message's header is over its size bound")
		}
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return fmt.Errorf("reading the message's header: %w", err)
		}
	}
	if err := json.Unmarshal(line, h); err != nil {
		return fmt.Errorf("reading the message's header: %w", err)
	}
	return nil
}
