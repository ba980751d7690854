package checks

import (
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

const sectionSecurity = "8. Security context"

// secPlaceholderID is the UID/GID a run-as-root fix starts from.
const secPlaceholderID = 10001

// secWindows reports whether the pod runs on Windows, where the Linux
// security settings do not apply (and some are rejected).
func secWindows(pt *manifest.PodTemplate) bool {
	return pt.Spec.OS != nil && pt.Spec.OS.Name == corev1.Windows
}

// secCtx returns the container's securityContext, never nil.
func secCtx(c manifest.Container) *corev1.SecurityContext {
	if c.SecurityContext == nil {
		return &corev1.SecurityContext{}
	}
	return c.SecurityContext
}

// secPodCtx returns the pod's securityContext, never nil.
func secPodCtx(pt *manifest.PodTemplate) *corev1.PodSecurityContext {
	if pt.Spec.SecurityContext == nil {
		return &corev1.PodSecurityContext{}
	}
	return pt.Spec.SecurityContext
}

// secSetting is an effective security setting: its value and the path of
// the key that decides it (container over pod), nil when neither sets it.
type secSetting[T any] struct {
	val  *T
	path manifest.Path
}

func secEffective[T any](pt *manifest.PodTemplate, c manifest.Container, cv, pv *T, key string) secSetting[T] {
	switch {
	case cv != nil:
		return secSetting[T]{cv, c.Path.Child("securityContext", key)}
	case pv != nil:
		return secSetting[T]{pv, pt.SpecPath.Child("securityContext", key)}
	}
	return secSetting[T]{}
}

func secRunAsUser(pt *manifest.PodTemplate, c manifest.Container) secSetting[int64] {
	return secEffective(pt, c, secCtx(c).RunAsUser, secPodCtx(pt).RunAsUser, "runAsUser")
}

func secRunAsGroup(pt *manifest.PodTemplate, c manifest.Container) secSetting[int64] {
	return secEffective(pt, c, secCtx(c).RunAsGroup, secPodCtx(pt).RunAsGroup, "runAsGroup")
}

func secRunAsNonRoot(pt *manifest.PodTemplate, c manifest.Container) secSetting[bool] {
	return secEffective(pt, c, secCtx(c).RunAsNonRoot, secPodCtx(pt).RunAsNonRoot, "runAsNonRoot")
}

// secRunsAsNonRoot reports whether the effective settings keep the
// container from running as root (user; the group is run-as-root's concern).
func secRunsAsNonRoot(pt *manifest.PodTemplate, c manifest.Container) bool {
	u := secRunAsUser(pt, c)
	if u.val != nil {
		return *u.val != 0
	}
	n := secRunAsNonRoot(pt, c)
	return n.val != nil && *n.val
}

// secPrivileged reports whether the container sets privileged: true.
func secPrivileged(c manifest.Container) bool {
	p := secCtx(c).Privileged
	return p != nil && *p
}

// secCapName normalizes a capability name: upper case, no CAP_ prefix.
func secCapName(c corev1.Capability) string {
	return strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(string(c))), "CAP_")
}

// secAddsCap reports whether the container adds capability name (or ALL).
func secAddsCap(c manifest.Container, name string) bool {
	caps := secCtx(c).Capabilities
	if caps == nil {
		return false
	}
	for _, a := range caps.Add {
		if n := secCapName(a); n == name || n == "ALL" {
			return true
		}
	}
	return false
}

// secStaticControlPlane reports whether obj is a static control-plane pod
// (kubeadm's kube-apiserver, etcd, scheduler, controller-manager manifests),
// which must share the host's namespaces.
func secStaticControlPlane(obj *manifest.Object) bool {
	if _, ok := obj.Typed.(*corev1.Pod); !ok {
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

// secImageWriters are images known to write outside /tmp (caches, pid
// files, data directories), so a read-only root filesystem needs more than
// an emptyDir at /tmp.
var secImageWriters = []string{"nginx", "mysql", "postgres", "postgresql", "redis", "mariadb", "mongo", "mongodb",
	"rabbitmq", "elasticsearch", "opensearch", "httpd", "apache", "wordpress", "jenkins", "tomcat", "kafka",
	"zookeeper", "cassandra", "php", "drupal", "ghost", "nextcloud", "sonarqube", "gitlab", "influxdb", "clickhouse",
	"couchdb", "solr", "keycloak", "grafana", "openresty", "haproxy", "varnish", "squid"}

// secImageWriter returns the known image family an image belongs to, or "".
func secImageWriter(image string) string {
	repo := image
	if i := strings.Index(repo, "@"); i >= 0 {
		repo = repo[:i]
	}
	seg := path.Base(repo)
	if i := strings.Index(seg, ":"); i >= 0 {
		seg = seg[:i]
	}
	seg = strings.ToLower(seg)
	for _, n := range secImageWriters {
		if seg == n || strings.HasPrefix(seg, n+"-") || strings.HasSuffix(seg, "-"+n) {
			return n
		}
	}
	return ""
}

// secServiceAccount returns the ServiceAccount the pod runs as.
func secServiceAccount(pt *manifest.PodTemplate) string {
	if pt.Spec.ServiceAccountName != "" {
		return pt.Spec.ServiceAccountName
	}
	if pt.Spec.DeprecatedServiceAccount != "" {
		return pt.Spec.DeprecatedServiceAccount
	}
	return "default"
}

// secFindServiceAccounts returns the ServiceAccounts named name that may
// live in obj's namespace.
func secFindServiceAccounts(ctx *Context, obj *manifest.Object, name string) []*manifest.Object {
	var out []*manifest.Object
	for _, s := range ctx.ByKind("ServiceAccount") {
		if s.Name == name && ctx.SameNamespace(s, obj) && !s.Patch {
			out = append(out, s)
		}
	}
	return out
}

func secItoa(n int64) string { return strconv.FormatInt(n, 10) }

// secVolume returns the pod's volume named name, or nil.
func secVolume(pt *manifest.PodTemplate, name string) *corev1.Volume {
	for i := range pt.Spec.Volumes {
		if pt.Spec.Volumes[i].Name == name {
			return &pt.Spec.Volumes[i]
		}
	}
	return nil
}

// secPatched reports whether a kustomize patch of obj sets the container's
// or the pod's securityContext (the rendered object is what gets applied).
func secPatched(ctx *Context, obj *manifest.Object, c manifest.Container) bool {
	return resPatchSets(ctx, obj, c.Name, "securityContext") || resPatchSets(ctx, obj, "", "securityContext")
}
