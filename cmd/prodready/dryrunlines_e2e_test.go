package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFixDryRunNamesTheLinesOfTheFilesAsTheyAre runs `prodready fix --all
// --dry-run` as a process on two Deployments in one file. A zone spread is
// offered only once the node spread is in, so it is fixed in a second
// round, on a text the first round made longer; the dry run writes
// nothing, so each line it names is a line of the file as it is, in the
// Deployment it fixes, not one of the text in memory (past the file's end
// for the second Deployment).
func TestFixDryRunNamesTheLinesOfTheFilesAsTheyAre(t *testing.T) {
	deployment := func(name string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: " + name +
			"\n  template:\n    metadata:\n      labels:\n        app: " + name + "\n    spec:\n      containers:\n        - name: " + name + "\n          image: nginx:1.27\n"
	}
	text := deployment("a") + "---\n" + deployment("b")
	dir := writeRepo(t, map[string]string{"two.yaml": text})
	lines := strings.Count(text, "\n")
	second := strings.Count(deployment("a")+"---\n", "\n") + 1 // the second Deployment's first line

	for _, mode := range [][]string{{"--dry-run"}, {"--diff"}} {
		out, errOut, _ := runCLI(t, dir, append([]string{"fix", "--all"}, mode...)...)
		said := regexp.MustCompile(`(?m)^two\.yaml:(\d+) (?:would fix |by hand )?([a-z-]+)`).FindAllStringSubmatch(out+errOut, -1)
		var zone []int
		for _, m := range said {
			n, _ := strconv.Atoi(m[1])
			if n < 1 || n > lines {
				t.Errorf("fix %v names line %d of a %d-line file: %s", mode, n, lines, m[0])
			}
			if m[2] == "spread-zone-missing" {
				zone = append(zone, n)
			}
		}
		if mode[0] == "--dry-run" && (len(zone) != 2 || zone[0] >= second || zone[1] < second) {
			t.Errorf("fix --dry-run would fix the zone spreads at lines %v, want one in each Deployment (the second from line %d):\n%s", zone, second, out)
		}
	}
}
