package checks_test

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// TestSdFixesMakeRulesPass applies every fix of the shutdown, labels and
// logging/state rules to their fixtures (with a small node-tree applier of
// the edit.Op semantics, standing in for package edit) and checks the rule
// again: an object whose findings all had fixes must not be reported again,
// and the fixed documents must still decode into their Kubernetes types
// (no schema-invalid finding).
func TestSdFixesMakeRulesPass(t *testing.T) {
	for _, rule := range []string{
		"prestop-hook-missing", "termination-grace-too-short", "shell-wrapped-entrypoint",
		"recommended-labels-missing", "template-labels-not-propagated",
		"hpa-min-replicas-too-low", "vpa-auto-update",
	} {
		t.Run(rule, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, rule)
			cfg, err := checks.LoadConfig(filepath.Join(dir, checks.ConfigFileName))
			if err != nil {
				t.Fatal(err)
			}
			inputs, err := checks.Load([]string{dir}, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := checks.Run(inputs, cfg)
			type objKey struct{ file, kind, name string }
			fixed := map[objKey]bool{}
			unfixable := map[objKey]bool{}
			docs := map[string][]*yaml.Node{}
			for _, in := range inputs {
				docs[in.Path] = sdDecodeAll(t, in.Data)
			}
			for _, f := range res.Findings {
				if f.RuleID != rule {
					continue
				}
				k := objKey{f.File, f.Object.Kind, f.Object.Name}
				if f.Fix == nil {
					unfixable[k] = true
					continue
				}
				fixed[k] = true
				doc := sdFindDoc(docs[f.File], f.Object.Kind, f.Object.Name)
				if doc == nil {
					t.Fatalf("%s: document %s/%s not found", f.File, f.Object.Kind, f.Object.Name)
				}
				for _, op := range f.Fix.Edits {
					if err := sdApply(doc, op); err != nil {
						t.Fatalf("%s:%d: applying %+v: %v", f.File, f.Line, op, err)
					}
				}
			}
			if len(fixed) == 0 {
				t.Fatal("no fix in the fixture: the test proves nothing")
			}
			var after []checks.Input
			for _, in := range inputs {
				var buf bytes.Buffer
				enc := yaml.NewEncoder(&buf)
				enc.SetIndent(2)
				for _, d := range docs[in.Path] {
					if err := enc.Encode(d); err != nil {
						t.Fatal(err)
					}
				}
				_ = enc.Close()
				after = append(after, checks.Input{Path: in.Path, Data: buf.Bytes()})
			}
			for _, f := range checks.Run(after, cfg).Findings {
				k := objKey{f.File, f.Object.Kind, f.Object.Name}
				if f.RuleID == rule && fixed[k] && !unfixable[k] {
					t.Errorf("after the fix, %s still fires on %s %s/%s: %s", rule, f.File, f.Object.Kind, f.Object.Name, f.Message)
				}
				if f.RuleID == "schema-invalid" && fixed[k] {
					t.Errorf("the fix made %s %s/%s invalid: %s", f.File, f.Object.Kind, f.Object.Name, f.Message)
				}
			}
		})
	}
}

func sdDecodeAll(t *testing.T, data []byte) []*yaml.Node {
	t.Helper()
	var out []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &n)
	}
}

func sdFindDoc(docs []*yaml.Node, kind, name string) *yaml.Node {
	for _, d := range docs {
		if len(d.Content) == 0 {
			continue
		}
		root := d.Content[0]
		if sdScalar(root, "kind") == kind && sdScalar(sdChild(root, "metadata"), "name") == name {
			return root
		}
	}
	return nil
}

func sdChild(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func sdScalar(m *yaml.Node, key string) string {
	if n := sdChild(m, key); n != nil {
		return n.Value
	}
	return ""
}

// sdApply applies one op to a document's root mapping: Set creates missing
// parent mappings and replaces or adds the last key (or sequence item);
// Append adds to a sequence; Delete removes a key.
func sdApply(root *yaml.Node, op edit.Op) error {
	if len(op.Path) == 0 {
		return errors.New("empty path")
	}
	var value *yaml.Node
	if op.Action != edit.Delete {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(op.Value), &doc); err != nil {
			return err
		}
		if len(doc.Content) == 0 {
			return errors.New("empty value")
		}
		value = doc.Content[0]
	}
	n := root
	for _, e := range op.Path[:len(op.Path)-1] {
		switch n.Kind {
		case yaml.MappingNode:
			c := sdChild(n, e)
			if c == nil {
				c = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e}, c)
			}
			n = c
		case yaml.SequenceNode:
			i, err := strconv.Atoi(e)
			if err != nil || i < 0 || i >= len(n.Content) {
				return errors.New("bad index " + e)
			}
			n = n.Content[i]
		default:
			return errors.New("path runs through a scalar at " + e)
		}
	}
	last := op.Path[len(op.Path)-1]
	switch op.Action {
	case edit.Set:
		if n.Kind == yaml.SequenceNode {
			i, err := strconv.Atoi(last)
			if err != nil || i < 0 || i >= len(n.Content) {
				return errors.New("bad index " + last)
			}
			n.Content[i] = value
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return errors.New("set into a non-mapping")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == last {
				n.Content[i+1] = value
				return nil
			}
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, value)
	case edit.Append:
		seq := sdChild(n, last)
		if seq == nil {
			seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, seq)
		}
		seq.Content = append(seq.Content, value)
	case edit.Delete:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == last {
				n.Content = append(n.Content[:i], n.Content[i+2:]...)
				return nil
			}
		}
	}
	return nil
}
