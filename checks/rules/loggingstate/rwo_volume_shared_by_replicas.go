package loggingstate

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

var rwoVolumeSharedByReplicas = &checks.Rule{
	ID:       "rwo-volume-shared-by-replicas",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes",
	Why:      "a Deployment with several replicas mounts a ReadWriteOnce PersistentVolumeClaim: once two replicas land on different nodes the volume cannot attach (Multi-Attach error) and pods hang in ContainerCreating",
	Help:     "Use a StatefulSet with volumeClaimTemplates (one volume per replica), a ReadWriteMany volume, or one replica with the Recreate strategy.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		// A Rollout and a CloneSet share a claim among replicas as a
		// Deployment does (a CloneSet's volumeClaimTemplates give each pod
		// its own claim, and are not in its template's volumes).
		pt := obj.PodTemplate()
		if obj.LikeKind() != manifest.LikeDeployment || pt == nil || obj.Patch {
			return nil
		}
		// A Deployment a Rollout's workloadRef names runs the Rollout's
		// replicas, scaled by the Rollout's autoscalers.
		scaled := obj
		if r := kube.ReferencingRollout(ctx, obj); r != nil {
			scaled = r
		}
		replicas, _ := scaled.Replicas()
		if min, ok := ctx.HPAMinReplicas(scaled); ok && min > replicas {
			replicas = min
		}
		if replicas <= 1 {
			return nil
		}
		var out []checks.Finding
		for i, v := range pt.Spec.Volumes {
			if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName == "" || manifest.IsPlaceholder(v.PersistentVolumeClaim.ClaimName) {
				continue
			}
			claim := v.PersistentVolumeClaim.ClaimName
			path := pt.SpecPath.Child("volumes", manifest.Index(i), "persistentVolumeClaim", "claimName")
			pvc, found := findClaim(ctx, obj, claim)
			if !found {
				msg := fmt.Sprintf("the %s runs %d replicas and mounts PersistentVolumeClaim %q, which is not in the repository: if its access mode is ReadWriteOnce, replicas on different nodes fail with a Multi-Attach error (use a StatefulSet with volumeClaimTemplates, or a ReadWriteMany volume)", obj.Kind, replicas, claim)
				out = append(out, checks.At(obj, path, msg).WithSeverity(checks.Info))
				continue
			}
			if !onlyRWO(pvc.Spec.AccessModes) {
				continue
			}
			msg := fmt.Sprintf("the %s runs %d replicas and mounts PersistentVolumeClaim %q, whose access mode is ReadWriteOnce: replicas on different nodes fail with a Multi-Attach error and hang in ContainerCreating (use a StatefulSet with volumeClaimTemplates, a ReadWriteMany volume, or one replica with the Recreate strategy)", obj.Kind, replicas, claim)
			out = append(out, checks.At(obj, path, msg))
		}
		return out
	},
}

// findClaim returns the PersistentVolumeClaim named claim that obj's pods
// would mount: in obj's deployment unit first, then anywhere in the run (in
// a namespace obj may share).
func findClaim(ctx *checks.Context, obj *manifest.Object, claim string) (*corev1.PersistentVolumeClaim, bool) {
	var fallback *corev1.PersistentVolumeClaim
	for _, o := range ctx.ByKind("PersistentVolumeClaim") {
		pvc, ok := o.Typed().(*corev1.PersistentVolumeClaim)
		if !ok || o.Name != claim || !ctx.SameNamespace(o, obj) {
			continue
		}
		if ctx.Unit(o) == ctx.Unit(obj) {
			return pvc, true
		}
		if fallback == nil {
			fallback = pvc
		}
	}
	return fallback, fallback != nil
}

// onlyRWO reports whether access modes allow a single node only.
func onlyRWO(modes []corev1.PersistentVolumeAccessMode) bool {
	single := false
	for _, m := range modes {
		switch m {
		case corev1.ReadWriteOnce, corev1.ReadWriteOncePod:
			single = true
		default:
			return false // ReadWriteMany or ReadOnlyMany: several nodes can mount it
		}
	}
	return single
}
