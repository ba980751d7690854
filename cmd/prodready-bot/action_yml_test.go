package main

import (
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestActionYAML keeps action.yml in step with the command: a composite
// action whose inputs have the documented defaults, are all passed to the
// step, and whose flags `prodready-bot action` knows.
func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Default *string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Value string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
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
	var setupGo, built, action bool
	fs := flag.NewFlagSet("action", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("C", "", "")
	addActionFlags(fs)
	for _, s := range a.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/setup-go@") {
			setupGo = s.With["cache"] == "true" && strings.Contains(s.With["go-version-file"], "github.action_path")
		}
		if strings.Contains(s.Run, "go build ") {
			built = strings.Contains(s.Run, " ./cmd/prodready-bot\n")
		}
		if s.ID != "prodready" {
			continue
		}
		action = strings.Contains(s.Run, "args=(action ")
		env := strings.Join(mapValues(s.Env), "\n")
		for name := range defaults {
			if !strings.Contains(env, "inputs."+name+" }}") {
				t.Errorf("input %s is not passed to the step", name)
			}
		}
		if strings.Contains(s.Run, "${{") {
			t.Error("the run script interpolates expressions; pass them through env")
		}
		for _, m := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(s.Run, -1) {
			if fs.Lookup(m[1]) == nil {
				t.Errorf("action.yml passes --%s, which prodready-bot action does not know", m[1])
			}
		}
	}
	if !setupGo || !built || !action {
		t.Errorf("steps: setup-go with cache from the action's go.mod %v, build of cmd/prodready-bot %v, action step %v", setupGo, built, action)
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
