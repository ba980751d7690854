package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Custom-resource workloads: the kinds of Argo Rollouts, OpenKruise and
// Knative Serving whose controllers run pods from a pod template the way a
// built-in workload does. k8s.io/api has no type for them, so each type
// below holds only what the checks read: the pod template (decoded into
// corev1.PodTemplateSpec, the very type those projects embed, so every pod
// rule reads it and its node paths address the manifest's own lines),
// replicas, the selector, and what the kind adds that changes a verdict.
// They are decoded leniently: every other field of the custom resource is
// left alone, and an unknown field inside the pod template is not reported
// (the API server prunes such fields of a structural schema; which schema a
// cluster's CRD has is not in the repository).

// Rollout is an Argo Rollouts Rollout (argoproj.io/v1alpha1): a Deployment
// with canary or blue-green steps. Its pod template is spec.template, or
// the template of the Deployment that spec.workloadRef names.
type Rollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RolloutSpec `json:"spec"`
}

// RolloutSpec is the part of a Rollout's spec the checks read.
type RolloutSpec struct {
	// Replicas is spec.replicas (unset: 1, as Argo defaults it).
	Replicas *int32                `json:"replicas,omitempty"`
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Template is nil when the Rollout takes its pods from WorkloadRef.
	Template    *corev1.PodTemplateSpec `json:"template,omitempty"`
	WorkloadRef *WorkloadRef            `json:"workloadRef,omitempty"`
	Strategy    RolloutStrategy         `json:"strategy"`
}

// WorkloadRef is a Rollout's spec.workloadRef: the workload whose pod
// template the Rollout runs (a Deployment, in practice).
type WorkloadRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
	// ScaleDown says what Argo does with the referenced Deployment's own
	// pods: never (the default), onsuccess or progressively.
	ScaleDown string `json:"scaleDown,omitempty"`
}

// RolloutStrategy is a Rollout's spec.strategy: the Services it manages.
type RolloutStrategy struct {
	Canary    *CanaryStrategy    `json:"canary,omitempty"`
	BlueGreen *BlueGreenStrategy `json:"blueGreen,omitempty"`
}

// CanaryStrategy names the Services of a canary Rollout.
type CanaryStrategy struct {
	CanaryService string `json:"canaryService,omitempty"`
	StableService string `json:"stableService,omitempty"`
}

// BlueGreenStrategy names the Services of a blue-green Rollout.
type BlueGreenStrategy struct {
	ActiveService  string `json:"activeService,omitempty"`
	PreviewService string `json:"previewService,omitempty"`
}

// Services returns the names of the Services the Rollout's strategy names,
// whose selectors Argo completes with rollouts-pod-template-hash at run
// time.
func (r *Rollout) Services() []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	if c := r.Spec.Strategy.Canary; c != nil {
		add(c.CanaryService)
		add(c.StableService)
	}
	if b := r.Spec.Strategy.BlueGreen; b != nil {
		add(b.ActiveService)
		add(b.PreviewService)
	}
	return out
}

// CloneSet is an OpenKruise CloneSet (apps.kruise.io/v1alpha1): a
// Deployment with in-place updates.
type CloneSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ReplicatedSpec `json:"spec"`
}

// AdvancedStatefulSet is an OpenKruise Advanced StatefulSet
// (apps.kruise.io/v1alpha1 and v1beta1 StatefulSet): a StatefulSet with
// in-place updates and reserved ordinals.
type AdvancedStatefulSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ReplicatedSpec `json:"spec"`
}

// ReplicatedSpec is the part of a CloneSet's or Advanced StatefulSet's
// spec the checks read.
type ReplicatedSpec struct {
	// Replicas is spec.replicas (unset: 1, as OpenKruise defaults it).
	Replicas             *int32                         `json:"replicas,omitempty"`
	Selector             *metav1.LabelSelector          `json:"selector,omitempty"`
	Template             corev1.PodTemplateSpec         `json:"template"`
	ServiceName          string                         `json:"serviceName,omitempty"`
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`
}

// KnativeService is a Knative Serving Service (serving.knative.dev/v1):
// its pods come from spec.template, whose spec is a pod spec with a few
// Knative fields beside it, and Knative's autoscaler decides how many run
// (there is no replicas field).
type KnativeService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              KnativeServiceSpec `json:"spec"`
}

// KnativeServiceSpec is the part of a Knative Service's spec the checks read.
type KnativeServiceSpec struct {
	Template corev1.PodTemplateSpec `json:"template"`
}

// knativeDefaultContainer is the name Knative's defaulting gives the only
// container of a Service that names none.
const knativeDefaultContainer = "user-container"

// customWorkloads maps "apiVersion/Kind" of the custom-resource workloads to
// their Go type. They are decoded leniently (see the comment above).
var customWorkloads = map[string]*builtin{
	"argoproj.io/v1alpha1/Rollout":        leniently[Rollout](),
	"apps.kruise.io/v1alpha1/CloneSet":    leniently[CloneSet](),
	"apps.kruise.io/v1alpha1/StatefulSet": leniently[AdvancedStatefulSet](),
	"apps.kruise.io/v1beta1/StatefulSet":  leniently[AdvancedStatefulSet](),
	"serving.knative.dev/v1/Service":      leniently[KnativeService](),
}

// IsCustomWorkload reports whether apiVersion/kind is a custom-resource
// workload this package decodes (an Argo Rollout, an OpenKruise CloneSet or
// Advanced StatefulSet, a Knative Service).
func IsCustomWorkload(apiVersion, kind string) bool {
	_, ok := customWorkloads[apiVersion+"/"+kind]
	return ok
}

// finishCustomWorkload applies the defaulting of a custom-resource
// workload's controller that rules would otherwise read wrong: Knative
// names a Service's only container user-container.
func finishCustomWorkload(v any) {
	if k, ok := v.(*KnativeService); ok {
		if cs := k.Spec.Template.Spec.Containers; len(cs) == 1 && cs[0].Name == "" {
			cs[0].Name = knativeDefaultContainer
		}
	}
}

// Kinds a workload's controller behaves like (see Object.LikeKind).
const (
	LikeDeployment            = "Deployment"
	LikeStatefulSet           = "StatefulSet"
	LikeDaemonSet             = "DaemonSet"
	LikeReplicaSet            = "ReplicaSet"
	LikeReplicationController = "ReplicationController"
	LikeJob                   = "Job"
	LikeCronJob               = "CronJob"
	LikePod                   = "Pod"
	// LikeKnativeService is a workload scaled by Knative's autoscaler: no
	// replicas, no HPA, its drain handled by Knative's queue-proxy.
	LikeKnativeService = "KnativeService"
)

// LikeKind returns the built-in kind a decoded workload's controller
// behaves like, for rules that reason about kinds: "Deployment" for a
// Deployment, an Argo Rollout and an OpenKruise CloneSet, "StatefulSet" for
// a StatefulSet and an Advanced StatefulSet, the kind itself for the other
// built-in workloads, LikeKnativeService for a Knative Service, and "" for
// anything else (an object that did not decode included).
func (o *Object) LikeKind() string {
	switch o.Typed().(type) {
	case *appsv1.Deployment, *Rollout, *CloneSet:
		return LikeDeployment
	case *appsv1.StatefulSet, *AdvancedStatefulSet:
		return LikeStatefulSet
	case *appsv1.DaemonSet:
		return LikeDaemonSet
	case *appsv1.ReplicaSet:
		return LikeReplicaSet
	case *corev1.ReplicationController:
		return LikeReplicationController
	case *batchv1.Job:
		return LikeJob
	case *batchv1.CronJob:
		return LikeCronJob
	case *corev1.Pod:
		return LikePod
	case *KnativeService:
		return LikeKnativeService
	}
	return ""
}

// Rollout returns the object's Argo Rollout, or nil.
func (o *Object) Rollout() *Rollout {
	r, _ := o.Typed().(*Rollout)
	return r
}
