package security

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

const section = "8. Security context"

// placeholderID is the UID/GID a run-as-root fix starts from.
const placeholderID = 10001

// windows reports whether the pod runs on Windows, where the Linux
// security settings do not apply (and some are rejected): it says so in
// os.name, schedules only on Windows nodes (nodeSelector
// kubernetes.io/os: windows, as Windows DaemonSets without os.name do),
// or is a HostProcess pod, which only Windows nodes run.
func windows(pt *manifest.PodTemplate) bool {
	s := pt.Spec
	if s.OS != nil && s.OS.Name == corev1.Windows || s.NodeSelector[corev1.LabelOSStable] == string(corev1.Windows) {
		return true
	}
	if sc := s.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.HostProcess != nil && *sc.WindowsOptions.HostProcess {
		return true
	}
	return false
}

// linuxPods returns a rule's Check that calls check with the pod template
// of each whole workload whose pods run on Linux: the Linux security
// settings do not apply to Windows pods (and some are rejected there).
func linuxPods(check kube.PodCheck) func(*checks.Context, *manifest.Object) []checks.Finding {
	return kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		if windows(pt) {
			return nil
		}
		return check(ctx, obj, pt)
	})
}

// appPods returns a rule's Check that calls check with the pod template of
// each whole workload but the static control-plane pods, which must run in
// the host's namespaces with the node's identity.
func appPods(check kube.PodCheck) func(*checks.Context, *manifest.Object) []checks.Finding {
	return kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		if staticControlPlane(obj) {
			return nil
		}
		return check(ctx, obj, pt)
	})
}

// containerSecurityContext returns the container's securityContext, never nil.
func containerSecurityContext(c manifest.Container) *corev1.SecurityContext {
	if c.SecurityContext == nil {
		return &corev1.SecurityContext{}
	}
	return c.SecurityContext
}

// podSecurityContext returns the pod's securityContext, never nil.
func podSecurityContext(pt *manifest.PodTemplate) *corev1.PodSecurityContext {
	if pt.Spec.SecurityContext == nil {
		return &corev1.PodSecurityContext{}
	}
	return pt.Spec.SecurityContext
}

// setting is an effective security setting: its value and the path of
// the key that decides it (container over pod), nil when neither sets it.
type setting[T any] struct {
	val  *T
	path manifest.Path
}

func effective[T any](pt *manifest.PodTemplate, c manifest.Container, cv, pv *T, key string) setting[T] {
	switch {
	case cv != nil:
		return setting[T]{cv, c.Path.Child("securityContext", key)}
	case pv != nil:
		return setting[T]{pv, pt.SpecPath.Child("securityContext", key)}
	}
	return setting[T]{}
}

func runAsUser(pt *manifest.PodTemplate, c manifest.Container) setting[int64] {
	return effective(pt, c, containerSecurityContext(c).RunAsUser, podSecurityContext(pt).RunAsUser, "runAsUser")
}

func runAsGroup(pt *manifest.PodTemplate, c manifest.Container) setting[int64] {
	return effective(pt, c, containerSecurityContext(c).RunAsGroup, podSecurityContext(pt).RunAsGroup, "runAsGroup")
}

func runAsNonRoot(pt *manifest.PodTemplate, c manifest.Container) setting[bool] {
	return effective(pt, c, containerSecurityContext(c).RunAsNonRoot, podSecurityContext(pt).RunAsNonRoot, "runAsNonRoot")
}

// runsAsNonRoot reports whether the effective settings keep the
// container from running as root (user; the group is run-as-root's concern).
func runsAsNonRoot(pt *manifest.PodTemplate, c manifest.Container) bool {
	u := runAsUser(pt, c)
	if u.val != nil {
		return *u.val != 0
	}
	n := runAsNonRoot(pt, c)
	return n.val != nil && *n.val
}

// privileged reports whether the container sets privileged: true.
func privileged(c manifest.Container) bool {
	p := containerSecurityContext(c).Privileged
	return p != nil && *p
}

// capName normalizes a capability name: upper case, no CAP_ prefix.
func capName(c corev1.Capability) string {
	return strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(string(c))), "CAP_")
}

// addsCap reports whether the container adds capability name (or ALL).
func addsCap(c manifest.Container, name string) bool {
	caps := containerSecurityContext(c).Capabilities
	if caps == nil {
		return false
	}
	for _, a := range caps.Add {
		if n := capName(a); n == name || n == "ALL" {
			return true
		}
	}
	return false
}

// staticControlPlane reports whether obj is a static control-plane pod
// (kubeadm's kube-apiserver, etcd, scheduler, controller-manager manifests),
// which must share the host's namespaces.
func staticControlPlane(obj *manifest.Object) bool {
	if _, ok := obj.Typed().(*corev1.Pod); !ok {
		return false
	}
	if obj.Labels["tier"] == "control-plane" {
		return true
	}
	switch obj.Labels["component"] {
	case "kube-apiserver", "etcd", "kube-scheduler", "kube-controller-manager":
		return true
	}
	if obj.File != nil && strings.Contains(obj.File.Path, "manifests") {
		for _, n := range []string{"kube-apiserver", "etcd", "kube-scheduler", "kube-controller-manager"} {
			if strings.HasPrefix(obj.Name, n) {
				return true
			}
		}
	}
	return false
}

// quoteList quotes each of dirs and joins them: "/a", "/b" and "/c".
func quoteList(dirs []string) string {
	q := make([]string, len(dirs))
	for i, d := range dirs {
		q[i] = strconv.Quote(d)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// serviceAccount returns the ServiceAccount the pod runs as.
func serviceAccount(pt *manifest.PodTemplate) string {
	if pt.Spec.ServiceAccountName != "" {
		return pt.Spec.ServiceAccountName
	}
	if pt.Spec.DeprecatedServiceAccount != "" {
		return pt.Spec.DeprecatedServiceAccount
	}
	return "default"
}

// mountsTokenHere reports whether the pod, as obj writes it, mounts its
// ServiceAccount's API token: automountServiceAccountToken is not false,
// and no overlay's patch sets it or the ServiceAccount (the patch decides).
func mountsTokenHere(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) bool {
	if kube.PatchSets(ctx, obj, "", "automountServiceAccountToken") || kube.PatchSets(ctx, obj, "", "serviceAccountName") {
		return false
	}
	a := pt.Spec.AutomountServiceAccountToken
	return a == nil || *a
}

// findServiceAccounts returns the ServiceAccounts named name that may
// live in obj's namespace.
func findServiceAccounts(ctx *checks.Context, obj *manifest.Object, name string) []*manifest.Object {
	var out []*manifest.Object
	for _, s := range ctx.ByKind("ServiceAccount") {
		if s.Name == name && ctx.SameNamespace(s, obj) && !s.Patch {
			out = append(out, s)
		}
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// volume returns the pod's volume named name, or nil.
func volume(pt *manifest.PodTemplate, name string) *corev1.Volume {
	for i := range pt.Spec.Volumes {
		if pt.Spec.Volumes[i].Name == name {
			return &pt.Spec.Volumes[i]
		}
	}
	return nil
}

// patched reports whether a kustomize patch of obj sets the container's
// or the pod's securityContext (the rendered object is what gets applied).
func patched(ctx *checks.Context, obj *manifest.Object, c manifest.Container) bool {
	return kube.PatchSets(ctx, obj, c.Name, "securityContext") || kube.PatchSets(ctx, obj, "", "securityContext")
}

// nodeHostPaths are host paths whose mount makes a container a node agent
// that privileged mode may really serve: devices, kernel interfaces, the
// kubelet's and the container runtime's state.
var nodeHostPaths = []string{"/dev", "/sys", "/proc", "/var/lib/kubelet", "/run/containerd", "/var/run/containerd", "/var/lib/containerd", "/var/run/docker.sock", "/run/crio", "/var/run/crio", "/lib/modules"}

// nodeAgentImages are image name parts of CSI drivers, storage and network
// plugins and device agents, which run privileged by design.
var nodeAgentImages = []string{"csi", "node-driver-registrar", "livenessprobe", "calico", "cilium", "flannel", "weave", "kube-proxy", "multus", "antrea", "kube-router", "ovn", "ceph", "rook", "longhorn", "portworx", "openebs", "nvidia", "device-plugin", "node-exporter", "falco", "sysdig"}

// nodeAgentNeed says why container c of pt looks like a node agent that
// needs privileged mode ("" when it does not): a volume mount with
// Bidirectional propagation (the API server accepts it only for privileged
// containers), a host path among nodeHostPaths, the host's PID or network
// namespace, or the image of a CSI, storage or network plugin.
func nodeAgentNeed(pt *manifest.PodTemplate, c manifest.Container) string {
	for _, m := range c.VolumeMounts {
		if m.MountPropagation != nil && *m.MountPropagation == corev1.MountPropagationBidirectional {
			return fmt.Sprintf("it mounts %q with mountPropagation: Bidirectional, which the API server accepts only for a privileged container", m.MountPath)
		}
	}
	for _, m := range c.VolumeMounts {
		v := volume(pt, m.Name)
		if v == nil || v.HostPath == nil {
			continue
		}
		hp := path.Clean(v.HostPath.Path)
		for _, p := range nodeHostPaths {
			if hp == p || strings.HasPrefix(hp, p+"/") {
				return fmt.Sprintf("it mounts the host's %q", hp)
			}
		}
	}
	switch {
	case pt.Spec.HostPID:
		return "the pod shares the host's PID namespace"
	case pt.Spec.HostNetwork:
		return "the pod shares the host's network namespace"
	}
	name := strings.ToLower(c.Image)
	name, _, _ = strings.Cut(name, "@")
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name = name[:i]
	}
	for _, part := range strings.Split(name, "/") {
		for _, a := range nodeAgentImages {
			if strings.Contains(part, a) {
				return fmt.Sprintf("its image %q is a CSI, storage, network or device plugin", c.Image)
			}
		}
	}
	return ""
}
