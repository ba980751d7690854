package security

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

var seccompProfileMissing = &checks.Rule{
	ID:       "seccomp-profile-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/tutorials/security/seccomp/",
	Why:      "without a seccompProfile the container runs unconfined: every system call is allowed; RuntimeDefault blocks the dangerous ones",
	Check:    linuxPods(seccompFindings),
}

func seccompFindings(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
	if podSecurityContext(pt).SeccompProfile != nil || kube.PatchSets(ctx, obj, "", "securityContext") {
		return nil
	}
	all := true
	for _, c := range pt.AllContainers() {
		all = all && containerSecurityContext(c).SeccompProfile != nil
	}
	if all {
		return nil
	}
	p := pt.SpecPath.Child("securityContext", "seccompProfile")
	msg := "the pod sets no seccompProfile, so its containers run unconfined: set type RuntimeDefault on the pod"
	if _, ok := pt.Meta.Annotations["seccomp.security.alpha.kubernetes.io/pod"]; ok {
		msg = "the pod sets its seccomp profile only with the seccomp.security.alpha.kubernetes.io annotation, which is deprecated and ignored since Kubernetes 1.27: set securityContext.seccompProfile (type RuntimeDefault) on the pod"
	}
	return []checks.Finding{checks.At(obj, p, msg).WithFix("set the pod's seccompProfile to RuntimeDefault", kube.Set(obj, p.Child("type"), "RuntimeDefault", ""))}
}
