package checks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Fingerprint identifies a finding across pushes: rule, file, object and
// message, but not the line, which moves when lines are added above it.
// It is what keeps the bot from commenting twice on the same finding.
func (f Finding) Fingerprint() string {
	h := sha256.New()
	for _, s := range []string{f.RuleID, f.File, f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Path, f.Message} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	if f.Occurrence > 0 {
		fmt.Fprintf(h, "#%d", f.Occurrence)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Describe renders a fix's edits for people, one line each:
// "set spec.replicas: 3".
func (fx *Fix) Describe() []string {
	var out []string
	for _, op := range fx.Edits {
		p := strings.Join(op.Path, ".")
		v := strings.TrimSpace(op.Value)
		if strings.Contains(v, "\n") {
			v = "\n" + indentLines(v, "  ") // under the op line, one level deeper
		}
		sep := ": "
		if strings.HasPrefix(v, "\n") {
			sep = ":"
		}
		switch op.Action {
		case "delete":
			out = append(out, "delete "+p)
		case "append":
			out = append(out, "append to "+p+sep+v)
		default:
			out = append(out, "set "+p+sep+v)
		}
	}
	return out
}

func indentLines(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
