// Package testmanifest writes the manifests that tests of the reviewers,
// hosts and commands review, so every test reads the same text (and the
// same line numbers).
package testmanifest

// ProbeDeployment is a one-container Deployment "web" whose livenessProbe
// checks the named or numbered port liveness (line 17) and, unless
// readiness is empty, whose readinessProbe checks readiness (line 20). It
// declares no container ports, so a named port is one no container has.
func ProbeDeployment(liveness, readiness string) string {
	s := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          livenessProbe:
            tcpSocket:
              port: ` + liveness + `
`
	if readiness != "" {
		s += `          readinessProbe:
            tcpSocket:
              port: ` + readiness + `
`
	}
	return s
}
