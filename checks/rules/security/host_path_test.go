package security_test

import (
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
)

// TestHostPathSeverity: an error only for a writable mount of the root,
// /etc, the kubelet's directory or a runtime socket; a warning for those
// read-only and for other paths; info for read-only mounts in a DaemonSet.
func TestHostPathSeverity(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      image: ghcr.io/acme/agent:1.0.0
      volumeMounts:
        - {name: root-rw, mountPath: /host}
        - {name: root-ro, mountPath: /host-ro, readOnly: true}
        - {name: sock, mountPath: /var/run/docker.sock, readOnly: true}
        - {name: logs, mountPath: /var/log, readOnly: true}
        - {name: data, mountPath: /data}
  volumes:
    - {name: root-rw, hostPath: {path: /}}
    - {name: root-ro, hostPath: {path: /etc/}}
    - {name: sock, hostPath: {path: /var/run/docker.sock}}
    - {name: logs, hostPath: {path: /var/log}}
    - {name: data, hostPath: {path: /srv/data}}
`
	const ds = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
        - name: c
          image: ghcr.io/acme/agent:1.0.0
          volumeMounts: [{name: state, mountPath: /state, readOnly: true}, {name: kubelet, mountPath: /kubelet}]
      volumes:
        - {name: state, hostPath: {path: /var/lib/agent}}
        - {name: kubelet, hostPath: {path: /var/lib/kubelet}}
`
	cfg := checks.DefaultConfig(catalog.Default())
	got := map[int]checks.Severity{}
	for _, f := range checks.Run([]checks.Input{{Path: "pod.yaml", Data: []byte(pod)}, {Path: "ds.yaml", Data: []byte(ds)}}, cfg, checks.Options{}).Findings {
		if f.RuleID != "host-path-volume" {
			continue
		}
		line := f.Line
		if f.File == "ds.yaml" {
			line += 100
		}
		got[line] = f.Severity
	}
	want := map[int]checks.Severity{15: checks.Error, 16: checks.Warning, 17: checks.Warning, 18: checks.Warning, 19: checks.Warning, 114: checks.Info, 115: checks.Error}
	for line, sev := range want {
		if got[line] != sev {
			t.Errorf("line %d: severity %q, want %q (all: %v)", line%100, got[line], sev, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("findings at %v, want %v", got, want)
	}
}
