package tmplmark

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Binding is one template action that emits a value read from the chart's
// values, such as {{ .Values.image.tag | quote }} or
// {{- toYaml .Values.resources | nindent 12 }}.
//
// A Call is a binding of another sort: an action of a template file
// (outside define blocks) that writes output other than one values path,
// such as {{- include "app.labels" . | nindent 4 }} or a range's
// {{ tpl (toYaml .) $ }}. It has no values path; its Line is where an
// author changes what it writes, for a key whose own line cannot be known
// (a helper whose output went through fromYaml and a merge).
type Binding struct {
	File int      // index of the template file, as passed to [Table.Annotate]
	Line int      // 1-based line of the action in the template file
	Path []string // values path, e.g. ["image", "tag"]; nil for a Call
	Call bool     // an include or template action, not a values reference
}

// Table collects the bindings found while annotating the templates of one
// render. Its zero value is ready to use.
type Table struct {
	// Bindings are indexed by the number carried in the binding marks.
	Bindings []Binding

	obs      observation // for Observable
	obsDepth int         // strings read as template text within one another
}

// isReSpace reports whether c is white space as regexp's \s has it (form
// feed too, unlike isSpace).
func isReSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// skipSpace returns the offset of the first byte of s at or after i that
// is not white space.
func skipSpace(s string, i int) int {
	for i < len(s) && isReSpace(s[i]) {
		i++
	}
	return i
}

// isKeyLine reports whether a line of template text starts a YAML key: any
// indentation and "- " items, then a quoted key, or a plain one that does
// not start with white space or one of :#{}"'[]-|> and holds none of :#{},
// then a colon followed by white space or the end. It is the regular
// expression
//
//	^\s*(?:-\s+)*(?:"[^"]*"|'[^']*'|[^\s:#{}"'\[\]\-|>][^:#{}]*?)\s*:(?:\s|$)
//
// written out: the regexp was a tenth of the CPU of a chart's render
// (TestKeyAndItemLinesAsTheRegexps holds the two to the same answers).
func isKeyLine(s string) bool {
	i := skipSpace(s, 0)
	for i+1 < len(s) && s[i] == '-' && isReSpace(s[i+1]) {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) {
		return false
	}
	switch c := s[i]; {
	case c == '"' || c == '\'':
		end := strings.IndexByte(s[i+1:], c)
		if end < 0 {
			return false
		}
		i = skipSpace(s, i+1+end+1)
	case isReSpace(c) || strings.IndexByte(":#{}\"'[]-|>", c) >= 0:
		return false
	default:
		// The plain key runs to the first of :#{}, which must be its colon.
		end := strings.IndexAny(s[i+1:], ":#{}")
		if end < 0 {
			return false
		}
		i += 1 + end
	}
	return i < len(s) && s[i] == ':' && (i+1 == len(s) || isReSpace(s[i+1]))
}

// isItemLine reports whether a line of template text starts a YAML list
// item (^\s*-(?:\s|$)).
func isItemLine(s string) bool {
	i := skipSpace(s, 0)
	return i < len(s) && s[i] == '-' && (i+1 == len(s) || isReSpace(s[i+1]))
}

// Annotate returns the template src of file number file with marks inserted:
// a template mark after the first literal text of every line that starts a
// YAML key or list item, and binding marks around actions that emit a values
// path. Lines inside define blocks get template marks only on key lines, so
// helpers whose output is compared as a string ("true") are left alone.
func (t *Table) Annotate(file int, src string) string {
	return string(t.AnnotateBytes(file, src))
}

// AnnotateBytes is Annotate writing the annotated text as bytes, as a
// chart's template holds it: a large template (a CRD's, a mark on each
// key line) is then not copied again.
func (t *Table) AnnotateBytes(file int, src string) []byte {
	toks := tokenize(src)
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/4)
	var st stack
	lc := lineCounter{src: src, line: 1}
	for _, tk := range toks {
		text := src[tk.start:tk.end]
		if !tk.action {
			t.literal(&out, file, src, tk, &st, &lc)
			continue
		}
		bind := t.observe(file, lc.at(tk.start), tk.inner, st.defineName(), st.markedDot())
		id, ok := t.binding(file, src, tk, &st, &lc)
		if !ok {
			id, ok = t.call(file, src, tk, &st, &lc)
		}
		if ok {
			open, close := "{{ ", " }}"
			if tk.leftTrim {
				open = "{{- "
			}
			if tk.rightTrim {
				close = " -}}"
			}
			fmt.Fprintf(&out, `%s" #@pv%db@"}}{{ %s }}{{" #@pv%de@"%s`, open, id, tk.inner, id, close)
			continue
		}
		st.apply(tk.inner)
		st.bindDot(tk.inner, bind)
		out.WriteString(text)
	}
	return out.Bytes()
}

// lineCounter gives the 1-based line of an offset of src. Offsets are asked
// in increasing order, so each newline is counted once: counting from the
// start at every mark made annotating a large template quadratic.
type lineCounter struct {
	src  string
	pos  int // offset counted up to
	line int // line at pos
}

// at returns the line of offset p, which is at or after the previous one.
func (c *lineCounter) at(p int) int {
	c.line += strings.Count(c.src[c.pos:p], "\n")
	c.pos = p
	return c.line
}

// literal writes a literal token, inserting a template mark on each line that
// starts inside it and looks like a YAML key (or, outside defines, an item).
func (t *Table) literal(out *bytes.Buffer, file int, src string, tk token, st *stack, lc *lineCounter) {
	inDefine := st.inDefine()
	pos := tk.start
	for pos < tk.end {
		nl := strings.IndexByte(src[pos:tk.end], '\n')
		stop := tk.end
		if nl >= 0 {
			stop = pos + nl + 1
		}
		piece := src[pos:stop]
		atLineStart := pos == 0 || src[pos-1] == '\n'
		body := strings.TrimRight(piece, " \t\r\n")
		// The colon and the dash are what the patterns cannot match
		// without: looking for them first spares the other lines the regexps.
		if atLineStart && body != "" && (isKeyLine(body) || !inDefine && isItemLine(body+" ")) {
			line := lc.at(pos)
			if inDefine {
				t.obs.marks(st.defineName())
			}
			out.WriteString(body)
			out.Write(appendTemplateMark(out.AvailableBuffer(), file, line))
			out.WriteString(piece[len(body):])
		} else {
			out.WriteString(piece)
		}
		pos = stop
	}
}

// appendTemplateMark appends the template mark of line line of template
// file to b: " #@pr<file>.<line>@", as fmt.Sprintf(" #@pr%d.%d@") writes
// it, without boxing the two numbers (a mark on most lines of a CRD).
func appendTemplateMark(b []byte, file, line int) []byte {
	b = append(b, " #@pr"...)
	b = strconv.AppendInt(b, int64(file), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(line), 10)
	return append(b, '@')
}

// binding reports whether the action emits a values path and, if so, records
// it and returns its number.
func (t *Table) binding(file int, src string, tk token, st *stack, lc *lineCounter) (int, bool) {
	if st.inDefine() || strings.Contains(src[tk.start:tk.end], "\n") {
		return 0, false
	}
	p, ok := valuesExpr(tk.inner, st.dot())
	if !ok {
		return 0, false
	}
	// The keys are copied: as slices of src they would keep every
	// annotated template alive as long as the table (a render's source
	// maps are made from it when first read).
	for i := range p {
		p[i] = strings.Clone(p[i])
	}
	t.Bindings = append(t.Bindings, Binding{File: file, Line: lc.at(tk.start), Path: p})
	return len(t.Bindings) - 1, true
}

// call reports whether the action, outside any define and on one line,
// writes output that is not one values path (an include or template of a
// helper, a tpl or toYaml of a range's element, a printf) and, if so,
// records it as a Call and returns its number.
func (t *Table) call(file int, src string, tk token, st *stack, lc *lineCounter) (int, bool) {
	if st.inDefine() || tk.inner == "" || strings.Contains(src[tk.start:tk.end], "\n") || strings.HasPrefix(tk.inner, "/*") {
		return 0, false
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(tk.inner, "("), " ")
	// An action with no "=" in it has none outside its string literals:
	// the literals' regexp runs only on one that has.
	if control[first] || (strings.Contains(tk.inner, "=") && strings.Contains(withoutStrings(tk.inner), "=")) {
		return 0, false // control, or an assignment: no output
	}
	t.Bindings = append(t.Bindings, Binding{File: file, Line: lc.at(tk.start), Call: true})
	return len(t.Bindings) - 1, true
}

// emitFuncs are the functions a values-emitting action may pipe through
// without the emitted text ceasing to be "the value of that key".
var emitFuncs = map[string]bool{
	"quote": true, "squote": true, "default": true, "toYaml": true, "nindent": true, "indent": true,
	"toString": true, "int": true, "int64": true, "float64": true, "trim": true, "toJson": true,
	"toRawJson": true, "toPrettyJson": true, "b64enc": true, "upper": true, "lower": true, "trunc": true,
	"trimSuffix": true, "toYamlPretty": true,
}

var stringLit = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`|'(?:[^'\\\\]|\\\\.)*'")

// withoutStrings returns s with each string literal in it made a space. A
// literal starts with a quote: s without one is s, and the regexp is not
// run (it was about a twentieth of the CPU of annotating the corpus's
// charts, and most actions quote nothing).
func withoutStrings(s string) string {
	if !strings.ContainsAny(s, "\"`'") {
		return s
	}
	return stringLit.ReplaceAllString(s, " ")
}

// pipeSeparators makes the pipes and parentheses of an action spaces, so
// that its fields are its words.
var pipeSeparators = strings.NewReplacer("|", " ", "(", " ", ")", " ")

// valuesExpr returns the values path an action emits, when its pipeline is a
// single values reference passed through emitFuncs only.
func valuesExpr(inner string, d dot) ([]string, bool) {
	inner, ok := valuesAction(inner)
	if !ok {
		return nil, false
	}
	// Every string literal starts at a quote: a first word with none in
	// it is the first field whatever withoutStrings makes of the rest, and
	// when no values expression can have it, the literals' regexp need
	// not run (it was most of the CPU of annotating the corpus's charts).
	if w := firstWord(inner); w != "" && !strings.ContainsAny(w, "\"`'") && !exprField(w) {
		if _, ok := ref(w, d); !ok {
			return nil, false
		}
	}
	return valuesPath(inner, d)
}

// valuesAction returns the part of an action valuesExpr reads (a named
// helper's argument, helperArg), or false for a comment or an action a
// keyword starts, which emits no values path.
func valuesAction(inner string) (string, bool) {
	if inner == "" || strings.HasPrefix(inner, "/*") {
		return "", false
	}
	inner = helperArg(inner)
	if first, _, _ := strings.Cut(inner, " "); keywords[first] {
		return "", false
	}
	return inner, true
}

// valuesPath reads every field of inner (valuesAction's) with its string
// literals blanked: the one values reference among functions of
// emitFuncs, numbers and booleans, and no assignment.
func valuesPath(inner string, d dot) ([]string, bool) {
	s := withoutStrings(inner)
	if strings.Contains(s, "=") {
		return nil, false
	}
	s = pipeSeparators.Replace(s)
	var path []string
	refs := 0
	for _, f := range strings.Fields(s) {
		if exprField(f) {
			continue
		}
		p, ok := ref(f, d)
		if !ok {
			return nil, false
		}
		refs++
		path = p
	}
	return path, refs == 1 && len(path) > 0
}

// exprField reports whether f is a field a values expression may have
// besides its one reference: a function of emitFuncs, a number or a
// boolean.
func exprField(f string) bool {
	if emitFuncs[f] || f == "true" || f == "false" {
		return true
	}
	_, err := strconv.ParseFloat(f, 64)
	return err == nil
}

// firstWord returns the first of the fields valuesExpr reads in s (its
// words between white space, pipes and parentheses), or "".
func firstWord(s string) string {
	sep := func(r rune) bool { return unicode.IsSpace(r) || r == '|' || r == '(' || r == ')' }
	i := strings.IndexFunc(s, func(r rune) bool { return !sep(r) })
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.IndexFunc(s, sep); j >= 0 {
		s = s[:j]
	}
	return s
}

// helperArg returns, for a template or include of a named helper given
// one argument (`template "kyverno.deployment.replicas"
// .Values.admissionController.replicas`), the argument and what follows
// it: a helper given one values key writes what that key's value makes,
// so the key is where its output is edited. Anything else is returned as
// it is.
func helperArg(inner string) string {
	first, rest, _ := strings.Cut(inner, " ")
	if first != "template" && first != "include" {
		return inner
	}
	rest = strings.TrimLeft(rest, " ")
	lit := stringLit.FindStringIndex(rest)
	if lit == nil || lit[0] != 0 {
		return inner
	}
	return strings.TrimLeft(rest[lit[1]:], " ")
}

// ref resolves a field reference against the current dot.
func ref(f string, d dot) ([]string, bool) {
	switch {
	case strings.HasPrefix(f, "$.Values."):
		return split(f[len("$.Values."):])
	case strings.HasPrefix(f, ".Values.") && d.root:
		return split(f[len(".Values."):])
	case f == "." && d.values != nil:
		return append([]string(nil), d.values...), true
	case strings.HasPrefix(f, ".") && d.values != nil && !strings.HasPrefix(f, ".Values"):
		rest, ok := split(f[1:])
		return append(append([]string(nil), d.values...), rest...), ok
	}
	return nil, false
}

func split(s string) ([]string, bool) {
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if p == "" {
			return nil, false
		}
	}
	return parts, true
}

// control are the actions that write no output of their own.
var control = map[string]bool{"if": true, "else": true, "end": true, "with": true, "range": true,
	"define": true, "block": true, "break": true, "continue": true}

var keywords = map[string]bool{"if": true, "else": true, "end": true, "with": true, "range": true,
	"define": true, "block": true, "template": true, "break": true, "continue": true, "include": true, "tpl": true}

// dot is what "." means at a point of the template: the root context, a values
// path, or something unknown (range elements, define arguments).
type dot struct {
	root   bool
	values []string
}

type frame struct {
	kw     string
	dot    dot
	define bool
	name   string // a define's or block's name
	// dotUse is, for a with whose dot is a text that may hold marks,
	// the number of its use plus one (see observe).
	dotUse int
}

type stack []frame

func (s stack) dot() dot {
	if len(s) == 0 {
		return dot{root: true}
	}
	return s[len(s)-1].dot
}

func (s stack) parentDot() dot {
	if len(s) < 2 {
		return dot{root: true}
	}
	return s[len(s)-2].dot
}

func (s stack) inDefine() bool {
	for _, f := range s {
		if f.define {
			return true
		}
	}
	return false
}

// bindDot sets, after apply of a with or else action, the dotUse of the
// frame it opened or turned (bind, or 0).
func (s stack) bindDot(inner string, bind int) {
	kw, rest, _ := strings.Cut(inner, " ")
	if len(s) == 0 || kw != "with" && kw != "else" {
		return
	}
	if kw == "else" && !strings.HasPrefix(strings.TrimSpace(rest), "with") {
		bind = 0
	}
	s[len(s)-1].dotUse = bind
}

// markedDot is the dotUse of the innermost frame that sets the dot (a
// with, range, define or block), 0 when none does or its dot holds no
// maker's text.
func (s stack) markedDot() int {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i].kw {
		case "with", "range", "define", "block":
			return s[i].dotUse
		}
	}
	return 0
}

// defineName is the name of the innermost define or block, "" outside
// any.
func (s stack) defineName() string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].define {
			return s[i].name
		}
	}
	return ""
}

// apply updates the control stack for one action.
func (s *stack) apply(inner string) {
	kw, rest, _ := strings.Cut(inner, " ")
	rest = strings.TrimSpace(rest)
	switch kw {
	case "if":
		*s = append(*s, frame{kw: kw, dot: s.dot(), define: false})
	case "with":
		*s = append(*s, frame{kw: kw, dot: withDot(rest, s.dot())})
	case "range":
		*s = append(*s, frame{kw: kw})
	case "define", "block":
		name := ""
		if lit := stringLit.FindString(rest); lit != "" && strings.HasPrefix(rest, lit) {
			if v, err := strconv.Unquote(lit); err == nil {
				name = v
			} else {
				name = lit[1 : len(lit)-1]
			}
		}
		*s = append(*s, frame{kw: kw, define: true, name: name})
	case "end":
		if len(*s) > 0 {
			*s = (*s)[:len(*s)-1]
		}
	case "else":
		if len(*s) == 0 {
			return
		}
		top := &(*s)[len(*s)-1]
		if k2, r2, _ := strings.Cut(rest, " "); k2 == "with" {
			top.dot = withDot(strings.TrimSpace(r2), s.parentDot())
		} else if top.kw == "with" {
			top.dot = s.parentDot()
		}
	}
}

func withDot(expr string, d dot) dot {
	if p, ok := ref(strings.TrimSpace(expr), d); ok {
		return dot{values: p}
	}
	return dot{}
}

// Mark is one mark read back from a rendered line.
type Mark struct {
	// Column is the 0-based rune offset in the stripped line where the mark stood.
	Column int
	// File and Line identify a template mark (Binding < 0); Line is 1-based.
	File, Line int
	// Binding is the binding number for begin/end marks, or -1.
	Binding int
	// Begin is true for a binding's begin mark, false for its end mark.
	Begin bool
}

// Strip removes every mark from s.
func Strip(s string) string {
	if !strings.Contains(s, markStart) {
		return s
	}
	var b strings.Builder
	last := 0
	for {
		start, end, _, ok := nextMark(s, last)
		if !ok {
			break
		}
		b.WriteString(s[last:start])
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// markStart begins every mark.
const markStart = " #@p"

// nextMark finds the first mark of s at or after offset from: a template
// mark " #@pr<file>.<line>@" or a binding's " #@pv<binding>b@" (begin) or
// " #@pv<binding>e@" (end). It returns the mark's span and what it says,
// its Column not set.
func nextMark(s string, from int) (start, end int, mk Mark, ok bool) {
	for from < len(s) {
		i := strings.Index(s[from:], markStart)
		if i < 0 {
			break
		}
		start = from + i
		if end, mk, ok = readMark(s, start+len(markStart)); ok {
			return start, end, mk, true
		}
		from = start + 1
	}
	return 0, 0, Mark{}, false
}

// readMark reads the rest of a mark from offset j of s, after its start.
func readMark(s string, j int) (end int, mk Mark, ok bool) {
	digits := func(k int) int { // the end of the digits from k
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		return k
	}
	if j >= len(s) {
		return 0, Mark{}, false
	}
	switch s[j] {
	case 'r':
		a := digits(j + 1)
		if a == j+1 || a >= len(s) || s[a] != '.' {
			return 0, Mark{}, false
		}
		b := digits(a + 1)
		if b == a+1 || b >= len(s) || s[b] != '@' {
			return 0, Mark{}, false
		}
		mk = Mark{Binding: -1}
		mk.File, _ = strconv.Atoi(s[j+1 : a])
		mk.Line, _ = strconv.Atoi(s[a+1 : b])
		return b + 1, mk, true
	case 'v':
		a := digits(j + 1)
		if a == j+1 || a+1 >= len(s) || s[a] != 'b' && s[a] != 'e' || s[a+1] != '@' {
			return 0, Mark{}, false
		}
		mk = Mark{Begin: s[a] == 'b'}
		mk.Binding, _ = strconv.Atoi(s[j+1 : a])
		return a + 2, mk, true
	}
	return 0, Mark{}, false
}

// ReadLine returns the marks of one rendered line and the line without them.
func ReadLine(line string) (string, []Mark) {
	return AppendLine(nil, line)
}

// AppendLine is ReadLine appending the line's marks to dst: a caller that
// reads every line of a render and keeps only what it makes of each
// line's marks reuses one slice, not one new slice per marked line (a
// CRD template's key lines are nearly all marked). The marks returned are
// dst's when the line has none.
func AppendLine(dst []Mark, line string) (string, []Mark) {
	if !strings.Contains(line, markStart) {
		return line, dst // every mark starts so
	}
	start, end, mk, ok := nextMark(line, 0)
	if !ok {
		return line, dst
	}
	if end == len(line) {
		// One mark, ending the line: a key line's template mark, most
		// marked lines. The line without it is the text before it.
		mk.Column = utf8.RuneCountInString(line[:start])
		return line[:start], append(dst, mk)
	}
	var b strings.Builder
	b.Grow(len(line) - (end - start))
	last := 0
	for ok {
		b.WriteString(line[last:start])
		last = end
		mk.Column = utf8.RuneCountInString(b.String())
		dst = append(dst, mk)
		start, end, mk, ok = nextMark(line, last)
	}
	b.WriteString(line[last:])
	return b.String(), dst
}
