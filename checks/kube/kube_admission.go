package kube

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// Unstructured returns o as the API server's admission sees it: a JSON
// map whose integers are int64 (a float64 would fail every CEL rule on an
// integer field).
func Unstructured(o *manifest.Object) (map[string]any, error) {
	j, err := o.JSON()
	if err != nil {
		return nil, err
	}
	var u map[string]any
	if err := utiljson.Unmarshal(j, &u); err != nil {
		return nil, err
	}
	return u, nil
}

// ParseFieldPath reads a field path as the API server and admission
// policies write it (".spec.containers[0].image", "spec.items[0].name",
// "metadata.labels['app.kubernetes.io/name']",
// "metadata.labels[app.kubernetes.io/name]") into a manifest path; what it
// cannot read ends the path there.
func ParseFieldPath(p string) manifest.Path {
	var out manifest.Path
	p = strings.TrimPrefix(strings.TrimSpace(p), ".")
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if q := p[1:]; len(q) > 0 && (q[0] == '\'' || q[0] == '"') {
				if close := strings.IndexByte(q[1:], q[0]); close >= 0 {
					out = append(out, q[1:close+1])
					p = strings.TrimPrefix(q[close+2:], "]")
					continue
				}
			}
			if end < 0 {
				return out
			}
			elem := p[1:end]
			if n, err := strconv.Atoi(elem); err == nil {
				elem = strconv.Itoa(n)
			}
			out = append(out, elem)
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, p[:end])
			p = p[end:]
		}
	}
	return out
}

// WrittenAt names where an object that other objects are judged by (a
// policy, a CRD) is written, for their findings' messages: "at" its file
// and kind line, or the chart or overlay it is rendered from (a render's
// own path means nothing to its author).
func WrittenAt(o *manifest.Object) string {
	if checks.FromRender(o) {
		return "rendered from " + path.Dir(o.File.Path)
	}
	line, _ := o.KindPos()
	return fmt.Sprintf("at %s:%d", o.File.Path, line)
}

// clusterScoped are the built-in kinds that live in no namespace, by
// API group and kind.
var clusterScoped = map[string]bool{
	"/Namespace": true, "/Node": true, "/PersistentVolume": true, "/ComponentStatus": true,
	"rbac.authorization.k8s.io/ClusterRole": true, "rbac.authorization.k8s.io/ClusterRoleBinding": true,
	"apiextensions.k8s.io/CustomResourceDefinition": true, "apiregistration.k8s.io/APIService": true,
	"storage.k8s.io/StorageClass": true, "storage.k8s.io/CSIDriver": true, "storage.k8s.io/CSINode": true,
	"storage.k8s.io/VolumeAttachment": true, "storage.k8s.io/VolumeAttributesClass": true,
	"scheduling.k8s.io/PriorityClass": true, "node.k8s.io/RuntimeClass": true,
	"networking.k8s.io/IngressClass": true, "networking.k8s.io/IPAddress": true, "networking.k8s.io/ServiceCIDR": true,
	"certificates.k8s.io/CertificateSigningRequest": true, "certificates.k8s.io/ClusterTrustBundle": true,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   true,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   true,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       true,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       true,
	"resource.k8s.io/DeviceClass":                                   true,
	"resource.k8s.io/ResourceSlice":                                 true,
	"policy/PodSecurityPolicy":                                      true,
	"extensions/PodSecurityPolicy":                                  true,
	"internal.apiserver.k8s.io/StorageVersion":                      true,
	"storagemigration.k8s.io/StorageVersionMigration":               true,
	"authentication.k8s.io/TokenReview":                             true,
	"authorization.k8s.io/SubjectAccessReview":                      true,
	"authorization.k8s.io/SelfSubjectAccessReview":                  true,
	"authorization.k8s.io/SelfSubjectRulesReview":                   true,
}

// ClusterScoped reports whether a built-in kind of group lives in no
// namespace.
func ClusterScoped(group, kind string) bool { return clusterScoped[group+"/"+kind] }

// GuessResource returns the resource (plural) of a kind as the API server
// names it for built-in kinds ("Ingress" → "ingresses", "NetworkPolicy"
// → "networkpolicies"); a CRD's spec.names.plural is the authority for its
// kind.
func GuessResource(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return plural
}
