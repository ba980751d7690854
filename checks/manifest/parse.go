// Package manifest turns YAML files into objects that know where every key
// sits: each document as a go.yaml.in/yaml/v3 node tree with absolute 1-based
// line and column numbers, plus its typed Kubernetes value for built-in kinds.
// A document that cannot be read becomes a Problem for that document; the
// rest of the file is still read.
package manifest

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prodready/prodready/internal/parallel"
	"github.com/prodready/prodready/internal/plural"

	yaml "go.yaml.in/yaml/v3"
)

// Limits bound the work spent on one file, so hostile input cannot exhaust
// time or memory.
type Limits struct {
	// MaxFileBytes refuses larger files outright.
	MaxFileBytes int
	// MaxDepth refuses documents nested deeper than this.
	MaxDepth int
	// MaxExpandedNodes refuses documents whose aliases would expand to more
	// nodes than this (the "billion laughs" attack).
	MaxExpandedNodes int
}

// DefaultLimits are used when a caller gives none.
var DefaultLimits = Limits{
	MaxFileBytes:     5 << 20,
	MaxDepth:         256,
	MaxExpandedNodes: 1_000_000,
}

// Problem IDs: the rule IDs under which unreadable input is reported.
const (
	// ProblemYAML is a document that is not valid YAML, or is refused by a limit.
	ProblemYAML = "yaml-invalid"
	// ProblemSchema is a built-in kind that does not decode strictly.
	ProblemSchema = "schema-invalid"
)

// Problem is input that could not be read as intended: the whole file or one
// document. Line and Column are 1-based; zero means unknown.
type Problem struct {
	RuleID  string
	Doc     int // 0-based document index; -1 for the whole file
	Line    int
	Column  int
	Message string
	// Object is the document's object when it was read but did not decode
	// (schema-invalid); nil for YAML errors.
	Object *Object
	// Path is the path in Object of the key or value the problem is at
	// (spec.template.spec.containers[1].ports[0].containerPort), when the
	// problem names one: how a rendered object's problem is placed at the
	// template, values, base or patch line that writes it.
	Path Path
	// Template is true when the text holds template actions ({{ }}), so the
	// problem is likely the template's, not the author's YAML.
	Template bool
}

// IsChartTemplate reports whether a file is a Helm chart template: it sits
// in a templates/ folder and holds {{ }} actions.
func IsChartTemplate(path string, src []byte) bool {
	return (strings.Contains(path, "/templates/") || strings.HasPrefix(path, "templates/")) &&
		bytes.Contains(src, []byte("{{"))
}

// File is one parsed YAML file.
type File struct {
	Path     string
	Source   []byte
	Objects  []*Object // every document that parsed, in file order (empty documents skipped)
	Problems []Problem
	// Docs is the number of documents in the file, empty ones included.
	Docs int
	// Skipped, when not empty, says why the file was not checked at all
	// (a Helm chart template, which is not YAML until rendered).
	Skipped string
}

// Parse reads every document of src. It never panics on input and never
// stops at a bad document: the problem is recorded and the next document read.
func Parse(path string, src []byte, lim Limits) *File {
	return parse(path, src, lim, false, false, nil)
}

// ParseDeferred is Parse leaving the typed decode of built-in objects to
// File.DecodePending, which must be called before Typed is read: it keeps
// only what the decode needs (the type, and the JSON when only the text
// can make it; the node tree makes the rest again), so a run that parses
// every file before it decodes holds far less while it parses.
func ParseDeferred(path string, src []byte, lim Limits) *File {
	return parse(path, src, lim, true, false, nil)
}

// ParsePacked is ParseDeferred followed by Pack, with each document packed
// as soon as it is parsed: a file of many documents never holds more than
// one document's node tree.
func ParsePacked(path string, src []byte, lim Limits) *File {
	return parse(path, src, lim, true, true, nil)
}

// ParsePackedDroppingCRDTexts is ParsePacked followed by
// DropCRDTexts(readAt), without the copy of each text it drops: for a
// caller that reuses src's buffer once the file is parsed and reads the
// CRDs it needs again from the file (a lean run reads 24 of the plain
// corpus's 171 CRDs, 13 MB of text copied and dropped at once before).
func ParsePackedDroppingCRDTexts(path string, src []byte, lim Limits, readAt func(off, n int) ([]byte, error)) *File {
	return parse(path, src, lim, true, true, readAt)
}

// DecodePending finishes the typed decodes ParseDeferred left pending; a
// decode error becomes a problem in document order, as Parse records it.
func (f *File) DecodePending() { DecodePendingFiles([]*File{f}) }

// DecodePendingFiles is DecodePending for every file, spread over every CPU
// object by object, so a file of thousands of documents (a rendered chart)
// is decoded as fast as as many small files.
func DecodePendingFiles(files []*File) { decodePendingFiles(files, nil) }

// DecodePendingFilesDropping is DecodePendingFiles for a run that reads
// each typed value while its object is held (Object.HoldTyped): every
// value the packed tree can make again is let go as soon as it is decoded
// (DropTyped), unless keep says to keep it (a kind the run indexes
// first), so the run never holds every object's typed value at once.
func DecodePendingFilesDropping(files []*File, keep func(*Object) bool) {
	if keep == nil {
		keep = func(*Object) bool { return false }
	}
	decodePendingFiles(files, keep)
}

func decodePendingFiles(files []*File, keep func(*Object) bool) {
	var pending []*Object
	for _, f := range files {
		for _, o := range f.Objects {
			if o.pending != nil {
				pending = append(pending, o)
			}
		}
	}
	problems := make([]*Problem, len(pending))
	parallel.For(len(pending), func(i int) {
		o := pending[i]
		problems[i] = o.decodePending()
		if keep != nil && !keep(o) {
			o.DropTyped()
		}
	})
	var unsorted []*File
	for i, prob := range problems {
		if prob == nil {
			continue
		}
		f := pending[i].File
		prob.Doc = pending[i].Doc
		f.Problems = append(f.Problems, *prob)
		if len(unsorted) == 0 || unsorted[len(unsorted)-1] != f {
			unsorted = append(unsorted, f)
		}
	}
	for _, f := range unsorted {
		slices.SortStableFunc(f.Problems, func(a, b Problem) int { return cmp.Compare(a.Doc, b.Doc) })
	}
}

// parallelDocsMinBytes is the size from which a file's documents are
// parsed in parallel: below it, one CPU per file is enough (and other
// files keep the rest busy). A variable only so that a test can parse a
// large file one document after the other.
var parallelDocsMinBytes = 64 << 10

func parse(path string, src []byte, lim Limits, deferTyped, pack bool, crdReadAt func(off, n int) ([]byte, error)) *File {
	lim = lim.withDefaults()
	f := &File{Path: path, Source: src}
	if len(src) > lim.MaxFileBytes {
		f.Problems = append(f.Problems, Problem{
			RuleID: ProblemYAML, Doc: -1, Line: 1, Column: 1,
			Message: fmt.Sprintf("file is %s, over the %s limit; it was not checked (raise limits.maxFileBytes in .prodready.yaml to check it)", plural.Bytes(int64(len(src))), plural.Bytes(int64(lim.MaxFileBytes))),
		})
		return f
	}
	if p, bad := encodingProblem(src); bad {
		f.Problems = append(f.Problems, p)
		return f
	}
	if bytes.IndexByte(src, 0) >= 0 {
		f.Problems = append(f.Problems, Problem{
			RuleID: ProblemYAML, Doc: -1, Line: lineOfByte(src, bytes.IndexByte(src, 0)), Column: 1,
			Message: "file contains a NUL byte: it is binary, not YAML",
		})
		return f
	}
	if IsChartTemplate(path, src) {
		f.Skipped = "Helm chart template: not YAML until rendered, so it is not checked"
		return f
	}
	templated := bytes.Contains(src, []byte("{{"))
	chunks := splitDocuments(src)
	f.Docs = len(chunks)
	docs := make([]parsedDoc, len(chunks))
	if len(chunks) > 1 && len(src) >= parallelDocsMinBytes {
		// Many documents (a rendered chart, kustomize build output): each
		// is parsed, and packed on its own, on any CPU.
		parallel.For(len(chunks), func(i int) {
			p := takePacker(pack)
			docs[i] = parseChunk(f, i, chunks[i], lim, deferTyped, chunkCursor(src, chunks[i]), p, crdReadAt)
			p.done()
		})
	} else {
		lines := newLineCursor(src)
		p := takePacker(pack)
		for i, c := range chunks {
			docs[i] = parseChunk(f, i, c, lim, deferTyped, lines, p, crdReadAt)
		}
		p.done()
	}
	for _, d := range docs {
		for _, prob := range d.probs {
			if templated && prob.RuleID == ProblemYAML {
				prob.Template = true
				prob.Message += " (the file holds {{ }} template actions: render the template before checking it)"
			}
			f.Problems = append(f.Problems, prob)
		}
		f.Objects = append(f.Objects, d.objs...)
	}
	return f
}

// parsedDoc is what parseChunk makes of one document.
type parsedDoc struct {
	objs  []*Object // one, or a List's items
	probs []Problem
}

// parseChunk parses document i of f and finishes its object: block scalar
// indents read from the file's text through lines, and the tree packed by
// p (when not nil; p.done is the caller's).
func parseChunk(f *File, i int, c chunk, lim Limits, deferTyped bool, lines *lineCursor, p *packer, crdReadAt func(off, n int) ([]byte, error)) parsedDoc {
	objs, probs := parseDocument(f.Path, i, c, lim, deferTyped)
	for _, obj := range objs {
		obj.File = f
		if obj.CRDText != nil { // still the chunk's text, in src
			obj.crdSpan = spanOf(f.Source, c)
			if crdReadAt != nil && obj.crdSpan.n > 0 {
				obj.CRDText, obj.crdReadAt = nil, crdReadAt // as DropCRDTexts, with no copy made
			} else {
				obj.CRDText = bytes.Clone(obj.CRDText)
			}
		}
		obj.recordBlockIndents(lines)
		if p != nil {
			p.packObject(obj)
		}
	}
	return parsedDoc{objs, probs}
}

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultLimits.MaxFileBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxExpandedNodes <= 0 {
		l.MaxExpandedNodes = DefaultLimits.MaxExpandedNodes
	}
	return l
}

// parseDocument parses one document chunk into its object (a List's into
// its items' objects) and its problems; no object for an empty document or
// one that does not parse. With deferTyped, a built-in object's typed
// decode is left pending (ParseDeferred).
func parseDocument(path string, index int, c chunk, lim Limits, deferTyped bool) ([]*Object, []Problem) {
	if onlyComments(c.text) {
		return nil, nil // what yaml.v3 makes of it, without a parser's few kilobytes
	}
	text, skippedSpec := c.text, false
	if isCRD(text) {
		text, skippedSpec = blankTopLevelBlock(text, "spec"), true
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, []Problem{*yamlProblem(index, c, text, err)}
	}
	if len(doc.Content) == 0 {
		return nil, nil // empty or comment-only document
	}
	root := doc.Content[0]
	if msg := checkShape(root, lim); msg != "" {
		return nil, []Problem{{RuleID: ProblemYAML, Doc: index, Line: c.startLine, Column: 1, Message: msg}}
	}
	shiftLines(root, c.textLine-1)
	obj := &Object{
		Doc:         index,
		StartLine:   c.startLine,
		EndLine:     c.endLine,
		root:        root,
		SpecSkipped: skippedSpec,
	}
	if skippedSpec {
		obj.CRDText = c.text // parseChunk copies it, or drops it to be read again
	}
	if root.Kind != yaml.MappingNode {
		return []*Object{obj}, nil // a scalar or list document: not an object, nothing to check
	}
	obj.readHeader()
	objs := []*Object{obj}
	docText := c.text // only the typed decode reads it; a List's items have none of their own
	if items := listItems(obj); items != nil {
		objs, docText = items, nil
	}
	var probs []Problem
	for _, o := range objs {
		var prob *Problem
		if deferTyped {
			prob = o.deferTyped(false, docText)
		} else {
			prob = o.decodeTyped(docText)
		}
		if prob != nil {
			prob.Doc = index
			probs = append(probs, *prob)
		}
	}
	return objs, probs
}

// listItems returns the objects of a List document (kind: List, or a
// typed list such as ConfigMapList, as kubectl get -o yaml prints them):
// one per item that names its apiVersion and kind, each at its own lines,
// found at path items.N of the document. It returns nil for any other
// document.
func listItems(list *Object) []*Object {
	if !strings.HasSuffix(list.Kind, "List") || list.APIVersion == "" {
		return nil
	}
	_, items := MapEntry(list.root, "items")
	if items == nil || items.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*Object
	for i, item := range items.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		o := &Object{Doc: list.Doc, StartLine: item.Line, EndLine: list.EndLine, root: item, ListItem: Path{"items", strconv.Itoa(i)}}
		o.readHeader()
		if o.APIVersion == "" || o.Kind == "" {
			continue
		}
		if n := len(out); n > 0 {
			out[n-1].EndLine = item.Line - 1
		}
		out = append(out, o)
	}
	return out
}

// onlyComments reports whether text is nothing but empty lines, lines of
// spaces and comment lines of printable ASCII: an empty document, which
// yaml.v3 would read without error (it refuses control characters and
// broken UTF-8 even in comments; such text is left to it). A file of a
// million "---" lines is a million of them.
func onlyComments(text []byte) bool {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimLeft(bytes.TrimSuffix(line, []byte("\r")), " ")
		if len(line) == 0 {
			continue
		}
		if line[0] != '#' {
			return false
		}
		for _, b := range line {
			if b != '\t' && (b < 0x20 || b > 0x7e) {
				return false
			}
		}
	}
	return true
}

// yamlProblem turns a document's parse error into a problem on the file
// line yaml.v3 means. For a parser error yaml.v3 reports the 0-based line of
// the collection being parsed, or, when that collection starts on the
// text's first line, the line of the problem instead. A document read
// without its bare "---" line is parsed again behind a blank line (where
// the marker was), so that every document counts the same way.
func yamlProblem(index int, c chunk, text []byte, err error) *Problem {
	first := c.textLine
	if c.textLine > c.startLine {
		guarded := append(append(make([]byte, 0, len(text)+1), '\n'), text...)
		var doc yaml.Node
		if err2 := yaml.Unmarshal(guarded, &doc); err2 != nil {
			err, first = err2, c.textLine-1
		}
	}
	line := c.startLine
	if l := YAMLErrorLine(err); l > 0 {
		line = first + l - 1
		if strings.Contains(err.Error(), "did not find expected") {
			line++ // the 0-based collection line, made 1-based like the rest
		}
	}
	return &Problem{RuleID: ProblemYAML, Doc: index, Line: line, Column: 1, Message: "YAML does not parse: " + YAMLErrorReason(err)}
}

// checkShape refuses documents that are too deep or whose aliases expand to
// too many nodes. It walks the tree once, counting an alias as the size of
// what it names (remembered per anchored node, so a bomb costs no more to
// measure than its text).
func checkShape(root *yaml.Node, lim Limits) string {
	var sizes map[*yaml.Node]int // anchored nodes only: nothing else is reached twice
	var size func(n *yaml.Node, depth int) (int, bool)
	size = func(n *yaml.Node, depth int) (int, bool) {
		if depth > lim.MaxDepth {
			return 0, false
		}
		if s, ok := sizes[n]; ok {
			return s, true
		}
		total := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s, ok := size(n.Alias, depth+1)
			if !ok {
				return 0, false
			}
			total += s
		}
		for _, c := range n.Content {
			s, ok := size(c, depth+1)
			if !ok {
				return 0, false
			}
			total += s
			if total > lim.MaxExpandedNodes {
				total = lim.MaxExpandedNodes + 1
			}
		}
		if n.Anchor != "" {
			if sizes == nil {
				sizes = map[*yaml.Node]int{}
			}
			sizes[n] = total
		}
		return total, true
	}
	n, ok := size(root, 0)
	if !ok {
		return fmt.Sprintf("document is nested deeper than %d levels; it was not checked", lim.MaxDepth)
	}
	if n > lim.MaxExpandedNodes {
		return fmt.Sprintf("document's aliases expand to more than %d nodes (an alias bomb); it was not checked", lim.MaxExpandedNodes)
	}
	return ""
}

// shiftLines turns a chunk's line numbers into the file's. The Content
// links form a tree (an alias is a node of its own that points at its
// anchor through Alias, which is not followed), so each node is shifted once.
func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// encodingProblem reports a file that is not UTF-8: UTF-16 or UTF-32 (told
// by its byte-order mark), which the parser would misread as binary, or a
// byte that is no UTF-8 (a Latin-1 "é"), named at its line and column
// rather than where the YAML parser gives up.
func encodingProblem(src []byte) (Problem, bool) {
	for _, bom := range []struct {
		mark []byte
		name string
	}{
		{[]byte{0xFF, 0xFE, 0, 0}, "UTF-32"}, {[]byte{0, 0, 0xFE, 0xFF}, "UTF-32"},
		{[]byte{0xFF, 0xFE}, "UTF-16"}, {[]byte{0xFE, 0xFF}, "UTF-16"},
	} {
		if bytes.HasPrefix(src, bom.mark) {
			return Problem{
				RuleID: ProblemYAML, Doc: -1, Line: 1, Column: 1,
				Message: fmt.Sprintf("file is %s (it starts with a %s byte-order mark); only UTF-8 is read, so it was not checked: convert it, e.g. `iconv -f %s -t UTF-8`", bom.name, bom.name, bom.name),
			}, true
		}
	}
	if utf8.Valid(src) {
		return Problem{}, false
	}
	off := 0
	for off < len(src) {
		r, w := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && w == 1 {
			break
		}
		off += w
	}
	line := lineOfByte(src, off)
	col := utf8.RuneCount(src[bytes.LastIndexByte(src[:off], '\n')+1:off]) + 1
	return Problem{
		RuleID: ProblemYAML, Doc: -1, Line: line, Column: col,
		Message: fmt.Sprintf("file is not UTF-8: byte 0x%02X at line %d, column %d is no UTF-8 character (a file saved as Latin-1 or another legacy encoding?); YAML is read as UTF-8, so it was not checked", src[off], line, col),
	}, true
}

func lineOfByte(src []byte, off int) int {
	return bytes.Count(src[:off], []byte("\n")) + 1
}
