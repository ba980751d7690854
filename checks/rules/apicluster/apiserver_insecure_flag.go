package apicluster

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var apiserverInsecureFlag = &checks.Rule{
	ID:       "apiserver-insecure-flag",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://www.cisecurity.org/benchmark/kubernetes",
	Why:      "kube-apiserver flags that the CIS benchmark (1.2.x, as kube-bench reports them) marks insecure: profiling on, anonymous-auth=true, insecure-port, NodeRestriction not enabled",
	Help:     "Reads kube-apiserver static pods (a container named kube-apiserver or running it) and kubeadm ClusterConfiguration apiServer.extraArgs (a map up to v1beta3, a list of {name, value} from v1beta4).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, fs := range serverFlagSets(obj) {
			if f, ok := fs.Flags["profiling"]; !ok || f.Value != "false" {
				msg := fmt.Sprintf("%s: profiling is on (the default) and exposes /debug/pprof with runtime details; set --profiling=false (CIS 1.2.x)", fs.Label)
				out = append(out, checks.At(obj, fs.At("profiling"), msg).WithExactFix("set --profiling=false", fs.Set("profiling", "false")...))
			}
			if f, ok := fs.Flags["anonymous-auth"]; ok && f.Value == "true" {
				out = append(out, checks.At(obj, f.Path, fmt.Sprintf("%s: --anonymous-auth=true lets unauthenticated requests in as system:anonymous; leave it unset or false, and if kubeadm's health probes need it, restrict anonymous access to the health endpoints with an authentication config (kubernetes#100581)", fs.Label)))
			}
			if f, ok := fs.Flags["insecure-port"]; ok {
				out = append(out, checks.At(obj, f.Path, fmt.Sprintf("%s: --insecure-port does nothing since 1.20 and kube-apiserver refuses to start once the flag is removed; delete it", fs.Label)).
					WithExactFix("remove --insecure-port", fs.Delete("insecure-port")...))
			}
			plugins, set := fs.Flags["enable-admission-plugins"]
			if (set || !fs.Kubeadm) && !listHas(plugins.Value, "NodeRestriction") {
				msg := fmt.Sprintf("%s: the NodeRestriction admission plugin is not enabled, so a kubelet can modify other nodes and their pods; add NodeRestriction to --enable-admission-plugins (CIS 1.2.x)", fs.Label)
				out = append(out, checks.At(obj, fs.At("enable-admission-plugins"), msg))
			}
		}
		return out
	},
}

// listHas reports whether a comma-separated flag value holds item.
func listHas(list, item string) bool {
	for _, e := range strings.Split(list, ",") {
		if strings.TrimSpace(e) == item {
			return true
		}
	}
	return false
}
