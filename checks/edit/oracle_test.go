package edit

import (
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// oracle applies op to plain decoded data (maps and slices), independently
// of the engine's node-level model, so random tests can check Apply's
// result against it. ok is false when the case is outside what it models
// (errors, non-string keys, aliases).
func oracle(data any, op Op) (out any, ok bool) {
	var v any
	if op.Action != Delete {
		if err := yaml.Unmarshal([]byte(op.Value), &v); err != nil {
			return nil, false
		}
		if op.Action == Append {
			v = []any{v}
		}
	}
	return oracleAt(data, op.Path, op.Action, v)
}

func oracleAt(n any, path []string, action Action, v any) (any, bool) {
	if len(path) == 0 {
		if action != Append {
			return nil, false
		}
		switch s := n.(type) {
		case nil:
			return v, true
		case []any:
			return append(s, v.([]any)...), true
		}
		return nil, false
	}
	el, rest := path[0], path[1:]
	switch c := n.(type) {
	case nil:
		if action == Delete {
			return nil, true
		}
		return oracleAt(map[string]any{}, path, action, v)
	case map[string]any:
		cur, found := c[el]
		if !found {
			if action == Delete {
				return c, true
			}
			for _, k := range rest {
				if _, isIdx := index(k); isIdx {
					return nil, false
				}
			}
			nv := v
			for i := len(rest) - 1; i >= 0; i-- {
				nv = map[string]any{rest[i]: nv}
			}
			c[el] = nv
			return c, true
		}
		if len(rest) == 0 && action == Delete {
			delete(c, el)
			if len(c) == 0 {
				return map[string]any{}, true
			}
			return c, true
		}
		if len(rest) == 0 && action == Set {
			c[el] = v
			return c, true
		}
		r, ok := oracleAt(cur, rest, action, v)
		c[el] = r
		return c, ok
	case []any:
		i, err := strconv.Atoi(el)
		if err != nil || i < 0 || i >= len(c) {
			return c, action == Delete && err == nil
		}
		if len(rest) == 0 && action == Delete {
			return append(c[:i:i], c[i+1:]...), true
		}
		if len(rest) == 0 && action == Set {
			c[i] = v
			return c, true
		}
		r, ok := oracleAt(c[i], rest, action, v)
		c[i] = r
		return c, ok
	default:
		return n, action == Delete
	}
}

// hasAliasOrOddKey reports nodes the oracle does not model.
func hasAliasOrOddKey(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return true
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" || k.Value == "<<" {
				return true
			}
		}
	}
	for _, c := range n.Content {
		if hasAliasOrOddKey(c) {
			return true
		}
	}
	return false
}
