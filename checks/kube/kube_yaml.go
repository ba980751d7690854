package kube

import (
	"bytes"

	yaml "go.yaml.in/yaml/v3"
)

// EncodeYAML renders a node as block YAML with two-space indentation.
func EncodeYAML(n *yaml.Node) (string, bool) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", false
	}
	if err := enc.Close(); err != nil {
		return "", false
	}
	return b.String(), true
}
