package checks

import (
	"bytes"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/plural"
)

// IgnoreAnnotation on an object or its pod template lists rule IDs (comma
// separated) or "all" that are not reported for that object.
const IgnoreAnnotation = "prodready.dev/ignore"

// IgnoreComment, followed by rule IDs (comma separated) or "all" and an
// optional reason, on a finding's line or the line above it, silences that
// one finding: `# prodready:ignore run-as-root the image needs root`.
const IgnoreComment = "prodready:ignore"

// IgnoreInvalid is the rule of an ignore comment or annotation that names
// no rule, or a rule ID the catalog does not have: it ignores nothing, and
// says so.
const IgnoreInvalid = "ignore-invalid"

// ignoreUsage is how an ignore comment is written, for IgnoreInvalid's
// messages.
const ignoreUsage = `write "# prodready:ignore <rule-id> <reason>" (IDs comma-separated, or all; ` + "`prodready rules`" + ` lists them)`

// invalidIgnoreComments returns an IgnoreInvalid finding (its rule ID and
// severity set by the caller's run) for each ignore comment of f that
// names no rule of catalog: `# prodready:ignore` alone, with only a reason,
// or with an ID that does not exist. It reads f.Source, which a run keeps
// for every file with an ignore comment (needsSource).
func invalidIgnoreComments(f *manifest.File, catalog *Catalog) []Finding {
	if !bytes.Contains(f.Source, []byte(IgnoreComment)) {
		return nil
	}
	var out []Finding
	for i, l := range bytes.Split(f.Source, []byte("\n")) {
		hash, list, ok := ignoreCommentList(string(l))
		if !ok {
			continue
		}
		msg := ""
		if list == "" {
			msg = "this ignore comment names no rule, so it ignores nothing: " + ignoreUsage
		} else if unknown := unknownRules(list, catalog); unknown != "" {
			msg = "this ignore comment names " + unknown + ", so nothing is ignored for it: " + ignoreUsage
		}
		if msg == "" {
			continue
		}
		line := i + 1
		fd := Finding{RuleID: IgnoreInvalid, File: f.Path, Line: line, Column: hash + 1, EndLine: line, Message: msg, Object: ObjectRef{Doc: -1}}
		if o := objectAtLine(f, line); o != nil {
			// The key the comment is about (on its line, else the next),
			// so that a finding moved to a template's line (a rendered
			// chart's) lands on the comment's own line.
			fd.Object = RefOf(o)
			o.Hold()
			fd.Path = keyPathAtLine(o.Root(), line).String()
			o.Release()
			if o.ListItem != nil {
				inListItem(&fd, o.ListItem)
			}
		}
		out = append(out, fd)
	}
	return out
}

// ignoreCommentList finds an ignore comment in line l: the 0-based byte
// offset of its '#', and its list of rule IDs (its first word; "" when it
// has none). A '#' after the directive starts a note of its own.
func ignoreCommentList(l string) (hash int, list string, ok bool) {
	i := strings.Index(l, IgnoreComment)
	if i < 0 {
		return 0, "", false
	}
	hash = strings.LastIndexByte(l[:i], '#')
	if hash < 0 {
		return 0, "", false
	}
	rest := l[i+len(IgnoreComment):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false // prodready:ignored, prodready:ignore-…: another word
	}
	if j := strings.Index(rest, "#"); j >= 0 {
		rest = rest[:j]
	}
	if fields := strings.Fields(rest); len(fields) > 0 {
		list = fields[0]
	}
	return hash, list, true
}

// unknownRules says which entries of a comma-separated list are neither
// "all" nor a rule of catalog: `"run-as-rot", which is not a rule ID (did
// you mean "run-as-root"?)`; "" when every entry is known.
func unknownRules(list string, catalog *Catalog) string {
	var ids []string
	for _, r := range catalog.Rules() {
		ids = append(ids, r.ID)
	}
	var unknown []string
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if e == "" || e == "all" || catalog.Lookup(e) != nil {
			continue
		}
		u := fmt.Sprintf("%q", e)
		if s := Closest(e, ids); s != "" {
			u += fmt.Sprintf(" (did you mean %q?)", s)
		}
		unknown = append(unknown, u)
	}
	if len(unknown) == 0 {
		return ""
	}
	return strings.Join(unknown, ", ") + plural.Form(len(unknown), ", which is not a rule ID", ", which are not rule IDs")
}

// keyPathAtLine is the path of the deepest key on 1-based line n under
// root, else of the first key after it ("" when there is none).
func keyPathAtLine(root *yaml.Node, n int) manifest.Path {
	var at, after manifest.Path
	afterLine := 0
	var walk func(node *yaml.Node, path manifest.Path)
	walk = func(node *yaml.Node, path manifest.Path) {
		if node == nil {
			return
		}
		switch node.Kind {
		case yaml.DocumentNode:
			for _, c := range node.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(node.Content); i += 2 {
				key, value := node.Content[i], node.Content[i+1]
				p := path.Child(key.Value)
				switch {
				case key.Line == n:
					at = p
				case key.Line > n && (afterLine == 0 || key.Line < afterLine):
					after, afterLine = p, key.Line
				}
				walk(value, p)
			}
		case yaml.SequenceNode:
			for i, item := range node.Content {
				walk(item, path.Child(manifest.Index(i)))
			}
		}
	}
	walk(root, nil)
	if at != nil {
		return at
	}
	return after
}

// objectAtLine is the object of f whose lines hold 1-based line n, or nil.
func objectAtLine(f *manifest.File, n int) *manifest.Object {
	for _, o := range f.Objects {
		if o.StartLine <= n && n <= o.EndLine {
			return o
		}
	}
	return nil
}

// checkIgnoreAnnotations is IgnoreInvalid's check of an object: an ignore
// annotation on it or on its pod template that names no rule, or an ID the
// catalog does not have.
func checkIgnoreAnnotations(ctx *Context, obj *manifest.Object) []Finding {
	var out []Finding
	check := func(annotations map[string]string, meta manifest.Path) {
		v, ok := annotations[IgnoreAnnotation]
		if !ok {
			return
		}
		at := meta.Child("annotations", IgnoreAnnotation)
		switch unknown := unknownRules(v, ctx.Config.Catalog()); {
		case strings.Trim(v, " ,") == "":
			out = append(out, At(obj, at, "the "+IgnoreAnnotation+" annotation names no rule, so it ignores nothing: list rule IDs (comma-separated), or all"))
		case unknown != "":
			out = append(out, At(obj, at, "the "+IgnoreAnnotation+" annotation names "+unknown+", so nothing is ignored for it (`prodready rules` lists the IDs)"))
		}
	}
	check(obj.Annotations, manifest.Path{"metadata"})
	if pt := obj.PodTemplate(); pt != nil && pt.Meta != nil && len(pt.MetaPath) > 1 {
		check(pt.Meta.Annotations, pt.MetaPath)
	}
	return out
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
		m[RefOf(o)] = o // a List's items share a document
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
		if _, ok := ig.silence(&f); !ok {
			out = append(out, f)
		}
	}
	return out
}

// split is apply that also returns what it silenced, with the ignore.
func (ig *ignores) split(fs []Finding) ([]Finding, []Silenced) {
	if ig.empty() {
		return fs, nil
	}
	var silenced []Silenced
	out := fs[:0]
	for _, f := range fs {
		if s, ok := ig.silence(&f); ok {
			silenced = append(silenced, s)
			continue
		}
		out = append(out, f)
	}
	return out, silenced
}

// empty reports whether ig silences nothing.
func (ig *ignores) empty() bool { return len(ig.byFileObject) == 0 && len(ig.lines) == 0 }

// silence returns f as ig silences it, with the ignore; false when no
// ignore silences it.
func (ig *ignores) silence(f *Finding) (Silenced, bool) {
	if o := ig.byFileObject[f.File][f.Object]; o != nil && ObjectIgnores(o, f.RuleID) {
		s := Silenced{Finding: *f, File: f.File}
		own, _ := ignoreAnnotations(o)
		at := manifest.Path{"metadata", "annotations", IgnoreAnnotation}
		value := own
		if !listHas(own, f.RuleID) {
			pt := o.PodTemplate()
			at, value = pt.MetaPath.Child("annotations", IgnoreAnnotation), pt.Meta.Annotations[IgnoreAnnotation]
		}
		s.Line, _, _ = o.Pos(at...)
		s.By = IgnoreAnnotation + ": " + value
		return s, true
	}
	if ls := ig.lines[f.File]; ls != nil {
		n := 0
		switch {
		case commentIgnores(ls, f.Line, f.RuleID):
			n = f.Line
		case commentIgnores(ls, f.Line-1, f.RuleID):
			n = f.Line - 1
		}
		if n > 0 {
			l := string(ls[n-1])
			by := strings.TrimSpace(l[strings.LastIndex(l[:strings.Index(l, IgnoreComment)], "#"):])
			return Silenced{Finding: *f, File: f.File, Line: n, By: by}, true
		}
	}
	for _, p := range f.Parts {
		// At the line that brings it about (replicas: 3), where a
		// review comments on it when it does not change the finding's.
		if p.Cause {
			if s, ok := ig.silence(&Finding{RuleID: f.RuleID, File: p.File, Line: p.Line}); ok {
				s.Finding = *f
				return s, true
			}
		}
	}
	if a := f.AfterFixOf; a != nil {
		// Silenced with the finding whose fix it awaits, by its ignore.
		awaited := Finding{RuleID: a.Rule, File: a.File, Line: a.Line, Object: a.Object}
		if s, ok := ig.silence(&awaited); ok {
			s.Finding = *f
			return s, true
		}
	}
	return Silenced{}, false
}

// ignoreAnnotations returns the IgnoreAnnotation values of o and of its
// pod template ("" where there is none).
func ignoreAnnotations(o *manifest.Object) (own, template string) {
	own = o.Annotations[IgnoreAnnotation]
	if _, annotations, ok := o.PodMeta(); ok {
		template = annotations[IgnoreAnnotation]
	}
	return own, template
}

// ObjectIgnores reports whether an ignore annotation of o, or of its pod
// template, names rule (or all).
func ObjectIgnores(o *manifest.Object, rule string) bool {
	own, template := ignoreAnnotations(o)
	return listHas(own, rule) || listHas(template, rule)
}

// CommentIgnoring reports whether a finding of rule at 1-based line n of
// a file (its lines ls) is silenced by an ignore comment on that line or
// the line above, as a run's findings are, which line holds the comment
// and the comment as written. Findings moved to another file after the
// run (a rendered chart's, to its template or values lines) use it.
func CommentIgnoring(ls [][]byte, n int, rule string) (line int, by string, ok bool) {
	for _, at := range []int{n, n - 1} {
		if commentIgnores(ls, at, rule) {
			l := string(ls[at-1])
			return at, strings.TrimSpace(l[strings.LastIndex(l[:strings.Index(l, IgnoreComment)], "#"):]), true
		}
	}
	return 0, "", false
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

// listHas reports whether a comma-separated list names rule or "all"; a
// family's ID names each of its rules (policy names policy/require-team).
func listHas(list, rule string) bool {
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if e == rule || e == "all" || strings.HasPrefix(rule, e+"/") {
			return true
		}
	}
	return false
}
