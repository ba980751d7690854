package checks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/edit"
)

// TestKyvFixesMakeRulesPass applies every fix this family suggests on its
// fixtures (to the document's node tree, a stand-in for package edit's text
// edits) and checks that the rule no longer fires there, and that the
// document still parses.
func TestKyvFixesMakeRulesPass(t *testing.T) {
	dirs, err := os.ReadDir("../fixtures/rules")
	if err != nil {
		t.Fatal(err)
	}
	fixes := 0
	for _, d := range dirs {
		if !d.IsDir() || !kyvFamilyRules[d.Name()] {
			continue
		}
		dir := filepath.Join("../fixtures/rules", d.Name())
		cfg, err := LoadConfig(filepath.Join(dir, ConfigFileName))
		if err != nil {
			t.Fatal(err)
		}
		inputs, err := Load([]string{dir}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := Run(inputs, cfg)
		for _, f := range res.Findings {
			if !kyvFamilyRules[f.RuleID] || f.Fix == nil {
				continue
			}
			fixes++
			name := fmt.Sprintf("%s:%d %s", f.File, f.Line, f.RuleID)
			fixed, err := kyvApplyFix(inputs, f)
			if err != nil {
				t.Errorf("%s: applying the fix: %v", name, err)
				continue
			}
			after := Run(fixed, cfg)
			for _, g := range after.Findings {
				if g.RuleID == f.RuleID && g.File == f.File && g.Object.Doc == f.Object.Doc && g.Path == f.Path {
					t.Errorf("%s: still fires after its fix %q: %s", name, f.Fix.Description, g.Message)
				}
				if g.RuleID == "yaml-invalid" && g.File == f.File {
					t.Errorf("%s: the fix breaks the YAML: %s", name, g.Message)
				}
			}
		}
	}
	if fixes < 10 {
		t.Errorf("only %d fixes exercised", fixes)
	}
}

// kyvApplyFix returns inputs with f's fix applied to its document.
func kyvApplyFix(inputs []Input, f Finding) ([]Input, error) {
	out := append([]Input{}, inputs...)
	for i, in := range out {
		if in.Path != f.File {
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(in.Data))
		var docs []*yaml.Node
		for {
			var n yaml.Node
			if err := dec.Decode(&n); err != nil {
				break
			}
			docs = append(docs, &n)
		}
		if f.Object.Doc >= len(docs) {
			return nil, fmt.Errorf("doc %d of %d", f.Object.Doc, len(docs))
		}
		root := docs[f.Object.Doc].Content[0]
		for _, op := range f.Fix.Edits {
			if err := kyvApplyOp(root, op); err != nil {
				return nil, err
			}
		}
		var b bytes.Buffer
		for j, d := range docs {
			if j > 0 {
				b.WriteString("---\n")
			}
			s, err := yaml.Marshal(d)
			if err != nil {
				return nil, err
			}
			b.Write(s)
		}
		out[i] = Input{Path: in.Path, Data: b.Bytes()}
		return out, nil
	}
	return nil, fmt.Errorf("file %s not found", f.File)
}

func kyvApplyOp(root *yaml.Node, op edit.Op) error {
	var val *yaml.Node
	if op.Action != edit.Delete {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(op.Value), &doc); err != nil || len(doc.Content) == 0 {
			return fmt.Errorf("value %q: %v", op.Value, err)
		}
		val = doc.Content[0]
	}
	parent := root
	for i, e := range op.Path[:len(op.Path)-1] {
		next := kyvChild(parent, e)
		if next == nil {
			if op.Action == edit.Delete {
				return nil
			}
			if parent.Kind != yaml.MappingNode {
				return fmt.Errorf("path %v: %s is not a mapping", op.Path, strings.Join(op.Path[:i], "."))
			}
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e}, next)
		}
		if kyvIsNull(next) && op.Action != edit.Delete {
			next.Kind, next.Tag, next.Value = yaml.MappingNode, "!!map", ""
		}
		parent = next
	}
	last := op.Path[len(op.Path)-1]
	switch op.Action {
	case edit.Delete:
		if parent.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(parent.Content); i += 2 {
				if parent.Content[i].Value == last {
					parent.Content = append(parent.Content[:i], parent.Content[i+2:]...)
					return nil
				}
			}
		} else if parent.Kind == yaml.SequenceNode {
			idx, _ := strconv.Atoi(last)
			if idx < len(parent.Content) {
				parent.Content = append(parent.Content[:idx], parent.Content[idx+1:]...)
			}
		}
		return nil
	case edit.Set:
		if parent.Kind == yaml.SequenceNode {
			idx, err := strconv.Atoi(last)
			if err != nil || idx >= len(parent.Content) {
				return fmt.Errorf("path %v: bad index", op.Path)
			}
			parent.Content[idx] = val
			return nil
		}
		if parent.Kind != yaml.MappingNode {
			return fmt.Errorf("path %v: parent is not a mapping", op.Path)
		}
		for i := 0; i+1 < len(parent.Content); i += 2 {
			if parent.Content[i].Value == last {
				parent.Content[i+1] = val
				return nil
			}
		}
		parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, val)
		return nil
	case edit.Append:
		seq := kyvChild(parent, last)
		if seq == nil {
			seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, seq)
		}
		seq.Content = append(seq.Content, val)
		return nil
	}
	return fmt.Errorf("unknown action %q", op.Action)
}

func kyvChild(n *yaml.Node, e string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == e {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		idx, err := strconv.Atoi(e)
		if err == nil && idx >= 0 && idx < len(n.Content) {
			return n.Content[idx]
		}
	}
	return nil
}
