package tmplmark

import (
	"fmt"
	"strconv"
	"strings"
)

// What the marks can change. A marked render stripped of its marks is the
// render without them when no template computes anything from a text that
// holds marks: marks are text, and a template that compares, measures,
// cuts, re-quotes or parses such a text (`eq (include "x" .) "…"`,
// `include "x" . | trunc 63`, `$x := include "x" .`) can compute another
// result from it. Annotate notes, for every action, where a text that can
// hold marks is made and what becomes of it, so that [Table.Observable]
// can tell when one render is enough.
//
// A text can hold marks when it is the output of
//   - an include or template of a define that writes a template mark
//     (a key line in its body) or of one that writes such a text, or of a
//     name that is no define (a template file, whose top level carries
//     binding marks: an empty value still writes them);
//   - a tpl (its template text comes from values, which can include any
//     of the above);
//   - a toYaml or mustToYaml of a map the marked render's fromYaml parsed
//     from a marked text ([Carry]), when the render wrote any such mark
//     again.
//
// Such a text is unseen where it goes, unchanged but for indentation or
// quoting, to the output (nindent, indent, quote, squote, which leave the
// marks whole and in place; trim and default too when it holds template
// marks only), as the text tpl renders (whose marks then stand in what tpl
// writes), or into a function of the marked render that reads the text
// without its marks (a checksum, an encoding, fromYaml, …), after which
// nothing of the marks is left. Anywhere else (an argument, a condition, a
// variable, a template's data) the template may observe them. The analysis
// is lexical and errs one way only: what it cannot read is not unseen.

// tplText stands, as the define a use is in, for the top level of a text
// tpl may render: the output of tpl holds marks when a use there makes a
// text that holds them and writes it out.
const tplText = "\x00tpl"

// maxObserveDepth bounds how deep strings within strings are read as
// template text.
const maxObserveDepth = 8

// use is one place an action makes a text that may hold marks.
type use struct {
	kind   string // "include", "template", "tpl" or "toYaml"
	name   string // include or template: the literal name; "" when computed
	define string // the define the action is in; "" at a file's top level
	file   int    // the template file, as passed to Annotate
	line   int    // 1-based line of the action
	// bears is the most marks the text can hold where it goes unseen:
	// noMarks (a template may observe any), keyMarks (it goes through
	// trim or default, which leave template marks alone) or anyMarks.
	bears int
}

// What a text may hold, in order: no mark; template marks only, each
// right after a line's non-blank text (a define's key lines, the marks
// toYaml writes again), so that the text is empty, or blank at either
// end, as the text without them is; or any mark, a binding's too (a
// template file's top level writes one however empty the value).
const (
	noMarks = iota
	keyMarks
	anyMarks
)

// observation is what Annotate learns for Observable.
type observation struct {
	defines map[string]bool // every name a define or block declares
	marking map[string]bool // defines whose own body writes a template mark
	uses    []use
	// files says an action names Files: a template may read any file of
	// the chart, and hand it to tpl.
	files bool
	// unreadable says an action could not be read (an unterminated
	// string): nothing is known of what it does.
	unreadable bool
}

// transparent are the functions a marked text may go through on its way
// to the output: they leave every mark whole (no newline, quote or
// backslash in it) and do not depend on its length or content.
var transparent = map[string]bool{"nindent": true, "indent": true, "quote": true, "squote": true}

// keyTransparent are those that are transparent to a text holding
// template marks only: trim takes blanks from its ends, and default
// keeps it when it is not empty, both as they would without the marks.
var keyTransparent = map[string]bool{"trim": true, "default": true}

// stripping are the functions of the marked render ([Carry.Funcs]) that
// read their text without its marks: what they return is what Helm's
// return for the text without them.
var stripping = map[string]bool{
	"sha256sum": true, "sha1sum": true, "sha512sum": true, "adler32sum": true,
	"b64enc": true, "b32enc": true,
	"fromYaml": true, "fromYamlArray": true, "fromJson": true, "fromJsonArray": true,
}

// makers are the functions whose result may hold marks, by the kind of
// use they are.
var makers = map[string]string{"include": "include", "tpl": "tpl", "toYaml": "toYaml", "mustToYaml": "toYaml"}

// lexItem is one item of an action's text.
type lexItem struct {
	kind byte   // 'w' word, 's' string, '(' , ')', '|', '=' (:= or =), ','
	text string // a word, or a string's value
}

// lexAction splits an action's inner text into items; ok is false when it
// cannot (an unterminated string).
func lexAction(s string) (items []lexItem, ok bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isReSpace(c):
			i++
		case c == '(' || c == ')' || c == '|' || c == ',':
			items = append(items, lexItem{kind: c})
			i++
		case c == ':' && i+1 < len(s) && s[i+1] == '=':
			items = append(items, lexItem{kind: '='})
			i += 2
		case c == '=':
			items = append(items, lexItem{kind: '='})
			i++
		case c == '"':
			j := closingQuote(s, i)
			if j < 0 {
				return nil, false
			}
			v, err := strconv.Unquote(s[i : j+1])
			if err != nil {
				return nil, false
			}
			items = append(items, lexItem{kind: 's', text: v})
			i = j + 1
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return nil, false
			}
			items = append(items, lexItem{kind: 's', text: s[i+1 : i+1+j]})
			i += j + 2
		case c == '\'':
			j := closingQuote(s, i)
			if j < 0 {
				return nil, false
			}
			items = append(items, lexItem{kind: 'w', text: s[i : j+1]})
			i = j + 1
		default:
			j := i
			for j < len(s) && !isReSpace(s[j]) && strings.IndexByte("()|,=\"`'", s[j]) < 0 && !(s[j] == ':' && j+1 < len(s) && s[j+1] == '=') {
				j++
			}
			items = append(items, lexItem{kind: 'w', text: s[i:j]})
			i = j
		}
	}
	return items, true
}

// observe notes the uses of one action (its inner text, at line line of
// file file) inside define define ("" at top level).
//
// dotUse, when not 0, is the number plus one of the use whose text is the
// dot (a with's): the action's use of the dot is where that text goes.
// It returns, for a with whose dot becomes a maker's text, the number plus
// one of that use.
func (t *Table) observe(file, line int, inner, define string, dotUse int) (bind int) {
	if inner == "" || strings.HasPrefix(inner, "/*") {
		return 0
	}
	o := &t.obs
	if dotUse == 0 && !mayUse(inner) {
		return 0
	}
	items, ok := lexAction(inner)
	if !ok {
		// An action that names no maker makes no text that holds marks,
		// and none can be in its reach unless a use elsewhere is unsafe.
		for w := range makers {
			if strings.Contains(inner, w) {
				o.unreadable = true
			}
		}
		if strings.Contains(inner, "template") || dotUse > 0 {
			o.unreadable = true
		}
		return 0
	}
	// output: the pipeline's value is written out; otherwise it is a
	// condition, a range, a variable's or a template's data.
	output, with := true, false
	if len(items) > 0 && items[0].kind == 'w' {
		switch items[0].text {
		case "define":
			if len(items) > 1 && items[1].kind == 's' {
				o.define(items[1].text)
			}
			return 0
		case "end", "break", "continue":
			return 0
		case "else":
			items = items[1:]
			if len(items) == 0 || items[0].kind != 'w' || items[0].text != "if" && items[0].text != "with" {
				return 0
			}
			with = items[0].text == "with"
			items, output = items[1:], false
		case "if", "with", "range":
			with = items[0].text == "with"
			items, output = items[1:], false
		case "template", "block":
			name := ""
			if len(items) > 1 && items[1].kind == 's' {
				name = items[1].text
				if items[0].text == "block" {
					o.define(name)
				}
			}
			// The template's output is written where the action stands.
			o.uses = append(o.uses, use{kind: "template", name: name, define: define, file: file, line: line, bears: anyMarks})
			if len(items) < 2 {
				return 0
			}
			items, output = items[2:], false
		}
	}
	// A string may be template text for tpl.
	for _, it := range items {
		if it.kind == 's' && strings.Contains(it.text, "{{") && t.obsDepth < maxObserveDepth {
			t.obsDepth++
			t.ObserveText(it.text)
			t.obsDepth--
		}
	}
	// A declaration or assignment keeps the value in a variable.
	depth := 0
	decl := false
scan:
	for i, it := range items {
		switch it.kind {
		case '(':
			depth++
		case ')':
			depth--
		case '=':
			if depth == 0 {
				items, output, decl = items[i+1:], false, true
				break scan
			}
		}
	}
	if !o.files && namesFiles(inner) {
		o.files = true
	}
	// Each command's first item, and each parenthesis's match.
	isHead := make([]bool, len(items))
	opener := make([]int, len(items))
	var open []int
	head := true
	for i, it := range items {
		isHead[i], head = head, false
		switch it.kind {
		case '(':
			open = append(open, i)
			head = true
		case ')':
			if len(open) == 0 {
				o.unreadable = true
				return 0
			}
			opener[i], open = open[len(open)-1], open[:len(open)-1]
		case '|':
			head = true
		}
	}
	if len(open) > 0 {
		o.unreadable = true
		return 0
	}
	if dotUse > 0 && dotUse <= len(o.uses) {
		u := &o.uses[dotUse-1]
		u.bears = min(u.bears, dotBears(items, output, isHead, opener))
	}
	// A maker at a command's head makes a text that may hold marks, seen
	// or not by where it goes.
	depth = 0
	for i, it := range items {
		switch it.kind {
		case '(':
			depth++
		case ')':
			depth--
		case 'w':
			kind, ok := makers[it.text]
			if !ok || !isHead[i] {
				continue
			}
			u := use{kind: kind, define: define, file: file, line: line}
			if kind == "include" && i+1 < len(items) && items[i+1].kind == 's' {
				u.name = items[i+1].text
			}
			u.bears = bearsAfter(items, i, depth, output, isHead, opener)
			if i == 0 && with && !decl && !strippedAfter(items) {
				// The text becomes the with's dot: seen by the with as
				// empty or not (which template marks leave as it is), then
				// where the body's actions take the dot.
				u.bears = min(bearsAfter(items, 0, 0, true, isHead, opener), keyMarks)
				bind = len(o.uses) + 1
			}
			o.uses = append(o.uses, u)
		}
	}
	return bind
}

// blankTrim reports whether items[at] starts the command trimSuffix or
// trimPrefix of one string of white space ("\n"): like trim, it leaves
// template marks alone, which stand right after a line's non-blank text.
func blankTrim(items []lexItem, at int) bool {
	if w := items[at].text; w != "trimSuffix" && w != "trimPrefix" {
		return false
	}
	if at+1 >= len(items) || items[at+1].kind != 's' || strings.TrimSpace(items[at+1].text) != "" || items[at+1].text == "" {
		return false
	}
	return at+2 == len(items) || items[at+2].kind == '|' || items[at+2].kind == ')'
}

// strippedAfter reports whether a top-level command of the pipeline is a
// stripping function.
func strippedAfter(items []lexItem) bool {
	depth := 0
	for i, it := range items {
		switch it.kind {
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 && i+1 < len(items) && items[i+1].kind == 'w' && stripping[items[i+1].text] {
				return true
			}
		}
	}
	return false
}

// dotBears returns the most marks the dot may hold unseen by an action
// (its items after any keyword or declaration): anyMarks when it names no
// dot; where the dot is the pipeline's first command, alone or the one
// argument of a transparent or stripping function, what bearsAfter says
// of it; noMarks anywhere else (an argument, a field of it, a condition).
func dotBears(items []lexItem, output bool, isHead []bool, opener []int) int {
	dots := 0
	for _, it := range items {
		if it.kind == 'w' && strings.HasPrefix(it.text, ".") {
			dots++
		}
	}
	switch {
	case dots == 0:
		return anyMarks
	case dots > 1 || len(items) == 0:
		return noMarks
	case items[0].kind == 'w' && items[0].text == ".":
		return bearsAfter(items, 0, 0, output, isHead, opener)
	case len(items) >= 2 && items[0].kind == 'w' && items[1].kind == 'w' && items[1].text == "." && (len(items) == 2 || items[2].kind == '|'):
		b := bearsAfter(items, 0, 0, output, isHead, opener)
		switch f := items[0].text; {
		case stripping[f]:
			return anyMarks
		case keyTransparent[f]:
			return min(b, keyMarks)
		case transparent[f]:
			return b
		}
	}
	return noMarks
}

// ObserveText notes the uses of the actions of src, a text a template
// may hand to tpl (a values or chart file, or a string in a template):
// what tpl makes of it is rendered with the marked render's templates,
// so its actions can observe marks as a template's can.
func (t *Table) ObserveText(src string) {
	if !strings.Contains(src, "{{") {
		return
	}
	var st stack
	for _, tk := range tokenize(src) {
		if tk.action {
			define := st.defineName()
			if len(st) == 0 || define == "" {
				define = tplText // what it writes, tpl returns
			}
			bind := t.observe(-1, 0, tk.inner, define, st.markedDot())
			st.apply(tk.inner)
			st.bindDot(tk.inner, bind)
		}
	}
}

// mayUse reports whether an action's text names anything observe
// notes: a maker, a define, block or template, Files, or a string that
// may be template text. Most actions (a values path, an if, an end) name
// none and are not read further.
func mayUse(inner string) bool {
	for _, w := range [...]string{"include", "tpl", "toYaml", "mustToYaml", "template", "define", "block", "Files", "{{"} {
		if strings.Contains(inner, w) {
			return true
		}
	}
	return false
}

// namesFiles reports whether an action's text names Files as a field
// (.Files, $.Files) or a key ("Files"), not as the end of another name
// (.Values.ruleFiles).
func namesFiles(inner string) bool {
	for i := 0; ; {
		j := strings.Index(inner[i:], "Files")
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len("Files")
		before := at > 0 && (inner[at-1] == '.' || inner[at-1] == '"' || inner[at-1] == '`')
		after := end == len(inner) || !(inner[end] == '_' || inner[end] >= 'a' && inner[end] <= 'z' || inner[end] >= 'A' && inner[end] <= 'Z' || inner[end] >= '0' && inner[end] <= '9')
		if before && after {
			return true
		}
		i = end
	}
}

// bearsAfter returns the most marks the value of the command starting at
// items[at], depth parentheses deep, may hold unseen: it reaches the
// output (when output) or a stripping function through transparent
// functions only. A parenthesised command's value goes on as the value of
// the command it makes up alone (`(include "x" .) | fromYaml`), or as the
// text of the tpl it is given to; as any other argument it may be seen.
func bearsAfter(items []lexItem, at, depth int, output bool, isHead []bool, opener []int) int {
	bears := anyMarks
	inner := 0 // parentheses opened within the current command
	for i := at; i < len(items); i++ {
		switch items[i].kind {
		case '(':
			inner++
		case ')':
			if inner > 0 {
				inner--
				continue
			}
			o := opener[i]
			whole := isHead[o] && (i+1 == len(items) || items[i+1].kind == '|' || items[i+1].kind == ')')
			tplText := o > 0 && items[o-1].kind == 'w' && items[o-1].text == "tpl" && isHead[o-1]
			if !whole && !tplText {
				return noMarks
			}
			depth--
		case '|':
			if inner != 0 {
				continue
			}
			if i+1 >= len(items) || items[i+1].kind != 'w' {
				return noMarks
			}
			switch w := items[i+1].text; {
			case stripping[w]:
				return bears
			case keyTransparent[w] || blankTrim(items, i+1):
				bears = min(bears, keyMarks)
			case !transparent[w]:
				return noMarks
			}
		}
	}
	if !output || depth != 0 {
		return noMarks
	}
	return bears
}

// define records that name is declared.
func (o *observation) define(name string) {
	if o.defines == nil {
		o.defines = map[string]bool{}
	}
	o.defines[name] = true
}

// marks records that define writes a template mark of its own.
func (o *observation) marks(define string) {
	if o.marking == nil {
		o.marking = map[string]bool{}
	}
	o.marking[define] = true
}

// Observable returns why a render of the templates annotated into t could
// compute something from its marks, or "" when it cannot: then the marked
// render stripped of its marks ([Strip]) is the render of the templates
// as written, byte for byte, given that no file of the chart holds text
// that reads as a mark and that every text tpl may render was observed
// ([Table.ObserveText], [Table.ReadsFiles]; the caller's to do).
// remarked says whether the render's [Carry] wrote marks again through
// toYaml ([Carry.Remarked]); isFile whether a name is a template file's
// (the engine's name for it, an include of which runs its top level).
func (t *Table) Observable(remarked bool, isFile func(name string) bool) string {
	o := &t.obs
	if o.unreadable {
		return "an action could not be read"
	}
	level := map[string]int{}
	for d := range o.marking {
		level[d] = keyMarks
	}
	holds := func(u use) int {
		switch u.kind {
		case "tpl":
			return level[tplText]
		case "toYaml":
			if remarked {
				return keyMarks
			}
			return noMarks
		}
		switch {
		case u.name == "":
			return anyMarks // a computed name: any template, a file too
		case o.defines[u.name]:
			return level[u.name]
		case isFile(u.name):
			return anyMarks
		}
		// No such template: a render that ran it failed.
		return noMarks
	}
	by := map[string]use{} // the use that set a define's level
	for changed := true; changed; {
		changed = false
		for _, u := range o.uses {
			if h := holds(u); u.define != "" && h > level[u.define] {
				level[u.define], by[u.define], changed = h, u, true
			}
		}
	}
	for _, u := range o.uses {
		if holds(u) > u.bears {
			what := u.kind
			if u.name != "" {
				what += " " + strconv.Quote(u.name)
			}
			why := fmt.Sprintf("template %d line %d: the text of %s may hold marks a template can see", u.file, u.line, what)
			// Say, for the first define on the way, what marks it.
			d := u.name
			if u.kind == "tpl" {
				d = tplText
			}
			if b, ok := by[d]; ok {
				why += fmt.Sprintf(" (through template %d line %d: %s %q)", b.file, b.line, b.kind, b.name)
			}
			return why
		}
	}
	return ""
}

// Clone returns a copy of t that shares its bindings, which neither
// changes: a render may reuse the annotation another render of the same
// templates made, and note more (ObserveText) or Forget without touching
// it.
func (t *Table) Clone() Table {
	c := Table{Bindings: t.Bindings[:len(t.Bindings):len(t.Bindings)]}
	o := &t.obs
	c.obs = observation{
		uses:       append([]use(nil), o.uses...),
		files:      o.files,
		unreadable: o.unreadable,
	}
	if o.defines != nil {
		c.obs.defines = make(map[string]bool, len(o.defines))
		for k, v := range o.defines {
			c.obs.defines[k] = v
		}
	}
	if o.marking != nil {
		c.obs.marking = make(map[string]bool, len(o.marking))
		for k, v := range o.marking {
			c.obs.marking[k] = v
		}
	}
	return c
}

// Forget drops what Annotate and ObserveText noted for Observable: the
// names it holds are slices of the templates' text, which a Table kept
// for a render's source maps would otherwise keep alive.
func (t *Table) Forget() { t.obs = observation{} }

// ReadsFiles reports whether an action names Files (the chart's files a
// template may read, and hand to tpl).
func (t *Table) ReadsFiles() bool { return t.obs.files }

// UsesTpl reports whether any template calls tpl.
func (t *Table) UsesTpl() bool {
	for _, u := range t.obs.uses {
		if u.kind == "tpl" {
			return true
		}
	}
	return false
}

// closingQuote is the index of the quote that closes the one at s[i] (a
// backslash escapes the byte after it), or -1 when none does.
func closingQuote(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] != s[i] {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s) {
		return -1
	}
	return j
}
