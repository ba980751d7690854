package shutdown

import (
	"path"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/manifest"
	"mvdan.cc/sh/v3/syntax"
)

// defaultGrace is the terminationGracePeriodSeconds the API server
// defaults an unset value to.
const defaultGrace = 30

// preStopSleep returns how many seconds a preStop hook sleeps at least:
// the sleep action, `sleep N` as the command, or a shell script that starts
// with `sleep N`. ok is false when the hook has no sleep prodready can read.
func preStopSleep(h *corev1.LifecycleHandler) (secs int64, ok bool) {
	if h == nil {
		return 0, false
	}
	if h.Sleep != nil {
		return h.Sleep.Seconds, true
	}
	if h.Exec == nil {
		return 0, false
	}
	argv := h.Exec.Command
	if len(argv) == 2 && path.Base(argv[0]) == "sleep" {
		return sleepSeconds(argv[1])
	}
	script, _, lang, ok := kube.ShellScript(argv)
	if !ok {
		return 0, false
	}
	f := kube.ParseShell(script, lang)
	if f == nil || len(f.Stmts) == 0 {
		return 0, false
	}
	first := f.Stmts[0]
	for { // `sleep 5 && nginx -s quit`: the left-most command runs first
		b, isBin := first.Cmd.(*syntax.BinaryCmd)
		if !isBin || b.Op != syntax.AndStmt {
			break
		}
		first = b.X
	}
	call, isCall := first.Cmd.(*syntax.CallExpr)
	if !isCall || first.Background || first.Negated || len(call.Args) != 2 || call.Args[0].Lit() != "sleep" {
		return 0, false
	}
	return sleepSeconds(call.Args[1].Lit())
}

// sleepSeconds reads sleep(1)'s argument: "5", "5s", "2m", "1h"
// (fractions and other forms are not read).
func sleepSeconds(s string) (int64, bool) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "s"):
		s = strings.TrimSuffix(s, "s")
	case strings.HasSuffix(s, "m"):
		s, mult = strings.TrimSuffix(s, "m"), 60
	case strings.HasSuffix(s, "h"):
		s, mult = strings.TrimSuffix(s, "h"), 3600
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1<<31 {
		return 0, false
	}
	return n * mult, true
}

// builtins are shell builtins and keywords: `exec` before them is wrong
// or pointless, so a script ending in one is left alone.
var builtins = map[string]bool{
	":": true, ".": true, "[": true, "alias": true, "bg": true, "break": true, "builtin": true,
	"cd": true, "command": true, "continue": true, "declare": true, "echo": true, "eval": true,
	"exec": true, "exit": true, "export": true, "false": true, "fg": true, "getopts": true,
	"hash": true, "jobs": true, "kill": true, "let": true, "local": true, "printf": true,
	"pwd": true, "read": true, "readonly": true, "return": true, "set": true, "shift": true,
	"source": true, "test": true, "times": true, "trap": true, "true": true, "type": true,
	"typeset": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true,
	"if": true, "then": true, "else": true, "fi": true, "while": true, "until": true, "for": true,
	"do": true, "done": true, "case": true, "esac": true, "function": true, "select": true,
	"time": true, "coproc": true, "shopt": true, "mapfile": true, "readarray": true, "enable": true,
	"disown": true, "suspend": true, "logout": true, "history": true, "fc": true, "help": true,
	"pushd": true, "popd": true, "dirs": true, "caller": true, "compgen": true, "complete": true,
	"bind": true, "newgrp": true,
}

// execTarget reads a `-c` script and, when it is several commands whose
// last one is a simple external command without exec, returns the byte
// offset where "exec " goes and the command's name. It is conservative:
// scripts that do not parse, define functions, set traps, run anything in
// the background, or end in a pipeline, `||`, a compound command, a
// builtin, a command with variable assignments or a command whose name is
// not a plain word return ok false.
func execTarget(script string, lang syntax.LangVariant) (offset int, name string, ok bool) {
	f := kube.ParseShell(script, lang)
	if f == nil || len(f.Stmts) == 0 {
		return 0, "", false
	}
	unsafe := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Background || x.Coprocess || x.Disown {
				unsafe = true
			}
		case *syntax.FuncDecl:
			unsafe = true
		case *syntax.CallExpr:
			if len(x.Args) > 0 && x.Args[0].Lit() == "trap" {
				unsafe = true
			}
		}
		return !unsafe
	})
	if unsafe {
		return 0, "", false
	}
	last := f.Stmts[len(f.Stmts)-1]
	multi := len(f.Stmts) > 1
	for {
		b, isBin := last.Cmd.(*syntax.BinaryCmd)
		if !isBin {
			break
		}
		if b.Op != syntax.AndStmt {
			return 0, "", false
		}
		multi, last = true, b.Y
	}
	call, isCall := last.Cmd.(*syntax.CallExpr)
	if !multi || !isCall || last.Negated || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return 0, "", false
	}
	name = call.Args[0].Lit()
	if name == "" || builtins[name] || strings.Contains(name, "=") {
		return 0, "", false
	}
	off := int(call.Args[0].Pos().Offset())
	if off < 0 || off > len(script) {
		return 0, "", false
	}
	return off, name, true
}

// scalarYAML renders s as YAML scalar text in style (the style of the
// value it replaces), falling back to a double-quoted string when that
// style would not read back as s.
func scalarYAML(s string, style yaml.Style) (string, bool) {
	for _, st := range []yaml.Style{style, yaml.DoubleQuotedStyle} {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: st}
		out, err := yaml.Marshal(n)
		if err != nil {
			continue
		}
		var back string
		if yaml.Unmarshal(out, &back) == nil && back == s {
			text := string(out)
			if st != yaml.LiteralStyle && st != yaml.FoldedStyle {
				text = strings.TrimSuffix(text, "\n")
			}
			return text, true
		}
	}
	return "", false
}

// servingContainers returns the names of the long-running containers that
// the Services selecting obj send traffic to: those declaring a port a
// Service targets (by name or number). When no container declares the
// targeted port, a pod with a single long-running container serves through
// it; with several it is unknown which one serves, and none is returned.
func servingContainers(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) map[string]bool {
	out := map[string]bool{}
	cs := pt.Containers()
	undeclared := false
	for _, s := range ctx.SelectingServices(obj) {
		svc, ok := s.Typed().(*corev1.Service)
		if !ok {
			continue
		}
		for _, sp := range svc.Spec.Ports {
			target := sp.TargetPort
			if target.Type == intstr.Int && target.IntVal == 0 {
				target = intstr.FromInt32(sp.Port)
			}
			matched := false
			for _, c := range cs {
				for _, cp := range c.Ports {
					if (target.Type == intstr.String && cp.Name == target.StrVal) ||
						(target.Type == intstr.Int && cp.ContainerPort == target.IntVal) {
						out[c.Name], matched = true, true
					}
				}
			}
			if !matched {
				undeclared = true
			}
		}
	}
	if len(out) == 0 && undeclared && len(cs) == 1 {
		out[cs[0].Name] = true
	}
	return out
}
