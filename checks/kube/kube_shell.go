package kube

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"mvdan.cc/sh/v3/syntax"

	"github.com/prodready/prodready/checks/manifest"
)

// maxIdleScript bounds the shell script IdleContainer reads: a container
// that only waits is a line or two, and anything longer is not read.
const maxIdleScript = 4096

// shells are the shells whose `-c` script prodready reads.
var shells = map[string]syntax.LangVariant{
	"sh": syntax.LangPOSIX, "ash": syntax.LangPOSIX, "dash": syntax.LangPOSIX,
	"bash": syntax.LangBash,
}

// ShellScript recognises argv running a shell with -c (`sh -c SCRIPT`,
// `/bin/bash -ec SCRIPT`) and returns the script, its index in argv and the
// shell's language. Anything it does not fully understand (options taking
// arguments such as -o, long options) returns ok false.
func ShellScript(argv []string) (script string, idx int, lang syntax.LangVariant, ok bool) {
	if len(argv) < 3 {
		return "", 0, 0, false
	}
	lang, ok = shells[path.Base(argv[0])]
	if !ok {
		return "", 0, 0, false
	}
	sawC := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if !sawC {
				return "", 0, 0, false // a script file, not -c
			}
			return a, i, lang, true
		}
		if a == "--" {
			if sawC && i+1 < len(argv) {
				return argv[i+1], i + 1, lang, true
			}
			return "", 0, 0, false
		}
		for _, r := range a[1:] {
			switch {
			case r == 'c':
				sawC = true
			case r == 'o' || r == 'O' || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
				return "", 0, 0, false // takes an argument, or a long option
			}
		}
	}
	return "", 0, 0, false
}

// ParseShell parses a shell script; nil when it does not parse.
func ParseShell(script string, lang syntax.LangVariant) *syntax.File {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil
	}
	return f
}

// IdleContainer reports whether a container's command only waits: `sleep N`
// or `sleep infinity`, `tail -f FILE`, or a `-c` shell script made of such
// waits, `echo`/`printf`/`true`/`:` and `while true` loops around them
// (`exec tail -f /dev/null`, `echo ready && sleep 3600`). Such a container
// is kept running for `kubectl exec` (a client or toolbox pod): it serves
// nothing and nothing in it can hang. A container without a command runs
// its image's entrypoint, which the manifest does not show: false.
func IdleContainer(c manifest.Container) bool {
	if len(c.Command) == 0 {
		return false
	}
	argv := append(append([]string{}, c.Command...), c.Args...)
	if waits(argv) {
		return true
	}
	script, _, lang, ok := ShellScript(argv)
	if !ok || len(script) > maxIdleScript {
		return false
	}
	f := ParseShell(script, lang)
	if f == nil || len(f.Stmts) == 0 {
		return false
	}
	waited := false
	for _, s := range f.Stmts {
		if !idleStmt(s, &waited) {
			return false
		}
	}
	return waited
}

// waits reports whether argv is a wait: sleep with one argument, or tail
// following a file (-f, -F, --follow).
func waits(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch path.Base(argv[0]) {
	case "sleep":
		return len(argv) == 2
	case "tail":
		for _, a := range argv[1:] {
			if a == "-f" || a == "-F" || strings.HasPrefix(a, "--follow") {
				return true
			}
		}
	}
	return false
}

// idleStmt reports whether a statement only waits or prints, and sets
// *waited when it waits.
func idleStmt(s *syntax.Stmt, waited *bool) bool {
	if s.Negated || s.Coprocess || len(s.Redirs) > 0 && !redirsToStd(s.Redirs) {
		return false
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(x.Assigns) > 0 || len(x.Args) == 0 {
			return false
		}
		argv := make([]string, 0, len(x.Args))
		for _, w := range x.Args {
			lit := w.Lit()
			if lit == "" {
				lit = quoted(w)
			}
			if lit == "" {
				return false // an expansion: what it runs is not in the manifest
			}
			argv = append(argv, lit)
		}
		if argv[0] == "exec" {
			argv = argv[1:]
			if len(argv) == 0 {
				return false
			}
		}
		switch argv[0] {
		case "echo", "printf", "true", ":":
			return true
		case "wait":
			*waited = true
			return true
		}
		if waits(argv) {
			*waited = true
			return true
		}
		return false
	case *syntax.BinaryCmd:
		if x.Op != syntax.AndStmt && x.Op != syntax.OrStmt {
			return false
		}
		return idleStmt(x.X, waited) && idleStmt(x.Y, waited)
	case *syntax.WhileClause:
		if x.Until || len(x.Cond) != 1 {
			return false
		}
		c, ok := x.Cond[0].Cmd.(*syntax.CallExpr)
		if !ok || len(c.Args) != 1 || (c.Args[0].Lit() != "true" && c.Args[0].Lit() != ":") {
			return false
		}
		inner := false
		for _, b := range x.Do {
			if !idleStmt(b, &inner) {
				return false
			}
		}
		*waited = *waited || inner
		return inner
	}
	return false
}

// quoted returns a word that is one quoted string with no expansion as
// its text (`"infinity"`, `'/dev/null'`), else "".
func quoted(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	switch p := w.Parts[0].(type) {
	case *syntax.SglQuoted:
		return p.Value
	case *syntax.DblQuoted:
		if len(p.Parts) == 1 {
			if l, ok := p.Parts[0].(*syntax.Lit); ok {
				return l.Value
			}
		}
	}
	return ""
}

// redirsToStd reports whether every redirection only sends output to
// standard output or error, or to /dev/null (`echo ready >&2`).
func redirsToStd(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		if r.Word == nil {
			return false
		}
		to := r.Word.Lit()
		if to != "/dev/null" && to != "1" && to != "2" {
			return false
		}
	}
	return true
}

// HelperPod reports whether obj is a bare Pod kept only to run commands in
// by hand: no controller owns it and each of its main containers is idle
// (IdleContainer). Its pods serve nothing and stop when deleted, so the
// probe and shutdown rules, which assume long-running serving pods, do not
// apply. Pods with restartPolicy Never or OnFailure are not long-running
// at all (manifest.Object.IsLongRunning).
func HelperPod(obj *manifest.Object) bool {
	pod, ok := obj.Typed().(*corev1.Pod)
	if !ok || len(pod.OwnerReferences) > 0 {
		return false
	}
	pt := obj.PodTemplate()
	if pt == nil || len(pt.Spec.Containers) == 0 {
		return false
	}
	for _, c := range pt.Containers() {
		if c.Init {
			continue // a native sidecar serves the main containers
		}
		if !IdleContainer(c) {
			return false
		}
	}
	return true
}
