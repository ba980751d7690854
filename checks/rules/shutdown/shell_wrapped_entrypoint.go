package shutdown

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

// ignoresSIGTERM are commands with no SIGTERM handler: as PID 1 (after
// exec) the kernel delivers them no default-action signal, so they still
// wait out the grace period.
var ignoresSIGTERM = map[string]bool{"sleep": true, "tail": true, "cat": true, "wait": true, "read": true, "pause": true}

var shellWrappedEntrypoint = &checks.Rule{
	ID:       "shell-wrapped-entrypoint",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://docs.docker.com/reference/dockerfile/#shell-and-exec-form",
	Why:      "a `sh -c` script whose last command runs without exec keeps the shell as PID 1: SIGTERM reaches the shell, not the app, which is killed after the grace period instead of shutting down cleanly",
	Help:     "Put `exec ` before the script's last command so the app replaces the shell and receives SIGTERM itself.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Patch || !obj.IsLongRunning() || kube.HelperPod(obj) {
			return nil
		}
		pt := obj.PodTemplate()
		var out []checks.Finding
		for _, c := range pt.Containers() {
			if c.Init || len(c.Command) == 0 {
				continue // native sidecars, and images whose entrypoint we cannot see
			}
			argv := append(append([]string{}, c.Command...), c.Args...)
			script, idx, lang, ok := kube.ShellScript(argv)
			if !ok {
				continue
			}
			off, name, ok := execTarget(script, lang)
			if !ok {
				continue
			}
			path := c.Path.Child("command", manifest.Index(idx))
			if idx >= len(c.Command) {
				path = c.Path.Child("args", manifest.Index(idx-len(c.Command)))
			}
			msg := fmt.Sprintf("container %q runs a shell script whose last command %q starts without exec: the shell stays PID 1 and receives SIGTERM, %q does not, so it is killed after the grace period instead of shutting down cleanly", c.Name, name, name)
			if ignoresSIGTERM[name] {
				// exec would make it PID 1, where a signal with no handler
				// is ignored: it still waits out the grace period.
				msg = fmt.Sprintf("container %q runs a shell script whose last command %q keeps the shell as PID 1, and %q would ignore SIGTERM even as PID 1 (it installs no handler), so exec does not help: run it under an init that forwards signals (tini, or shareProcessNamespace), or end it from a preStop hook, so the pod stops without waiting out its grace period", c.Name, name, name)
				out = append(out, checks.At(obj, path, msg))
				continue
			}
			f := checks.At(obj, path, msg)
			if n := obj.Node(path...); n != nil {
				if value, ok := scalarYAML(script[:off]+"exec "+script[off:], n.Style); ok {
					f = f.WithExactFix(fmt.Sprintf("put `exec ` before %q so it replaces the shell and receives SIGTERM", name), checks.SetOp(path, value))
				}
			}
			out = append(out, f)
		}
		return out
	},
}
