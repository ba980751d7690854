package checks

import (
	"bytes"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

// IgnoreAnnotation on an object or its pod template lists rule IDs (comma
// separated) or "all" that are not reported for that object.
const IgnoreAnnotation = "prodready.dev/ignore"

// IgnoreComment, followed by rule IDs (comma separated) or "all" and an
// optional reason, on a finding's line or the line above it, silences that
// one finding: `# prodready:ignore run-as-root the image needs root`.
const IgnoreComment = "prodready:ignore"

// applyIgnores drops findings silenced by annotation or comment.
func applyIgnores(fs []Finding, files []*manifest.File, objects []*manifest.Object) []Finding {
	return newIgnores(files, objects).apply(fs)
}

// ignores is what silences findings in a set of files: the objects that
// carry an ignore annotation, and the lines of files with ignore comments.
// Built once, it serves every share of those files' findings.
type ignores struct {
	byFileObject map[string]map[ObjectRef]*manifest.Object // objects with an ignore annotation
	lines        map[string][][]byte                       // files with an ignore comment
}

// newIgnores collects the ignores of files and their objects.
func newIgnores(files []*manifest.File, objects []*manifest.Object) *ignores {
	ig := &ignores{}
	for _, o := range objects {
		if own, template := ignoreAnnotations(o); own == "" && template == "" {
			continue
		}
		if ig.byFileObject == nil {
			ig.byFileObject = map[string]map[ObjectRef]*manifest.Object{}
		}
		m := ig.byFileObject[o.File.Path]
		if m == nil {
			m = map[ObjectRef]*manifest.Object{}
			ig.byFileObject[o.File.Path] = m
		}
		m[refOf(o)] = o // a List's items share a document
	}
	for _, f := range files {
		if bytes.Contains(f.Source, []byte(IgnoreComment)) {
			if ig.lines == nil {
				ig.lines = map[string][][]byte{}
			}
			ig.lines[f.Path] = bytes.Split(f.Source, []byte("\n"))
		}
	}
	return ig
}

// apply drops the findings of fs that ig silences, in place.
func (ig *ignores) apply(fs []Finding) []Finding {
	if len(ig.byFileObject) == 0 && len(ig.lines) == 0 {
		return fs // nothing to silence
	}
	out := fs[:0]
	for _, f := range fs {
		if o := ig.byFileObject[f.File][f.Object]; o != nil && ObjectIgnores(o, f.RuleID) {
			continue
		}
		if ls := ig.lines[f.File]; ls != nil && (commentIgnores(ls, f.Line, f.RuleID) || commentIgnores(ls, f.Line-1, f.RuleID)) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// ignoreAnnotations returns the IgnoreAnnotation values of o and of its
// pod template ("" where there is none).
func ignoreAnnotations(o *manifest.Object) (own, template string) {
	own = o.Annotations[IgnoreAnnotation]
	if pt := o.PodTemplate(); pt != nil && pt.Meta != nil {
		template = pt.Meta.Annotations[IgnoreAnnotation]
	}
	return own, template
}

func ObjectIgnores(o *manifest.Object, rule string) bool {
	own, template := ignoreAnnotations(o)
	return listHas(own, rule) || listHas(template, rule)
}

// CommentIgnores reports whether a finding of rule at 1-based line n of a
// file (its lines ls) is silenced by an ignore comment on that line or the
// line above, as a run's findings are. Findings moved to another file after
// the run (a rendered chart's, to its template or values lines) use it.
func CommentIgnores(ls [][]byte, n int, rule string) bool {
	return commentIgnores(ls, n, rule) || commentIgnores(ls, n-1, rule)
}

// commentIgnores reports whether 1-based line n of ls holds an ignore
// comment naming rule.
func commentIgnores(ls [][]byte, n int, rule string) bool {
	if n < 1 || n > len(ls) {
		return false
	}
	l := string(ls[n-1])
	i := strings.Index(l, IgnoreComment)
	if i < 0 || !strings.Contains(l[:i], "#") {
		return false
	}
	fields := strings.Fields(l[i+len(IgnoreComment):])
	return len(fields) > 0 && listHas(fields[0], rule)
}

// listHas reports whether a comma-separated list names rule or "all".
func listHas(list, rule string) bool {
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if e == rule || e == "all" {
			return true
		}
	}
	return false
}
