package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
)

// overrides are the flags of check and fix that change the config for one
// run, named as peers name them (kube-linter, kubeconform, golangci-lint),
// and the ones that choose what of the run is shown.
type overrides struct {
	kubernetesVersion string
	include, exclude  globList
	enable, disable   ruleList
	minSeverity       string
	stdinFilename     string

	min checks.Severity // minSeverity, parsed by apply
}

// addOverrides defines the overrides' flags on cmd.
func addOverrides(cmd *cobra.Command) *overrides {
	o := &overrides{enable: ruleList{}, disable: ruleList{}}
	fs := cmd.Flags()
	fs.StringVar(&o.kubernetesVersion, "kubernetes-version", "", "target Kubernetes version, e.g. 1.33 (overrides the config's kubernetesVersion)")
	fs.Var(&o.include, "include", "check only the files of the folders walked that match this glob (repeatable; from the current folder; ** for any folders, {a,b} for either; a name without / matches a file or folder anywhere, and a folder matched keeps its .yaml and .yml files; replaces the config's include)")
	fs.Var(&o.exclude, "exclude", "leave out the files of the folders walked that match this glob (repeatable; as --include: --exclude _archived leaves out every folder so named; added to the config's exclude)")
	fs.Var(o.enable, "enable-rule", "run this rule, opt-in or switched off in the config (comma-separated, repeatable)")
	fs.Var(o.disable, "disable-rule", "do not run this rule (comma-separated, repeatable)")
	fs.StringVar(&o.minSeverity, "min-severity", "info", "lowest severity of the findings shown: info, warning or error (those below are left out of the report, its counts and the exit code)")
	fs.StringVar(&o.stdinFilename, "stdin-filename", "", "the path the standard input (-) is reported under, e.g. deploy/web.yaml (default <stdin>)")
	rules := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return ruleIDs(), cobra.ShellCompDirectiveNoFileComp
	}
	cmd.RegisterFlagCompletionFunc("enable-rule", rules)
	cmd.RegisterFlagCompletionFunc("disable-rule", rules)
	cmd.RegisterFlagCompletionFunc("min-severity", cobra.FixedCompletions([]string{"info", "warning", "error"}, cobra.ShellCompDirectiveNoFileComp))
	return o
}

// apply puts the overrides in cfg and checks them: a usage error names
// the flag at fault.
func (o *overrides) apply(cfg *checks.Config) error {
	if o.kubernetesVersion != "" {
		if err := cfg.SetKubernetesVersion(o.kubernetesVersion); err != nil {
			return fmt.Errorf("--kubernetes-version: %w", err)
		}
	}
	if len(o.include) > 0 || len(o.exclude) > 0 {
		cwd, err := os.Getwd()
		if err != nil {
			return err
		}
		if err := cfg.SetFlagGlobs(cwd, o.include, o.exclude); err != nil {
			return err
		}
	}
	for id := range o.enable {
		if o.disable[id] {
			return fmt.Errorf("--enable-rule and --disable-rule both name %s", id)
		}
		if err := cfg.SetEnabled(id, true); err != nil {
			return fmt.Errorf("--enable-rule: %w", err)
		}
	}
	for id := range o.disable {
		if err := cfg.SetEnabled(id, false); err != nil {
			return fmt.Errorf("--disable-rule: %w", err)
		}
	}
	sev, err := checks.ParseSeverity(o.minSeverity)
	if err != nil || sev > checks.Error {
		return fmt.Errorf("--min-severity: want info, warning or error, not %q", o.minSeverity)
	}
	o.min = sev
	return nil
}

// shown keeps the findings at or above --min-severity, in place.
func (o *overrides) shown(fs []checks.Finding) []checks.Finding {
	if o.min <= checks.Info {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Severity >= o.min {
			out = append(out, f)
		}
	}
	return out
}

// nameStdin gives the input read from standard input the name
// --stdin-filename says, and returns its index among inputs (-1 when
// none was read).
func (o *overrides) nameStdin(inputs []checks.Input) int {
	for i := range inputs {
		if inputs[i].Path == stdinPath && inputs[i].Data != nil {
			if o.stdinFilename != "" {
				inputs[i].Path = filepath.ToSlash(filepath.Clean(o.stdinFilename))
			}
			return i
		}
	}
	return -1
}

// stdinPath is the path checks.List gives the standard input.
const stdinPath = "<stdin>"

// globList is a repeatable flag of path globs.
type globList []string

func (g *globList) String() string { return strings.Join(*g, ",") }

// Type is the word help shows for the flag's value.
func (g *globList) Type() string { return "glob" }

func (g *globList) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		return errors.New("a glob must not be empty")
	}
	*g = append(*g, filepath.ToSlash(v))
	return nil
}

// ruleList is a repeatable, comma-separated flag of rule IDs of the
// catalog.
type ruleList map[string]bool

func (r ruleList) String() string { return "" }

// Type is the word help shows for the flag's value.
func (r ruleList) Type() string { return "rule-ids" }

func (r ruleList) Set(v string) error {
	for _, id := range strings.Split(v, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if err := catalog.Default().CheckRuleID(id); err != nil {
			return err
		}
		r[id] = true
	}
	return nil
}
