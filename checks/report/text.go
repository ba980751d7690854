package report

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/plural"
)

// ANSI colours of the text formats on a terminal (Options.Color).
const (
	ansiReset  = "\033[0m"
	ansiBold   = "\033[1m"
	ansiDim    = "\033[2m"
	ansiRed    = "\033[31m"
	ansiYellow = "\033[33m"
	ansiCyan   = "\033[36m"
	ansiGreen  = "\033[32m"
)

// painter colours text when on is set, and leaves it alone otherwise.
type painter struct{ on bool }

func (p painter) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (p painter) severity(s checks.Severity, text string) string {
	switch s {
	case checks.Error:
		return p.paint(ansiBold+ansiRed, text)
	case checks.Warning:
		return p.paint(ansiYellow, text)
	}
	return p.paint(ansiCyan, text)
}

// ruleTally counts one rule's findings by severity.
type ruleTally struct {
	id     string
	counts Counts
}

// textState is what the text format keeps between batches: the file whose
// findings came last (a file's findings go under its name, given once)
// and the counts of the closing table.
type textState struct {
	// started is set once anything is written: a file's name then follows
	// a blank line.
	started bool
	file    string
	rules   map[string]*Counts
	// exact and startingPoints count the findings with a fix that
	// prodready fix applies, and those it applies with --all; described
	// those whose fix is described but not written here (a chart's or
	// overlay's, which prodready fix writes into their source when it
	// can, rendering again to verify it).
	exact, startingPoints, described int
	// cut counts the messages and fix descriptions shortened to
	// maxTextMessage.
	cut int
}

// maxTextMessage bounds a message in the text format, in characters: a
// finding stays one line that a terminal can show. The whole message is
// in every other format (-o wide for people).
const maxTextMessage = 140

// shortMessage is msg on one line (firstLine) and at most maxTextMessage
// characters, cut at a word with an ellipsis; cut reports whether any of
// it was left out.
func shortMessage(msg string) (short string, cut bool) {
	one := firstLine(msg)
	if utf8.RuneCountInString(one) <= maxTextMessage {
		return one, one != msg // most messages: no copy of them as runes
	}
	if !utf8.ValidString(one) {
		return cutAt([]rune(one), maxTextMessage) + " …", true // its bad bytes printed as U+FFFD, as before
	}
	return cutString(one, maxTextMessage) + " …", true
}

// cutString is cutAt for s, valid UTF-8 of more than n runes, without
// copying it as runes: the same text.
func cutString(s string, n int) string {
	end, space, i := 0, -1, 0
	for off := range s {
		if i > n/2 && s[off] == ' ' {
			space = off // the last space of runes n/2+1 to n, which cutAt looks for from n down
		}
		if i == n {
			end = off
			break
		}
		i++
	}
	if space >= 0 {
		end = space
	}
	return strings.TrimRight(s[:end], " ,;:(")
}

// cutAt is r cut to at most n runes, at a word when one ends past n/2.
func cutAt(r []rune, n int) string {
	end := n
	for i := n; i > n/2; i-- {
		if r[i] == ' ' {
			end = i
			break
		}
	}
	return strings.TrimRight(string(r[:end]), " ,;:(")
}

// shortKeepingEnd is shortMessage for a finding that another would print
// the same: it keeps the message's end, where what tells them apart is
// (the values sets of a render, "not with ci/a-values.yaml)"): the
// closing parenthesis whole when it is short, else its last words.
func shortKeepingEnd(msg string) (short string, cut bool) {
	one := firstLine(msg)
	if utf8.RuneCountInString(one) <= maxTextMessage {
		return one, one != msg
	}
	r := []rune(one)
	tail := []rune(closingGroup(one))
	if len(tail) == 0 || len(tail) > maxTail {
		tail = r[len(r)-maxTail:]
		if i := slices.Index(tail, ' '); i >= 0 {
			tail = tail[i+1:]
		}
	}
	return cutAt(r, maxTextMessage-len(tail)-3) + " … " + string(tail), true
}

// maxTail bounds the closing parenthesis shortMessage keeps.
const maxTail = 60

// closingGroup is the parenthesised group msg ends with ("(rendered from
// the chart x; only with values set y)"), "" when it ends otherwise.
func closingGroup(msg string) string {
	if !strings.HasSuffix(msg, ")") {
		return ""
	}
	depth := 0
	for i := len(msg) - 1; i >= 0; i-- {
		switch msg[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return msg[i:]
			}
		}
	}
	return ""
}

// inputRules are the rules whose findings say what could not be read,
// rendered or decoded, and why (checks.InputRules): the why comes last,
// so the text format never cuts their messages.
var inputRules = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range checks.InputRules() {
		m[r.ID] = true
	}
	return m
}()

// maxNamesPerReason is how many files not checked the text format names
// under each reason without -v.
const maxNamesPerReason = 3

// add writes the text format's lines for fs: each file's name
// once, then one line a finding, `  line:col  severity  message  rule-id`,
// and its fix on a second line when it has one.
func (t *textState) add(b *bufio.Writer, fs []checks.Finding, p painter) {
	if t.rules == nil {
		t.rules = map[string]*Counts{}
	}
	var num [20]byte
	apart := distinguish(fs)
	for i, f := range fs {
		c := t.rules[f.RuleID]
		if c == nil {
			c = &Counts{}
			t.rules[f.RuleID] = c
		}
		c.add([]checks.Finding{f})
		switch {
		case f.Fixable() && f.ExactFix():
			t.exact++
		case f.Fixable():
			t.startingPoints++
		case f.Fix != nil && f.Fix.Withheld == "":
			t.described++
		}
		if f.File != t.file || t.file == "" {
			if t.started {
				b.WriteByte('\n')
			}
			t.started = true
			t.file = f.File
			b.WriteString(p.paint(ansiBold, f.File))
			b.WriteByte('\n')
		}
		pos := strconv.AppendInt(num[:0], int64(f.Line), 10)
		pos = append(pos, ':')
		pos = strconv.AppendInt(pos, int64(f.Column), 10)
		msg, cut := firstLine(f.Message), false
		if apart[i] != same {
			msg = f.WithObject(msg)
		}
		switch {
		case inputRules[f.RuleID]:
		case apart[i] == byEnd:
			msg, cut = shortKeepingEnd(msg)
		default:
			msg, cut = shortMessage(msg)
		}
		if cut {
			t.cut++
		}
		fmt.Fprintf(b, "  %-8s %s  %s  %s\n", pos, p.severity(f.Severity, fmt.Sprintf("%-7s", f.Severity.String())), msg, p.paint(ansiDim, f.RuleID))
		if f.Fix != nil && (f.Fixable() || f.Fix.Withheld != "") {
			b.WriteString("           ")
			b.WriteString(p.paint(ansiGreen, fixLabel(f.Fix)))
			desc := f.Fix.Description
			if f.Fix.Withheld != "" {
				desc += " (withheld: " + f.Fix.Withheld + ")"
			}
			desc, cut := shortMessage(desc)
			if cut {
				t.cut++
			}
			b.WriteString(desc)
			b.WriteByte('\n')
		}
	}
}

// How a text line is told apart from another that would print the same.
const (
	same     = iota // no other line prints the same
	byObject        // it names its object
	byEnd           // it names its object and keeps its message's end
)

// distinguish says how each finding of fs is told apart from another of
// fs that would print the same, at the same line and column and of the
// same rule: by its object (objects that one template or values line
// renders, each pod a chart's values.yaml line makes), else by its
// message's end too (one object of several renders that differ in their
// values sets).
func distinguish(fs []checks.Finding) []int {
	type key struct {
		file, rule, msg string
		line, col       int
	}
	out := make([]int, len(fs))
	count := func(level int, text func(checks.Finding) string) {
		n := map[key]int{}
		keys := make([]key, len(fs))
		for i, f := range fs {
			if out[i] == level-1 {
				keys[i] = key{f.File, f.RuleID, text(f), f.Line, f.Column}
				n[keys[i]]++
			}
		}
		for i := range fs {
			if out[i] == level-1 && n[keys[i]] > 1 {
				out[i] = level
			}
		}
	}
	count(byObject, func(f checks.Finding) string { s, _ := shortMessage(f.Message); return s })
	count(byEnd, func(f checks.Finding) string { s, _ := shortMessage(f.WithObject(firstLine(f.Message))); return s })
	return out
}

// fixLabel starts a fix's line: "fix: " for an exact fix, which prodready
// fix applies, "fix (--all): " for a starting point, applied only when
// asked.
func fixLabel(fx *checks.Fix) string {
	if fx.Withheld != "" {
		return "no fix: "
	}
	if fx.Kind == checks.StartingPoint {
		return "fix (starting point, --all): "
	}
	return "fix: "
}

// close writes the text format's end: the files not checked by reason
// (with their names when verbose), the table of counts per rule and
// severity, the summary line and what prodready fix would fix.
func (t *textState) close(b *bufio.Writer, skipped []NotChecked, exempted []checks.Exempted, summary string, c Counts, verbose bool, p painter) {
	if len(skipped) > 0 {
		if t.started {
			b.WriteByte('\n')
		}
		fmt.Fprintf(b, "%s\n", p.paint(ansiBold, "Not checked: "+plural.Count(len(skipped), "file", "files")))
		type group struct {
			reason string
			paths  []string
		}
		var groups []*group
		byReason := map[string]*group{}
		for _, n := range skipped {
			g := byReason[n.Reason]
			if g == nil {
				g = &group{reason: n.Reason}
				byReason[n.Reason] = g
				groups = append(groups, g)
			}
			g.paths = append(g.paths, n.Path)
		}
		slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Compare(len(b.paths), len(a.paths)) })
		hidden := 0
		for _, g := range groups {
			reason := g.reason
			if !verbose {
				// A file's reasons are joined (a policy file whose
				// policies are not evaluated on some objects each):
				// one line, whole with -v or in -o wide.
				var cut bool
				if reason, cut = shortMessage(reason); cut {
					t.cut++
				}
			}
			fmt.Fprintf(b, "  %5d  %s\n", len(g.paths), reason)
			names := g.paths
			if !verbose && len(names) > maxNamesPerReason {
				names = names[:maxNamesPerReason]
			}
			for _, path := range names {
				fmt.Fprintf(b, "         %s\n", path)
			}
			if more := len(g.paths) - len(names); more > 0 {
				fmt.Fprintf(b, "         %s\n", p.paint(ansiDim, fmt.Sprintf("and %d more", more)))
				hidden += more
			}
		}
		if hidden > 0 {
			b.WriteString(p.paint(ansiDim, "  (-v names them all)") + "\n")
		}
	}
	if len(exempted) > 0 {
		if t.started || len(skipped) > 0 {
			b.WriteByte('\n')
		}
		t.started = true
		fmt.Fprintf(b, "%s\n", p.paint(ansiBold, "Exempted by the repository's exceptions (the cluster admits them): "+plural.Count(len(exempted), "finding", "findings")))
		shown := exempted
		if !verbose && len(shown) > maxNamesPerReason {
			shown = shown[:maxNamesPerReason]
		}
		for _, e := range shown {
			fmt.Fprintf(b, "  %s:%d  %s %s  %s, by %s at %s\n", e.Finding.File, e.Finding.Line, e.Finding.Object.Kind, e.Finding.Object.Name, e.Finding.RuleID, e.By, exceptionAt(e))
		}
		if more := len(exempted) - len(shown); more > 0 {
			fmt.Fprintf(b, "  %s\n", p.paint(ansiDim, fmt.Sprintf("and %d more (-v names them all)", more)))
		}
	}
	if len(t.rules) > 0 {
		var rows []ruleTally
		width := len("total")
		for id, rc := range t.rules {
			rows = append(rows, ruleTally{id, *rc})
			width = max(width, len(id))
		}
		slices.SortFunc(rows, func(a, b ruleTally) int {
			return cmp.Or(cmp.Compare(b.counts.Errors, a.counts.Errors), cmp.Compare(b.counts.Warnings, a.counts.Warnings), cmp.Compare(b.counts.Infos, a.counts.Infos), cmp.Compare(a.id, b.id))
		})
		b.WriteByte('\n')
		fmt.Fprintf(b, "  %-*s  %7s  %7s  %7s\n", width, "rule", p.severity(checks.Error, "  error"), p.severity(checks.Warning, "warning"), p.severity(checks.Info, "   info"))
		for _, r := range rows {
			fmt.Fprintf(b, "  %-*s  %7s  %7s  %7s\n", width, r.id, count(r.counts.Errors), count(r.counts.Warnings), count(r.counts.Infos))
		}
		fmt.Fprintf(b, "  %-*s  %7d  %7d  %7d\n", width, "total", c.Errors, c.Warnings, c.Infos)
	}
	b.WriteByte('\n')
	if t.cut > 0 {
		fmt.Fprintf(b, "%s cut short (…): -o wide shows them whole with each fix's edits; `prodready rules ID` explains a rule\n", plural.Count(t.cut, "line", "lines"))
	}
	if t.exact > 0 || t.startingPoints > 0 {
		fmt.Fprintf(b, "%d fixable (exact) with `prodready fix`, %d more with `prodready fix --all` (starting points: check their values against the app)\n", t.exact, t.startingPoints)
	}
	if t.described > 0 {
		fmt.Fprintf(b, "%s of charts and overlays %s a fix (-o wide): `prodready fix --all` writes each one their source takes, once rendering again shows it right, and says why it leaves others\n",
			plural.Count(t.described, "finding", "findings"), plural.Form(t.described, "describes", "describe"))
	}
	b.WriteString(p.paint(ansiBold, summary) + "\n")
}

// count is a table cell: empty for 0, so the counts stand out.
func count(n int) string {
	if n == 0 {
		return "·"
	}
	return strconv.Itoa(n)
}

// writeExemptedLines writes each exempted finding on a line of its own,
// `path:line: exempted: rule message (by exception at path:line)` (the
// wide and compact formats).
func writeExemptedLines(b *bufio.Writer, exempted []checks.Exempted) {
	for _, e := range exempted {
		fmt.Fprintf(b, "%s:%d: exempted: %s %s (by %s at %s)\n", e.Finding.File, e.Finding.Line, e.Finding.RuleID, firstLine(e.Finding.Message), e.By, exceptionAt(e))
	}
}

// writeNotCheckedLines writes each file not checked on a line of its own,
// `path: not checked: reason` (the wide and compact formats).
func writeNotCheckedLines(b *bufio.Writer, skipped []NotChecked) {
	for _, n := range skipped {
		fmt.Fprintf(b, "%s: not checked: %s\n", n.Path, n.Reason)
	}
}
