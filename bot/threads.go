package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/internal/inert"
	"github.com/prodready/prodready/internal/plural"
)

// A review thread is about one concern: one finding, or the findings of one
// container (below error: an error has a thread of its own). Its key is
// stable across pushes: a finding's fingerprint, or a hash of the
// container's object and name, so that a thread is edited in place as its
// findings change rather than resolved and posted again.

// ThreadMarker is the hidden HTML comment that carries a thread's key in
// the first comment of every thread the bot posts.
func ThreadMarker(key string) string { return "<!-- prodready:thread=" + key + " -->" }

var threadRE = regexp.MustCompile(`^<!-- prodready:thread=([0-9a-zA-Z_-]+) -->$`)

// ThreadKey returns the key of the thread marker in a comment's trailer
// (the markers that end it, where the bot writes them; a marker elsewhere
// is text quoted from a file, not the bot's), "" for a comment without
// one (the bot's comments before threads had keys: their key is their
// first fingerprint).
func ThreadKey(body string) string {
	for _, m := range trailer(body) {
		if sm := threadRE.FindStringSubmatch(m); sm != nil {
			return sm[1]
		}
	}
	if fps := Fingerprints(body); len(fps) > 0 {
		return fps[0]
	}
	return ""
}

// concern is the thread a finding belongs to: its key and where it
// anchors.
func concern(f checks.Finding) (key string, anchor int, container string) {
	if c := f.Container(); c != "" && f.ContainerLine > 0 && f.Severity < checks.Error {
		h := sha256.Sum256([]byte("container\x00" + f.Object.Group + "\x00" + f.Object.Kind + "\x00" + f.Object.Namespace + "\x00" + f.Object.Name + "\x00" + c))
		return hex.EncodeToString(h[:8]), f.ContainerLine, c
	}
	return f.Fingerprint(), f.Line, ""
}

// draftThread is a thread being built for one file.
type draftThread struct {
	key       string
	anchor    int
	container string
	findings  []int // indexes into the file's findings
	sugs      []Suggestion
	notes     []string
}

// threads turns one file's inline-eligible findings into threads: one per
// concern, anchored at the finding's line or the container's "- name:"
// line, each carrying the suggestion of the lines it owns. Suggestions of
// different threads never overlap: a fix that would change lines another
// thread's suggestion changes is carried by the thread that owns the most
// of its findings, and the others say so. Findings no thread can anchor on
// the diff are returned as outside.
func (rv *Reviewer) threads(ctx context.Context, path string, src []byte, patch string, fs []checks.Finding, rendered map[string]bool) ([]Comment, []checks.Finding) {
	d, err := ParsePatch(patch)
	if err != nil {
		LoggerFrom(ctx).Warn("unreadable diff; findings go to the summary", "file", path, "err", err.Error())
		d = &Diff{}
	}
	var ts []*draftThread
	byKey := map[string]*draftThread{}
	of := make([]*draftThread, len(fs))
	for i, f := range fs {
		key, anchor, container := concern(f)
		t := byKey[key]
		if t == nil {
			t = &draftThread{key: key, anchor: anchor, container: container}
			byKey[key] = t
			ts = append(ts, t)
		}
		t.findings = append(t.findings, i)
		of[i] = t
	}
	ts = sameSaid(atOneLine(ts, of, fs), of, fs)
	var sugs []Suggestion
	if rv.Suggest != nil && len(src) > 0 {
		sugs, err = rv.Suggest(path, src, fs)
		if err != nil {
			LoggerFrom(ctx).Warn("no suggestions for file", "file", path, "err", err.Error())
			sugs = nil
		}
	}
	creds := credentialLines(src, fs)
	// carried are the findings whose fix another thread's suggestion
	// carries: their thread says so once the owner's lines are final.
	type carry struct {
		owner *draftThread
		k     int
	}
	carried := map[*draftThread][]carry{}
	for _, part := range groupSuggestions(sugs) {
		s := part[0]
		owner := owningThread(s, of, len(fs))
		if owner == nil {
			continue
		}
		switch {
		case len(part) > 1:
			owner.notes = append(owner.notes, fmt.Sprintf("Its fix changes %d separate places: `prodready fix` applies it.", len(part)))
			continue
		case s.StartLine < 1 || s.EndLine < s.StartLine || !d.InOneHunk(s.StartLine, s.EndLine) || !d.AddedIn(s.StartLine, s.EndLine) || repeatsCredential(part, creds):
			continue
		}
		owner.sugs = append(owner.sugs, s)
		for _, k := range s.Findings {
			if k >= 0 && k < len(fs) && of[k] != owner {
				carried[of[k]] = append(carried[of[k]], carry{owner, k})
			}
		}
	}
	// A thread with several suggestions carries them as one when the lines
	// between them are its own and in one hunk; else the first.
	claimed := func(t *draftThread, start, end int) bool {
		for _, o := range ts {
			if o == t {
				continue
			}
			for _, s := range o.sugs {
				if s.StartLine <= end && s.EndLine >= start {
					return true
				}
			}
		}
		return false
	}
	lines := strings.SplitAfter(string(src), "\n")
	for _, t := range ts {
		if len(t.sugs) < 2 {
			continue
		}
		sort.Slice(t.sugs, func(i, j int) bool { return t.sugs[i].StartLine < t.sugs[j].StartLine })
		first, last := t.sugs[0], t.sugs[len(t.sugs)-1]
		repeated := 0 // the unchanged lines between them, which the one suggestion repeats
		for i := 1; i < len(t.sugs); i++ {
			repeated += max(t.sugs[i].StartLine-t.sugs[i-1].EndLine-1, 0)
		}
		if repeated <= maxRepeatedLines && d.InOneHunk(first.StartLine, last.EndLine) && !claimed(t, first.StartLine, last.EndLine) && last.EndLine <= len(lines) {
			var b strings.Builder
			var idx []int
			for i, s := range t.sugs {
				if i > 0 {
					for n := t.sugs[i-1].EndLine + 1; n < s.StartLine; n++ {
						b.WriteString(lines[n-1])
					}
				}
				text := s.Text
				if text != "" && !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				b.WriteString(text)
				idx = append(idx, s.Findings...)
			}
			t.sugs = []Suggestion{{StartLine: first.StartLine, EndLine: last.EndLine, Text: b.String(), Findings: idx}}
			continue
		}
		t.notes = append(t.notes, "More of its fixes change lines apart from this suggestion: `prodready fix` applies them.")
		t.sugs = t.sugs[:1]
	}
	// A thread with a suggestion starts at its anchor (the finding's line,
	// the container's "- name:" line) when the lines between are added,
	// in the suggestion's hunk and no other thread's, and few: the
	// suggestion then repeats them unchanged.
	for _, t := range ts {
		if len(t.sugs) != 1 || !d.IsAdded(t.anchor) {
			continue
		}
		s := t.sugs[0]
		lo, hi := min(t.anchor, s.StartLine), max(t.anchor, s.EndLine)
		repeated := (hi - lo) - (s.EndLine - s.StartLine)
		if (lo == s.StartLine && hi == s.EndLine) || hi > len(lines) || repeated > maxRepeatedLines || !d.InOneHunk(lo, hi) || !d.AddedIn(lo, hi) || claimed(t, lo, hi) {
			continue
		}
		text := s.Text
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text = strings.Join(lines[lo-1:s.StartLine-1], "") + text + strings.Join(lines[s.EndLine:hi], "")
		t.sugs[0] = Suggestion{StartLine: lo, EndLine: hi, Text: text, Findings: s.Findings}
	}
	for _, t := range ts {
		for _, c := range carried[t] {
			for _, s := range c.owner.sugs {
				if slices.Contains(s.Findings, c.k) {
					t.notes = appendOnce(t.notes, fmt.Sprintf("The suggestion on line %d (the thread about %s) fixes `%s` too: its lines overlap.", s.StartLine, c.owner.about(fs, fs[c.k]), fs[c.k].RuleID))
				}
			}
		}
	}
	var out []Comment
	var outside []checks.Finding
	for _, t := range ts {
		group := make([]checks.Finding, len(t.findings))
		for i, k := range t.findings {
			group[i] = fs[k]
		}
		c := Comment{Path: path, Key: t.key, Findings: group, Notes: t.notes, Container: t.container}
		switch {
		case len(t.sugs) == 1:
			s := t.sugs[0]
			c.StartLine, c.Line, c.Suggestion = s.StartLine, s.EndLine, &s
		case d.IsAdded(t.anchor):
			c.StartLine, c.Line = t.anchor, t.anchor
		default:
			at := 0
			for _, f := range group {
				if d.IsAdded(f.Line) {
					at = f.Line
					break
				}
			}
			if at == 0 {
				// A line of this file the pull request adds that brings
				// the finding about (replicas: 3, which asks for a
				// spread) or writes part of it.
				for _, f := range group {
					if p, ok := addedPartIn(f, path, d); ok {
						at = p.Line
						c.Notes = append(c.Notes, partNote(f, p))
						break
					}
				}
			}
			if at == 0 {
				for _, f := range group {
					if rendered[f.Fingerprint()] {
						if n := nearRemoval(d, src, f.Line); n > 0 {
							at, c.Unchanged = n, true
							break
						}
					}
				}
			}
			if at == 0 {
				outside = append(outside, group...)
				continue
			}
			c.StartLine, c.Line = at, at
		}
		for _, f := range group {
			c.Fingerprints = append(c.Fingerprints, f.Fingerprint())
		}
		c.Fingerprint = c.Fingerprints[0]
		c.Body = ThreadBody(c, "suggestion")
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out, outside
}

// addedPartIn returns the first of f's Parts in file (the file of its
// thread) on a line the pull request adds, and whether there is one.
func addedPartIn(f checks.Finding, file string, d *Diff) (checks.Place, bool) {
	for _, p := range f.Parts {
		if p.File == file && d.IsAdded(p.Line) {
			return p, true
		}
	}
	return checks.Place{}, false
}

// partNote says, in a thread on line p of f's Part, where f is and what
// the line has to do with it.
func partNote(f checks.Finding, p checks.Place) string {
	switch {
	case p.Cause:
		return fmt.Sprintf("It is at line %d; this line's value brings it about.", f.Line)
	case p.Home:
		return fmt.Sprintf("Its fix edits line %d.", f.Line)
	default:
		return fmt.Sprintf("Line %d writes it, with this line's value in it.", f.Line)
	}
}

// maxRepeatedLines is how many unchanged lines a suggestion repeats at
// most, to start at its thread's anchor or to carry a thread's several
// suggestions as one. A container whose fix is 240 lines below its name
// (a long env list: argo-cd's applicationset controller) has its
// suggestion where the fix changes lines, and a container whose fixes
// are 550 lines apart in a values file (loki's shared livenessProbe and a
// component's resources) has the first, not a block that repeats them.
const maxRepeatedLines = 20

// atOneLine makes one thread of the threads of one container's findings
// at one line, when the container is written in another file than they
// are (a values line whose "resources: {}" both its requests' fixes
// change): with no "- name:" line in the file to gather at, they gather
// at the line they share. Findings of the container at other lines of the
// file keep their threads, each with its own suggestion. The first keeps
// its key; of is updated to match.
func atOneLine(ts, of []*draftThread, fs []checks.Finding) []*draftThread {
	type where struct {
		line      int
		object    checks.ObjectRef
		container string
	}
	byPlace := map[where]*draftThread{}
	out := ts[:0]
	for _, t := range ts {
		f := fs[t.findings[0]]
		c := f.Container()
		if t.container != "" || c == "" || len(t.findings) != 1 || f.Severity >= checks.Error {
			out = append(out, t)
			continue
		}
		w := where{t.anchor, f.Object.Object(), c}
		into := byPlace[w]
		if into == nil {
			byPlace[w] = t
			out = append(out, t)
			continue
		}
		into.container = c
		into.absorb(t, of)
	}
	return out
}

// sameSaid makes one thread of the threads that say the same at one
// place about different objects, but for the object's name: a values line
// several of a chart's objects take (a mutating and a validating
// webhook's timeout), a base an overlay builds more than once (under
// three name prefixes). The first of them keeps its key and takes the
// others' findings, whose fingerprint markers it carries; of is updated
// to match.
func sameSaid(ts, of []*draftThread, fs []checks.Finding) []*draftThread {
	bySaying := map[string]*draftThread{}
	out := ts[:0]
	for _, t := range ts {
		var b strings.Builder
		fmt.Fprintf(&b, "%d\x00%s", t.anchor, t.container)
		for _, k := range t.findings {
			said := fs[k].WithoutObject()
			if name := fs[k].Object.Name; name != "" {
				said = strings.ReplaceAll(said, `"`+name+`"`, "\x01") // as a message quotes it (%q)
			}
			b.WriteString("\x00" + fs[k].RuleID + "\x00" + said)
		}
		into := bySaying[b.String()]
		if into == nil {
			bySaying[b.String()] = t
			out = append(out, t)
			continue
		}
		into.absorb(t, of)
	}
	return out
}

// absorb makes t's findings the thread's, of pointing them at it.
func (into *draftThread) absorb(t *draftThread, of []*draftThread) {
	into.findings = append(into.findings, t.findings...)
	for _, k := range t.findings {
		of[k] = into
	}
}

// owningThread is the thread that holds the most of a suggestion's
// findings (the first of them on a tie), nil when it names none.
func owningThread(s Suggestion, of []*draftThread, n int) *draftThread {
	count := map[*draftThread]int{}
	var best *draftThread
	for _, k := range s.Findings {
		if k < 0 || k >= n {
			continue
		}
		t := of[k]
		count[t]++
		if best == nil || count[t] > count[best] {
			best = t
		}
	}
	return best
}

// about names what a thread is about, for the note of another thread,
// whose finding is other: the rule, and its object when other is of the
// same rule on another object (one values line sets a chart's mutating
// and validating webhooks).
func (t *draftThread) about(fs []checks.Finding, other checks.Finding) string {
	if t.container != "" {
		return "container " + inert.Code(t.container)
	}
	f := fs[t.findings[0]]
	o := f.Object
	if f.RuleID == other.RuleID && o.Name != "" && o.Object() != other.Object.Object() {
		return "`" + f.RuleID + "` on " + inert.Text(o.Kind) + " " + inert.Code(o.Name)
	}
	return "`" + f.RuleID + "`"
}

func appendOnce(ss []string, s string) []string {
	if slices.Contains(ss, s) {
		return ss
	}
	return append(ss, s)
}

// ThreadBody renders a thread's first comment, readable at a glance: a
// first line with the severity and the rule (for a container, one line per
// finding), one sentence of why each matters, the suggestion when c has
// one (its block's info string is info: "suggestion" on GitHub,
// "suggestion:-0+N" on GitLab), the notes of fixes other threads carry,
// and folded below the whole messages, fix descriptions and rule docs. It
// ends with the thread's key and one fingerprint marker per finding.
func ThreadBody(c Comment, info string) string {
	var b strings.Builder
	fs := c.Findings
	if len(fs) == 0 {
		return c.Body // a thread made by hand, without findings
	}
	startingPoint := c.Suggestion != nil && slices.ContainsFunc(fs, func(f checks.Finding) bool { return f.Fixable() && !f.ExactFix() })
	if len(fs) == 1 {
		f := fs[0]
		fmt.Fprintf(&b, "%s **%s** `%s`: %s\n", severityIcon(f.Severity), f.Severity, f.RuleID, inert.Text(firstSentence(f.Message)))
	} else {
		worst := fs[0].Severity
		for _, f := range fs {
			worst = max(worst, f.Severity)
		}
		what := "these findings"
		objects := objectsOf(fs)
		switch {
		case c.Container != "" && objects != "":
			what = "container " + inert.Code(c.Container) + " of " + objects
		case c.Container != "":
			what = "container " + inert.Code(c.Container)
		case objects != "":
			what = objects
		}
		fmt.Fprintf(&b, "%s **%s** %s in %s:\n\n", severityIcon(worst), worst, plural.Count(len(fs), "finding", "findings"), what)
		var said []string
		for _, f := range fs {
			said = appendOnce(said, fmt.Sprintf("- %s `%s`: %s\n", severityIcon(f.Severity), f.RuleID, inert.Text(firstSentence(f.WithoutObject()))))
		}
		b.WriteString(strings.Join(said, ""))
	}
	for _, n := range c.Notes {
		b.WriteString("\n" + n + "\n")
	}
	if c.Suggestion != nil {
		if startingPoint {
			b.WriteString("\n" + StartingPointLine + "\n")
		}
		b.WriteString("\n" + SuggestionBlockWith(c.Suggestion.Text, info) + "\n")
	}
	b.WriteString("\n<details><summary>Why and how to fix</summary>\n\n")
	var why []string // each once: a thread about several objects says the same of each
	for _, f := range fs {
		var w strings.Builder
		msg := f.Message
		if len(fs) > 1 {
			msg = f.WithoutObject() // the first line names the objects
		}
		fmt.Fprintf(&w, "- `%s`: %s", f.RuleID, inert.Text(msg))
		if f.Fix != nil && f.Fix.Description != "" {
			label := "Fix"
			if f.Fix.Kind == checks.StartingPoint {
				label = "Fix (starting point)"
			}
			fmt.Fprintf(&w, " %s: %s", label, inert.Text(f.Fix.Description))
			if f.Fix.Withheld != "" {
				fmt.Fprintf(&w, " (withheld: %s)", inert.Text(f.Fix.Withheld))
			}
		}
		if r := catalog.Default().Lookup(f.RuleID); r != nil {
			if r.Why != "" {
				fmt.Fprintf(&w, " Why: %s.", inert.Text(strings.TrimSuffix(r.Why, ".")))
			}
			if r.Ref != "" {
				fmt.Fprintf(&w, " [Docs](%s)", r.Ref)
			}
		}
		why = appendOnce(why, w.String()+"\n")
	}
	b.WriteString(strings.Join(why, ""))
	b.WriteString("\nTo ignore it, add `# prodready:ignore rule-id reason` on its line or the line above.\n</details>\n\n")
	var t strings.Builder
	t.WriteString(ThreadMarker(c.Key) + "\n")
	for _, f := range fs {
		t.WriteString(FingerprintMarker(f.Fingerprint()) + "\n")
	}
	// The trailer is kept whole when the text is cut: it is what the bot
	// finds its thread by.
	return Truncate(b.String(), MaxBodyChars-len([]rune(t.String()))) + t.String()
}

// objectsOf names the objects fs are about, each once, in order:
// "Deployment `web`", or "Pod `a`, Pod `b` and Pod `c`"; "" when none is
// named.
func objectsOf(fs []checks.Finding) string {
	var names []string
	seen := map[checks.ObjectRef]bool{}
	for _, f := range fs {
		o := f.Object.Object()
		if o.Name == "" || seen[o] {
			continue
		}
		seen[o] = true
		names = append(names, inert.Text(o.Kind)+" "+inert.Code(o.Name))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// firstSentence is s up to its first sentence's end (". " past the first
// few words), whole when it has one sentence.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && i > 20 {
			return s[:i+1]
		}
	}
	return s
}
