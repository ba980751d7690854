package cli

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

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

// addOverrides defines the overrides' flags on fs.
func addOverrides(fs *flag.FlagSet) *overrides {
	o := &overrides{enable: ruleList{}, disable: ruleList{}}
	fs.StringVar(&o.kubernetesVersion, "kubernetes-version", "", "target Kubernetes version, e.g. 1.33 (overrides the config's kubernetesVersion)")
	fs.Var(&o.include, "include", "check only the files of the folders walked that match this glob (repeatable; a path from the config's folder, else the repository root, ** for any folders, a glob without / matches the name anywhere; replaces the config's include)")
	fs.Var(&o.exclude, "exclude", "leave out the files of the folders walked that match this glob (repeatable; as --include; added to the config's exclude)")
	fs.Var(o.enable, "enable-rule", "run this rule, opt-in or switched off in the config (comma-separated, repeatable)")
	fs.Var(o.disable, "disable-rule", "do not run this rule (comma-separated, repeatable)")
	fs.StringVar(&o.minSeverity, "min-severity", "info", "lowest severity of the findings shown: info, warning or error (those below are left out of the report, its counts and the exit code)")
	fs.StringVar(&o.stdinFilename, "stdin-filename", "", "the path the standard input (-) is reported under, e.g. deploy/web.yaml (default <stdin>)")
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
	if len(o.include) > 0 {
		cfg.Include = append([]string(nil), o.include...)
	}
	cfg.Exclude = append(append([]string(nil), cfg.Exclude...), o.exclude...)
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
