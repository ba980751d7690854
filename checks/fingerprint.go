package checks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
