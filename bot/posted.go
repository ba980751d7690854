package bot

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/prodready/prodready/internal/inert"
)

// Posted is one of the bot's own threads (or discussions) already on the
// pull request, as the host adapter lists it: the adapter reads the
// markers of its first comment; bot decides what becomes of it.
type Posted struct {
	// ID is the host's id of the comment or thread, as the adapter spells
	// it (a GitHub review comment id, a GitLab discussion id).
	ID string
	// Key is the thread's key (ThreadKey of its first comment).
	Key string
	// Fingerprints are the fingerprints in the comment's markers.
	Fingerprints []string
	// Body is the first comment's text as the host has it ("" when the
	// adapter did not read it: then it is never edited).
	Body string
	// Resolved is true when the host shows the thread resolved.
	Resolved bool
	// Path, StartLine and Line are where the thread is anchored now, as
	// the host says (Line 0: the host no longer places it on the diff, or
	// the adapter does not know). A thread whose lines moved keeps its
	// text but loses its suggestion, which would change the wrong lines.
	Path            string
	StartLine, Line int
	// NoteID is the host's id of the first comment when it differs from
	// ID (a GitLab discussion's first note).
	NoteID string
}

// Edit is a posted thread whose first comment is rewritten in place: its
// concern is the same, its text is not.
type Edit struct {
	Posted  Posted
	Comment Comment
}

// CommentPlan is what publishing a review changes among the bot's threads
// on the host.
type CommentPlan struct {
	// Post are the review's threads no posted thread has the key of, in
	// review order.
	Post []Comment
	// Keep are the review's threads already posted with the same text.
	Keep []Comment
	// Edit are the posted threads whose text the review changes (a
	// finding's message or suggestion changed, a finding of a container
	// came or went): edited in place, never posted again.
	Edit []Edit
	// Reopen are the resolved posted threads whose concern is back.
	Reopen []Posted
	// Resolve are the unresolved posted threads none of whose findings is
	// at head any more: fixed.
	Resolve []Posted
}

// PlanComments decides, once for every host, which of r's threads are new,
// which are posted as they are, which are posted with another text (edited
// in place), which resolved ones are back (reopened), and which posted
// ones are gone (resolved). A thread is known by its key, so that it
// follows its concern across pushes; posted threads that share a key
// (never made by the bot, but possible by hand) count once, the first.
// Posted threads without markers are left alone.
func PlanComments(r Review, posted []Posted) CommentPlan {
	byKey := map[string]Posted{}
	for _, p := range posted {
		if p.Key == "" {
			p.Key = ThreadKey(p.Body)
		}
		if p.Key == "" {
			continue
		}
		if _, dup := byKey[p.Key]; !dup {
			byKey[p.Key] = p
		}
	}
	var plan CommentPlan
	// current is what a posted thread is current by: the review's
	// fingerprints (r.Fingerprints, not copied: 150,000 at 50,000
	// objects) and its comments' keys and fingerprints.
	current := map[string]bool{}
	for _, c := range r.Comments {
		key := c.Key
		if key == "" {
			key = c.Fingerprint
		}
		current[key] = true
		for _, fp := range c.AllFingerprints() {
			current[fp] = true
		}
		p, ok := byKey[key]
		if !ok {
			plan.Post = append(plan.Post, c)
			continue
		}
		if p.Resolved {
			plan.Reopen = append(plan.Reopen, p)
		}
		if p.Path != "" && c.Suggestion != nil && !sameLines(p, c) {
			c = movedThread(c)
		}
		if p.Body != "" && SameThreadText(p.Body, c.Body) {
			plan.Keep = append(plan.Keep, c)
		} else if p.Body != "" {
			plan.Edit = append(plan.Edit, Edit{Posted: p, Comment: c})
		} else {
			plan.Keep = append(plan.Keep, c)
		}
	}
	seen := map[string]bool{}
	for _, p := range posted {
		key := p.Key
		if key == "" {
			key = ThreadKey(p.Body)
		}
		if p.Resolved || key == "" || seen[key] {
			continue
		}
		seen[key] = true
		if current[key] || r.Fingerprints.Has(key) || slices.ContainsFunc(p.Fingerprints, func(fp string) bool { return current[fp] || r.Fingerprints.Has(fp) }) {
			continue
		}
		plan.Resolve = append(plan.Resolve, p)
	}
	return plan
}

// sameLines reports whether posted thread p is on c's lines (a one-line
// thread has no start line on the host, or the same as its line).
func sameLines(p Posted, c Comment) bool {
	start := p.StartLine
	if start == 0 {
		start = p.Line
	}
	cstart := c.StartLine
	if cstart == 0 {
		cstart = c.Line
	}
	return p.Path == c.Path && p.Line == c.Line && start == cstart
}

// movedThread is c for a thread posted on other lines than c's: without
// its suggestion (it would replace the lines the thread is on, not c's),
// saying where the lines are now.
func movedThread(c Comment) Comment {
	c.Notes = append(append([]string(nil), c.Notes...), fmt.Sprintf("These lines moved since this thread was opened: they are now %s line %d, where `prodready fix` applies the fix.", inert.Code(c.Path), c.StartLine))
	c.Suggestion = nil
	c.Body = ThreadBody(c, "suggestion")
	return c
}

// suggestionInfoRE matches a suggestion fence's info string, which the
// hosts spell differently (GitLab's counts the lines it spans).
var suggestionInfoRE = regexp.MustCompile("(?m)^(`{3,})suggestion(:-?\\d+\\+\\d+)?$")

// SameThreadText reports whether two renderings of a thread say the same:
// equal but for trailing space, and for the host's suggestion info string.
func SameThreadText(a, b string) bool {
	norm := func(s string) string {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		return strings.TrimSpace(suggestionInfoRE.ReplaceAllString(s, "${1}suggestion"))
	}
	return norm(a) == norm(b)
}

// AllFingerprints are the fingerprints a comment covers: Fingerprints,
// Fingerprint, and those of the markers in its body, each once.
func (c Comment) AllFingerprints() []string {
	fps := slices.Clone(c.Fingerprints)
	for _, fp := range append(Fingerprints(c.Body), c.Fingerprint) {
		if fp != "" && !slices.Contains(fps, fp) {
			fps = append(fps, fp)
		}
	}
	return fps
}
