package kube

// BuiltinGroups are the API groups the Kubernetes API server itself
// serves (everything else is a CRD or a configuration file format).
var BuiltinGroups = map[string]bool{
	"": true, "apps": true, "batch": true, "policy": true, "autoscaling": true, "extensions": true,
	"admissionregistration.k8s.io": true, "apiextensions.k8s.io": true, "apiregistration.k8s.io": true,
	"authentication.k8s.io": true, "authorization.k8s.io": true, "certificates.k8s.io": true,
	"coordination.k8s.io": true, "discovery.k8s.io": true, "events.k8s.io": true,
	"flowcontrol.apiserver.k8s.io": true, "internal.apiserver.k8s.io": true, "networking.k8s.io": true,
	"node.k8s.io": true, "rbac.authorization.k8s.io": true, "resource.k8s.io": true,
	"scheduling.k8s.io": true, "storage.k8s.io": true, "storagemigration.k8s.io": true,
	"settings.k8s.io": true,
}
