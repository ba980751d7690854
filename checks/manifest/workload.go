package manifest

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodTemplate is where a workload keeps its pods: the pod spec, the pod
// template's metadata, and the node paths of both.
type PodTemplate struct {
	Spec *corev1.PodSpec
	// Meta is the template's metadata (a bare Pod's own metadata).
	Meta     *metav1.ObjectMeta
	SpecPath Path
	MetaPath Path

	// The container lists, built once: rules ask for them many times.
	containersOnce, allOnce sync.Once
	containers, all         []Container
}

// Container is one container of a pod with its node path.
type Container struct {
	*corev1.Container
	// Path is e.g. spec.template.spec.containers.0.
	Path Path
	// Init is true for init containers, Sidecar for init containers with
	// restartPolicy Always (native sidecars, which run for the pod's life).
	Init, Sidecar bool
}

// LongRunning reports whether the container runs for the pod's whole life:
// a main container or a native sidecar.
func (c Container) LongRunning() bool { return !c.Init || c.Sidecar }

// IsWorkload reports whether the object has a pod template.
func (o *Object) IsWorkload() bool { return o.typed != nil && o.typed.workload }

// PodMeta returns the labels and annotations of a workload's pod template,
// and whether the object has one, without decoding a typed value that
// DropTyped let go: what the run's indexes read of every workload. Callers
// must not change the maps.
func (o *Object) PodMeta() (labels, annotations map[string]string, ok bool) {
	if s := o.typed; s != nil && s.workload {
		return s.podLabels, s.podAnnotations, true
	}
	return nil, nil, false
}

// IsLongRunning reports whether a workload's pods are meant to keep running
// (not a Job or CronJob). A Rollout whose pods come from its workloadRef
// has no pod template of its own, and is not a workload here.
func (o *Object) IsLongRunning() bool {
	switch o.Typed().(type) {
	case *batchv1.Job, *batchv1.CronJob:
		return false
	case *corev1.Pod:
		p := o.Typed().(*corev1.Pod)
		return p.Spec.RestartPolicy == "" || p.Spec.RestartPolicy == corev1.RestartPolicyAlways
	}
	return o.IsWorkload()
}

var (
	templatePath    = Path{"spec", "template"}
	cronJobTemplate = Path{"spec", "jobTemplate", "spec", "template"}
)

// PodTemplate returns the pod template of a workload, or nil. It is worked
// out once, when the document is parsed, and shared: callers must not
// change the result.
func (o *Object) PodTemplate() *PodTemplate {
	if t := o.typedValue(); t != nil {
		return t.pt
	}
	return nil
}

// podTemplateOf returns the pod template of a typed value, or nil.
func podTemplateOf(typed any) *PodTemplate {
	tpl := func(t *corev1.PodTemplateSpec, at Path) *PodTemplate {
		return &PodTemplate{Spec: &t.Spec, Meta: &t.ObjectMeta, SpecPath: at.Child("spec"), MetaPath: at.Child("metadata")}
	}
	switch v := typed.(type) {
	case *corev1.Pod:
		return &PodTemplate{Spec: &v.Spec, Meta: &v.ObjectMeta, SpecPath: Path{"spec"}, MetaPath: Path{"metadata"}}
	case *appsv1.Deployment:
		return tpl(&v.Spec.Template, templatePath)
	case *appsv1.StatefulSet:
		return tpl(&v.Spec.Template, templatePath)
	case *appsv1.DaemonSet:
		return tpl(&v.Spec.Template, templatePath)
	case *appsv1.ReplicaSet:
		return tpl(&v.Spec.Template, templatePath)
	case *corev1.ReplicationController:
		if v.Spec.Template == nil {
			return nil
		}
		return tpl(v.Spec.Template, templatePath)
	case *batchv1.Job:
		return tpl(&v.Spec.Template, templatePath)
	case *batchv1.CronJob:
		return tpl(&v.Spec.JobTemplate.Spec.Template, cronJobTemplate)
	case *Rollout:
		if v.Spec.Template == nil {
			return nil // its pods come from spec.workloadRef's template, in another document
		}
		return tpl(v.Spec.Template, templatePath)
	case *CloneSet:
		return tpl(&v.Spec.Template, templatePath)
	case *AdvancedStatefulSet:
		return tpl(&v.Spec.Template, templatePath)
	case *KnativeService:
		return tpl(&v.Spec.Template, templatePath)
	}
	return nil
}

// Containers returns the long-running containers: main containers and
// native sidecars (init containers with restartPolicy Always). The slice is
// shared: append to it, but do not change its elements.
func (p *PodTemplate) Containers() []Container {
	p.containersOnce.Do(func() { p.containers = p.buildContainers() })
	return p.containers[:len(p.containers):len(p.containers)]
}

func (p *PodTemplate) buildContainers() []Container {
	var out []Container
	for i := range p.Spec.Containers {
		out = append(out, Container{Container: &p.Spec.Containers[i], Path: p.SpecPath.Child("containers", Index(i))})
	}
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out = append(out, Container{Container: c, Path: p.SpecPath.Child("initContainers", Index(i)), Init: true, Sidecar: true})
		}
	}
	return out
}

// AllContainers returns main containers and every init container (for the
// security rules, which apply to both). Ephemeral containers are left out.
// The slice is shared: append to it, but do not change its elements.
func (p *PodTemplate) AllContainers() []Container {
	p.allOnce.Do(func() { p.all = p.buildAllContainers() })
	return p.all[:len(p.all):len(p.all)]
}

func (p *PodTemplate) buildAllContainers() []Container {
	out := append([]Container(nil), p.Containers()...)
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			out = append(out, Container{Container: c, Path: p.SpecPath.Child("initContainers", Index(i)), Init: true})
		}
	}
	return out
}

// Replicas returns spec.replicas of a Deployment, StatefulSet, ReplicaSet,
// ReplicationController, Argo Rollout, OpenKruise CloneSet or Advanced
// StatefulSet, and whether it is written in the manifest. An unset count is
// 1, as the API server (or the controller) defaults it. Other kinds (a
// Knative Service among them: its autoscaler decides) return 0, false.
func (o *Object) Replicas() (n int32, set bool) {
	var r *int32
	switch v := o.Typed().(type) {
	case *appsv1.Deployment:
		r = v.Spec.Replicas
	case *appsv1.StatefulSet:
		r = v.Spec.Replicas
	case *appsv1.ReplicaSet:
		r = v.Spec.Replicas
	case *corev1.ReplicationController:
		r = v.Spec.Replicas
	case *Rollout:
		r = v.Spec.Replicas
	case *CloneSet:
		r = v.Spec.Replicas
	case *AdvancedStatefulSet:
		r = v.Spec.Replicas
	default:
		return 0, false
	}
	if r == nil {
		return 1, false
	}
	return *r, true
}

// Selector returns a workload's label selector (nil when it has none, or for
// a ReplicationController, whose selector is a plain map: see RCSelector).
func (o *Object) Selector() *metav1.LabelSelector {
	switch v := o.Typed().(type) {
	case *appsv1.Deployment:
		return v.Spec.Selector
	case *appsv1.StatefulSet:
		return v.Spec.Selector
	case *appsv1.DaemonSet:
		return v.Spec.Selector
	case *appsv1.ReplicaSet:
		return v.Spec.Selector
	case *corev1.ReplicationController:
		if v.Spec.Selector == nil {
			return nil
		}
		return &metav1.LabelSelector{MatchLabels: v.Spec.Selector}
	case *batchv1.Job:
		return v.Spec.Selector
	case *Rollout:
		return v.Spec.Selector
	case *CloneSet:
		return v.Spec.Selector
	case *AdvancedStatefulSet:
		return v.Spec.Selector
	}
	return nil
}
