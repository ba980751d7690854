package apicluster

import (
	"fmt"
	"strconv"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/plural"
)

var apiserverAuditLog = &checks.Rule{
	ID:       "apiserver-audit-log",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/",
	Why:      "a kube-apiserver without an audit policy and an audit backend records nothing; audit logs should be kept 30–45 days",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, fs := range serverFlagSets(obj) {
			_, policy := fs.Flags["audit-policy-file"]
			_, logPath := fs.Flags["audit-log-path"]
			_, webhook := fs.Flags["audit-webhook-config-file"]
			switch {
			case !policy:
				out = append(out, checks.At(obj, fs.Anchor, fmt.Sprintf("%s: no --audit-policy-file, so nothing is audited; add an audit policy file and --audit-log-path with --audit-log-maxage=30", fs.Label)))
				continue
			case !logPath && !webhook:
				out = append(out, checks.At(obj, fs.At("audit-policy-file"), fmt.Sprintf("%s: an audit policy but no --audit-log-path (or webhook backend), so nothing is written; add --audit-log-path with --audit-log-maxage=30", fs.Label)))
				continue
			}
			if f, ok := fs.Flags["audit-log-maxage"]; ok && logPath {
				if days, err := strconv.Atoi(f.Value); err == nil && days < 30 {
					out = append(out, checks.At(obj, f.Path, fmt.Sprintf("%s: audit logs are kept %s; keep them 30–45 days", fs.Label, plural.Count(days, "day", "days"))).
						WithFix("set --audit-log-maxage=30", fs.Set("audit-log-maxage", "30")...))
				}
			}
		}
		return out
	},
}
