package checkstest

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
)

// HostileValue is a value a pull request's author could write in any
// string field of a manifest to make a bot that quotes it raw act: new
// lines that start GitLab quick actions (/approve, /merge), a mention, an
// issue and a merge-request reference, a heading, a link, an image, HTML,
// a fake thread marker, a fence, a backtick, a carriage return and the
// Unicode line and paragraph separators.
const HostileValue = "web\n/approve\n/merge @someone #1 !1\n# hostile heading [x](http://evil) ![i](http://evil) <img src=x> <!-- prodready:thread=hostile --> ``` ` \r/unassign \u2028/close \u2029/merge"

// hostileYAML is manifests whose every string field a rule may quote holds
// HostileValue (as a YAML double-quoted scalar, H; H2 is another, HB one
// without the HTML, which rules take for a placeholder in hosts and
// selectors and skip).
const hostileYAML = `apiVersion: v1
kind: Namespace
metadata:
  name: H
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: H
  namespace: H
  labels: {app: H, app.kubernetes.io/name: H}
  annotations: {prodready.dev/critical: H}
spec:
  replicas: 3
  selector: {matchLabels: {app: H}}
  template:
    metadata:
      labels: {app: H}
    spec:
      serviceAccount: H
      serviceAccountName: H
      priorityClassName: ""
      securityContext: {sysctls: [{name: H, value: H}]}
      volumes:
        - name: H
          hostPath: {path: H}
        - name: secret
          secret: {secretName: H}
        - name: data
          persistentVolumeClaim: {claimName: H}
      containers:
        - name: H
          image: H
          command: ["sh", "-c", H]
          args: [H]
          ports: [{containerPort: 8080, name: http, hostPort: 80}]
          env:
            - {name: H, value: H}
            - {name: H, value: H}
            - {name: PASSWORD, value: H}
            - name: TOKEN
              valueFrom: {secretKeyRef: {name: H, key: H}}
          resources:
            requests: {cpu: "4", memory: 1Gi}
            limits: {cpu: "2", memory: 512Mi}
          securityContext:
            privileged: true
            allowPrivilegeEscalation: true
            runAsUser: 0
            procMount: Unmasked
            capabilities: {add: [H, SYS_ADMIN]}
          readinessProbe: {httpGet: {path: H, port: H}}
          livenessProbe: {httpGet: {path: H, port: H}}
          volumeMounts: [{name: H, mountPath: H, mountPropagation: Bidirectional}]
          lifecycle: {preStop: {exec: {command: [H]}}}
        - name: fluentd
          image: "fluent/fluentd:latest"
---
apiVersion: v1
kind: Service
metadata: {name: H, namespace: H}
spec:
  selector: {app: HB}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: H, namespace: H}
spec:
  serviceName: H
  replicas: 2
  selector: {matchLabels: {app: H}}
  template:
    metadata: {labels: {app: H}}
    spec:
      containers: [{name: H, image: "H:latest"}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: H, namespace: H}
spec:
  rules:
    - host: HB
      http:
        paths: [{path: HB, pathType: Prefix, backend: {service: {name: H, port: {number: 80}}}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: H2, namespace: H}
spec:
  rules:
    - host: HB
      http:
        paths: [{path: HB, pathType: Prefix, backend: {service: {name: H, port: {number: 80}}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: H, namespace: H}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: H2}
  minReplicas: 1
  maxReplicas: 3
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: H, namespace: H}
spec:
  minAvailable: H
  selector: {matchLabels: {app: H}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: H, namespace: H}
spec:
  podSelector: {matchLabels: {app: H2}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: H, namespace: H}
data: {password: H, H: H}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: H}
rules: [{apiGroups: ["*"], resources: ["*", secrets], verbs: ["*", escalate, get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: H}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: User, name: H, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: H, namespace: H}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: H, image: H}]
---
apiVersion: v1
kind: Pod
metadata:
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
    - name: kube-apiserver
      image: registry.k8s.io/kube-apiserver:v1.30.0
      command: [kube-apiserver, "--feature-gates=H=true", "--anonymous-auth=true", "--insecure-port=0", H]
`

// hostileConfig switches on the opt-in rules that quote values.
const hostileConfig = `rules:
  ingress-host-not-approved:
    approvedDomains: [acme.io]
  required-labels-missing:
    enabled: true
    labels: [owner]
  image-registry-not-allowed:
    enabled: true
    allowedRegistries: [registry.acme.io]
`

// Hostile runs every rule of catalog over manifests whose every string
// field a rule may quote holds HostileValue, and returns the findings: the
// messages and names a body builder must keep inert.
func Hostile(t testing.TB, catalog *checks.Catalog) []checks.Finding {
	t.Helper()
	cfg, err := checks.ParseConfigFile(checks.ConfigFileName, []byte(hostileConfig), catalog)
	if err != nil {
		t.Fatal(err)
	}
	h := `"` + strings.NewReplacer("\\", `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\u2028", `\L`, "\u2029", `\P`).Replace(HostileValue) + `"`
	quote := func(s string) string {
		return `"` + strings.NewReplacer("\\", `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\u2028", `\L`, "\u2029", `\P`).Replace(s) + `"`
	}
	h2 := quote(HostileValue + "2")
	hb := quote(strings.NewReplacer("<img src=x> ", "", "<!-- prodready:thread=hostile --> ", "").Replace(HostileValue))
	data := strings.NewReplacer(" HB", " "+hb, " H2", " "+h2, " H:", " "+h+":", " H}", " "+h+"}", " H,", " "+h+",", " H]", " "+h+"]", " H\n", " "+h+"\n", "[H", "["+h, `"H:latest"`, `"`+strings.TrimPrefix(h, `"`)[:len(h)-2]+`:latest"`).Replace(hostileYAML)
	res := checks.Run([]checks.Input{{Path: "deploy/hostile.yaml", Data: []byte(data)}}, cfg, checks.Options{})
	if len(res.Findings) == 0 {
		t.Fatal("no finding on the hostile manifests")
	}
	return res.Findings
}
