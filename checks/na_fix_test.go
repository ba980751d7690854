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

// naApplyOps applies edit ops to document doc of src on the node tree (a
// stand-in for the text editor: it checks what a fix means, not its layout)
// and returns the re-encoded file.
func naApplyOps(t *testing.T, src []byte, doc int, ops []edit.Op) []byte {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, &n)
	}
	if doc >= len(docs) {
		t.Fatalf("document %d not found", doc)
	}
	root := docs[doc].Content[0]
	for _, op := range ops {
		var val yaml.Node
		if op.Value != "" {
			if err := yaml.Unmarshal([]byte(op.Value), &val); err != nil {
				t.Fatalf("op value %q: %v", op.Value, err)
			}
		}
		parent, last := naWalkCreate(t, root, op.Path)
		switch op.Action {
		case edit.Set:
			naSetChild(parent, last, val.Content[0])
		case edit.Append:
			seq := naChild(parent, last)
			if seq == nil {
				seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
				naSetChild(parent, last, seq)
			}
			seq.Content = append(seq.Content, val.Content[0])
		case edit.Delete:
			naDeleteChild(parent, last)
		}
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func naWalkCreate(t *testing.T, n *yaml.Node, path []string) (*yaml.Node, string) {
	t.Helper()
	for _, e := range path[:len(path)-1] {
		c := naChild(n, e)
		if c == nil {
			c = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			naSetChild(n, e, c)
		}
		n = c
	}
	return n, path[len(path)-1]
}

func naChild(n *yaml.Node, e string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == e {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(e); err == nil && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}

func naSetChild(n *yaml.Node, e string, v *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == e {
				n.Content[i+1] = v
				return
			}
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e}, v)
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(e); err == nil && i < len(n.Content) {
			n.Content[i] = v
		}
	}
}

func naDeleteChild(n *yaml.Node, e string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == e {
				n.Content = append(n.Content[:i], n.Content[i+2:]...)
				return
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(e); err == nil && i < len(n.Content) {
			n.Content = append(n.Content[:i], n.Content[i+1:]...)
		}
	}
}

// TestFixesResolveNetworkAccess applies every fix that this family's rules
// suggest on their fixtures, checks again, and requires that the finding is
// gone and that the object still decodes strictly (the API server accepts it).
func TestFixesResolveNetworkAccess(t *testing.T) {
	rules := []string{"api-removed", "api-deprecated", "job-ttl-missing", "apiserver-insecure-flag", "apiserver-audit-log"}
	for _, rule := range rules {
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
		fixes := 0
		for _, f := range res.Findings {
			if f.RuleID != rule || f.Fix == nil {
				continue
			}
			fixes++
			t.Run(rule+"/"+filepath.Base(f.File)+":"+strconv.Itoa(f.Line), func(t *testing.T) {
				var changed []checks.Input
				for _, in := range inputs {
					if in.Path == f.File {
						in = checks.Input{Path: in.Path, Data: naApplyOps(t, in.Data, f.Object.Doc, f.Fix.Edits)}
					}
					changed = append(changed, in)
				}
				for _, g := range checks.Run(changed, cfg).Findings {
					if g.File != f.File || g.Object.Kind != f.Object.Kind || g.Object.Name != f.Object.Name {
						continue
					}
					if g.RuleID == "schema-invalid" || g.RuleID == "yaml-invalid" {
						t.Errorf("after the fix %q the object no longer decodes: %s", f.Fix.Description, g.Message)
					}
					if g.RuleID == rule && g.Path == f.Path && g.Message == f.Message {
						t.Errorf("the fix %q did not resolve: %s", f.Fix.Description, g.Message)
					}
				}
			})
		}
		if fixes == 0 {
			t.Errorf("no fix among the %s fixture findings", rule)
		}
	}
}
