package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

func TestShellScript(t *testing.T) {
	tests := []struct {
		argv []string
		want string
		idx  int
	}{
		{[]string{"sh", "-c", "x"}, "x", 2},
		{[]string{"/bin/bash", "-ec", "x", "arg0"}, "x", 2},
		{[]string{"/bin/sh", "-e", "-c", "x"}, "x", 3},
		{[]string{"sh", "-c", "--", "x"}, "x", 3},
		{[]string{"sh", "/entry.sh"}, "", 0},
		{[]string{"bash", "-o", "pipefail", "-c", "x"}, "", 0},
		{[]string{"python", "-c", "x"}, "", 0},
		{[]string{"sh", "-c"}, "", 0},
	}
	for _, tt := range tests {
		got, idx, _, ok := ShellScript(tt.argv)
		if !ok {
			got, idx = "", 0
		}
		if got != tt.want || idx != tt.idx {
			t.Errorf("ShellScript(%q) = %q,%d want %q,%d", tt.argv, got, idx, tt.want, tt.idx)
		}
	}
}

func TestIdleContainer(t *testing.T) {
	tests := []struct {
		command, args []string
		want          bool
	}{
		{[]string{"sleep", "infinity"}, nil, true},
		{[]string{"sleep"}, []string{"3600"}, true},
		{[]string{"/bin/tail", "-f", "/dev/null"}, nil, true},
		{[]string{"sh", "-c", "exec tail -f /dev/null"}, nil, true},
		{[]string{"/bin/bash", "-c", "sleep infinity"}, nil, true},
		{[]string{"sh", "-c", "echo The app is running! && sleep 3600"}, nil, true},
		{[]string{"sh", "-c"}, []string{"echo ready >&2\nwhile true; do sleep 30; done"}, true},
		{[]string{"sh", "-c", "trap : TERM INT; sleep infinity & wait"}, nil, false}, // trap is not a wait we read
		{[]string{"sh", "-c", "sleep infinity & wait"}, nil, true},
		{[]string{"sh", "-c", `sleep "infinity"`}, nil, true},
		// Not idle: a server, a script that does work before waiting, a
		// loop that writes, an image's entrypoint the manifest does not show.
		{[]string{"/app/server"}, nil, false},
		{[]string{"sh", "-c", "mkdir -p /data && sleep 5 && exec /app/tablet"}, nil, false},
		{[]string{"sh", "-c", "while true; do date >> /mnt/out; sleep 1; done"}, nil, false},
		{[]string{"sh", "-c", "echo hi"}, nil, false}, // prints and exits: nothing waits
		{[]string{"sh", "-c", "while read l; do sleep 1; done"}, nil, false},
		{[]string{"sh", "-c", "sleep $T"}, nil, false},
		{[]string{"sh", "-c", "sleep 1 2 3 ("}, nil, false}, // does not parse
		{nil, []string{"sleep", "infinity"}, false},
		{[]string{"sh", "-c", strings.Repeat("sleep 1; ", 1000)}, nil, false}, // over the bound
	}
	for _, tt := range tests {
		c := manifest.Container{Container: &corev1.Container{Command: tt.command, Args: tt.args}}
		if got := IdleContainer(c); got != tt.want {
			t.Errorf("IdleContainer(%q %q) = %v, want %v", tt.command, tt.args, got, tt.want)
		}
	}
}
