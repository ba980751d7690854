package main

import (
	"github.com/spf13/pflag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionYAML is what the tests read of action.yml.
type actionYAML struct {
	Inputs map[string]struct {
		Default *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	With  map[string]string `yaml:"with"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
}

func readActionYAML(t *testing.T) actionYAML {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// step returns the step with the given id; the test fails without one.
func (a actionYAML) step(t *testing.T, id string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step with id %q", id)
	return actionStep{}
}

// TestActionYAML keeps action.yml in step with the command: a composite
// action whose inputs have the documented defaults, are all passed to the
// step, and whose flags `prodready action` knows; and keeps its shape:
// the release found, restored from the cache or downloaded and cached, a
// build from source only as the fallback, and the action step running the
// binary that one of them produced.
func TestActionYAML(t *testing.T) {
	a := readActionYAML(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	defaults := map[string]string{"paths": ".", "config": "", "fail-on": "error", "token": "${{ github.token }}", "mode": "review", "sarif-file": "prodready.sarif"}
	for name, def := range defaults {
		in, ok := a.Inputs[name]
		if !ok || in.Default == nil || *in.Default != def {
			t.Errorf("input %s: default %v, want %q", name, in.Default, def)
		}
	}
	if len(a.Inputs) != len(defaults) {
		t.Errorf("inputs %v, want exactly %v", a.Inputs, defaults)
	}
	const fallback = "steps.release.outputs.build == 'true' || steps.install.outputs.build == 'true'"
	const cacheKey = "prodready-${{ steps.release.outputs.version }}-${{ runner.os }}-${{ runner.arch }}"
	var setupGo, built, restore, save bool
	fs := pflag.NewFlagSet("action", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("C", "", "")
	addActionFlags(fs)
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q: the run script interpolates expressions; pass them through env", s.Name)
		}
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("step %q: shell %q, want bash (the scripts are bash on every runner)", s.Name, s.Shell)
		}
		switch {
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			setupGo = s.If == fallback && s.With["cache"] == "true" && strings.Contains(s.With["go-version-file"], "github.action_path")
		case strings.Contains(s.Run, "go build "):
			built = s.If == fallback && strings.Contains(s.Run, " ./cmd/prodready\n") && strings.Contains(s.Env["PRODREADY_BIN"], "prodready-source")
		case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
			restore = s.ID == "cache" && s.With["key"] == cacheKey && s.With["path"] == "${{ runner.temp }}/prodready-release"
		case strings.HasPrefix(s.Uses, "actions/cache/save@"):
			save = s.If == "steps.install.outputs.installed == 'true'" && s.With["key"] == cacheKey && s.With["path"] == "${{ runner.temp }}/prodready-release"
		case strings.HasPrefix(s.Uses, "actions/cache@"):
			t.Error("actions/cache saves in its post step whatever the path holds: use cache/restore and cache/save")
		}
	}
	if !setupGo || !built {
		t.Errorf("steps: setup-go with cache from the action's go.mod only as the fallback %v, build of cmd/prodready only as the fallback %v", setupGo, built)
	}
	if !restore || !save {
		t.Errorf("steps: cache restore keyed %s %v, cache save of a download only %v", cacheKey, restore, save)
	}

	rel := a.step(t, "release")
	if !strings.Contains(rel.Run, "scripts/install-release.sh\" --resolve-only --version \"$ACTION_REF\"") || rel.Env["ACTION_REF"] != "${{ github.action_ref }}" {
		t.Errorf("step release does not resolve github.action_ref with scripts/install-release.sh:\n%s%v", rel.Run, rel.Env)
	}
	inst := a.step(t, "install")
	if inst.If != "steps.release.outputs.version != '' && steps.cache.outputs.cache-hit != 'true'" ||
		!strings.Contains(inst.Run, `--version "$VERSION" --os "$RUNNER_OS" --arch "$RUNNER_ARCH" --dir "$INSTALL_DIR"`) ||
		inst.Env["INSTALL_DIR"] != "${{ runner.temp }}/prodready-release" {
		t.Errorf("step install: if %q, run\n%s", inst.If, inst.Run)
	}

	action := a.step(t, "prodready")
	if !strings.Contains(action.Run, "args=(action ") || action.Env["PRODREADY_BIN"] != "${{ steps.bin.outputs.path }}" {
		t.Errorf("action step: run\n%s\nPRODREADY_BIN %q", action.Run, action.Env["PRODREADY_BIN"])
	}
	env := strings.Join(mapValues(action.Env), "\n")
	for name := range defaults {
		if !strings.Contains(env, "inputs."+name+" }}") {
			t.Errorf("input %s is not passed to the step", name)
		}
	}
	for _, m := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(action.Run, -1) {
		if fs.Lookup(m[1]) == nil {
			t.Errorf("action.yml passes --%s, which prodready action does not know", m[1])
		}
	}
	if !strings.Contains(a.Outputs["sarif-file"].Value, "steps.prodready.outputs.sarif-file") {
		t.Errorf("output sarif-file = %q", a.Outputs["sarif-file"].Value)
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
