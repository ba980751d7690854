package checks

import (
	"github.com/prodready/prodready/checks/manifest"
)

var seccompProfileMissing = &Rule{
	ID:       "seccomp-profile-missing",
	Section:  sectionSecurity,
	Severity: Info,
	Why:      "without a seccompProfile the container runs unconfined: every system call is allowed; RuntimeDefault blocks the dangerous ones",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || secWindows(pt) {
			return nil
		}
		return secSeccompFindings(ctx, obj, pt)
	},
}

func secSeccompFindings(ctx *Context, obj *manifest.Object, pt *manifest.PodTemplate) []Finding {
	if secPodCtx(pt).SeccompProfile != nil || resPatchSets(ctx, obj, "", "securityContext") {
		return nil
	}
	all := true
	for _, c := range pt.AllContainers() {
		all = all && secCtx(c).SeccompProfile != nil
	}
	if all {
		return nil
	}
	p := pt.SpecPath.Child("securityContext", "seccompProfile")
	msg := "the pod sets no seccompProfile, so its containers run unconfined: set type RuntimeDefault on the pod"
	if _, ok := pt.Meta.Annotations["seccomp.security.alpha.kubernetes.io/pod"]; ok {
		msg = "the pod sets its seccomp profile only with the seccomp.security.alpha.kubernetes.io annotation, which is deprecated and ignored since Kubernetes 1.27: set securityContext.seccompProfile (type RuntimeDefault) on the pod"
	}
	return []Finding{At(obj, p, msg).WithFix("set the pod's seccompProfile to RuntimeDefault", resSet(obj, p.Child("type"), "RuntimeDefault", ""))}
}
