package main

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestFixAllKeepsCorpusWorkloads runs `prodready fix --all` as a process
// on a copy of the real-world corpus and holds what a starting point must
// never do: change an image, a command, a port or a selector, remove an
// object, a container or a field, or take from a container what its image
// is known to need (kube.Facts: its user, the directories it writes, its
// capabilities, its memory, whether it can run twice), or override a
// runAsUser: 0 set on purpose.
func TestFixAllKeepsCorpusWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fixes the whole real-world corpus")
	}
	src := checkstest.Shared(t, "corpus/realworld")
	dir := t.TempDir()
	copyTree(t, src, dir)
	before := snapshot(t, dir)
	_, errOut, code := runCLI(t, dir, "fix", "--all", ".")
	if code != 0 {
		t.Fatalf("prodready fix --all: exit %d\n%s", code, errOut)
	}
	after := snapshot(t, dir)
	files := changed(before, after)
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("prodready fix --all changed no file of the corpus: the test holds nothing")
	}
	ctx := afterContext(after)
	var problems []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".yaml") && !strings.HasSuffix(f, ".yml") {
			continue
		}
		problems = append(problems, compareFile(ctx, f, before[f], after[f])...)
	}
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d files fixed, %d problems", len(files), len(problems))
}

// afterContext parses every YAML file of the fixed corpus into one run's
// context, so that image facts see the ConfigMaps an envFrom names.
func afterContext(files map[string]string) *checks.Context {
	var objs []*manifest.Object
	for p, text := range files {
		if strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") {
			objs = append(objs, manifest.Parse(p, []byte(text), manifest.DefaultLimits).Objects...)
		}
	}
	return checks.NewContext(checks.DefaultConfig(catalog.Default()), objs)
}

// compareFile says what the fix of one file changed that it must not.
func compareFile(ctx *checks.Context, name, oldText, newText string) []string {
	oldF := manifest.Parse(name, []byte(oldText), manifest.DefaultLimits)
	newF := manifest.Parse(name, []byte(newText), manifest.DefaultLimits)
	var out []string
	if len(newF.Objects) < len(oldF.Objects) {
		return []string{fmt.Sprintf("%s: %d objects became %d", name, len(oldF.Objects), len(newF.Objects))}
	}
	for i, o := range oldF.Objects {
		n := newF.Objects[i]
		where := fmt.Sprintf("%s: %s %s", name, o.Kind, o.Name)
		if n.Kind != o.Kind || n.Name != o.Name {
			out = append(out, fmt.Sprintf("%s became %s %s", where, n.Kind, n.Name))
			continue
		}
		for _, p := range removedPaths(o, n) {
			out = append(out, fmt.Sprintf("%s: %s was removed", where, p))
		}
		if !reflect.DeepEqual(o.Selector(), n.Selector()) {
			out = append(out, where+": its selector changed")
		}
		if os, ok := o.Typed().(*corev1.Service); ok {
			ns := n.Typed().(*corev1.Service)
			if !reflect.DeepEqual(os.Spec.Selector, ns.Spec.Selector) || !reflect.DeepEqual(os.Spec.Ports, ns.Spec.Ports) {
				out = append(out, where+": its selector or ports changed")
			}
		}
		out = append(out, comparePods(ctx, where, o, n)...)
	}
	return out
}

// removedPaths lists the key paths of o that n no longer has. The fixes
// that take a key away put its value elsewhere or leave it to another
// object: a deprecated serviceAccount becomes serviceAccountName, and the
// spec.replicas of a workload an autoscaler scales is the autoscaler's.
func removedPaths(o, n *manifest.Object) []string {
	have := map[string]bool{}
	walkKeys(n.Root(), "", func(p string) { have[p] = true })
	var out []string
	walkKeys(o.Root(), "", func(p string) {
		if have[p] {
			return
		}
		switch {
		case p == "spec.replicas" && n.Kind != "StatefulSet":
		case strings.HasSuffix(p, ".serviceAccount") && have[strings.TrimSuffix(p, ".serviceAccount")+".serviceAccountName"]:
		default:
			out = append(out, p)
		}
	})
	return out
}

// walkKeys calls fn with the path of every mapping key and list item
// under node: list items by their name when they have one, else by index.
func walkKeys(node *yaml.Node, prefix string, fn func(string)) {
	if node == nil {
		return
	}
	switch node.Kind {
	case yaml.DocumentNode:
		for _, c := range node.Content {
			walkKeys(c, prefix, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			p := strings.TrimPrefix(prefix+"."+node.Content[i].Value, ".")
			fn(p)
			walkKeys(node.Content[i+1], p, fn)
		}
	case yaml.SequenceNode:
		for i, c := range node.Content {
			key := fmt.Sprint(i)
			if _, v := manifest.MapEntry(c, "name"); v != nil && v.Value != "" {
				key = v.Value
			}
			walkKeys(c, prefix+"["+key+"]", fn)
			if c.Kind == yaml.ScalarNode {
				fn(prefix + "[" + key + "]")
			}
		}
	}
}

// comparePods compares the containers of o and n, its fixed text: the
// same containers with the same images, commands and ports, and, for each
// one the fix touched, what its image is known to need still there.
func comparePods(ctx *checks.Context, where string, o, n *manifest.Object) []string {
	opt, npt := o.PodTemplate(), n.PodTemplate()
	if opt == nil || npt == nil {
		return nil
	}
	var out []string
	news := map[string]manifest.Container{}
	for _, c := range npt.AllContainers() {
		news[c.Name] = c
	}
	touched := false
	for _, oc := range opt.AllContainers() {
		nc, ok := news[oc.Name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: container %q was removed", where, oc.Name))
			continue
		}
		w := fmt.Sprintf("%s: container %q", where, oc.Name)
		if oc.Image != nc.Image {
			out = append(out, fmt.Sprintf("%s: image %q became %q", w, oc.Image, nc.Image))
		}
		if !sameCommand(oc, nc) {
			out = append(out, fmt.Sprintf("%s: command %q %q became %q %q", w, oc.Command, oc.Args, nc.Command, nc.Args))
		}
		if !reflect.DeepEqual(oc.Ports, nc.Ports) {
			out = append(out, w+": its ports changed")
		}
		if reflect.DeepEqual(*oc.Container, *nc.Container) {
			continue
		}
		touched = true
		out = append(out, needsKept(ctx, w, n, opt, npt, oc, nc)...)
	}
	if touched || !reflect.DeepEqual(opt.Spec, npt.Spec) {
		if why := raisedPastOne(ctx, o, n, npt); why != "" {
			out = append(out, where+": "+why)
		}
	}
	return out
}

// sameCommand reports whether two containers run the same command: equal,
// or equal once the `exec ` shell-wrapped-entrypoint puts before a
// script's last command is taken out (the same program, as PID 1).
func sameCommand(o, n manifest.Container) bool {
	a := append(append([]string{}, o.Command...), o.Args...)
	b := append(append([]string{}, n.Command...), n.Args...)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && strings.Replace(b[i], "exec ", "", 1) != a[i] {
			return false
		}
	}
	return true
}

// needsKept says what a fix of container oc (nc after it) took from it
// that its image facts say it needs.
func needsKept(ctx *checks.Context, w string, n *manifest.Object, opt, npt *manifest.PodTemplate, oc, nc manifest.Container) []string {
	var out []string
	facts, known := kube.Facts(ctx, n, nc)
	ou, nu := uid(opt, oc), uid(npt, nc)
	if nu != ou && nu >= 0 {
		switch {
		case known && facts.RootOnly != "":
			out = append(out, fmt.Sprintf("%s: made to run as UID %d, but the %s image must start as root", w, nu, facts.Family))
		case nc.SecurityContext != nil && nc.SecurityContext.Privileged != nil && *nc.SecurityContext.Privileged:
			out = append(out, fmt.Sprintf("%s: privileged, made to run as UID %d", w, nu))
		case known && facts.ByEnv && facts.User > 0:
			out = append(out, fmt.Sprintf("%s: made to run as UID %d, but it is a %s server in an image of its own, whose user is not known", w, nu, facts.Family))
		case known && facts.User > 0 && nu != facts.User:
			out = append(out, fmt.Sprintf("%s: made to run as UID %d, but the %s image runs as %d", w, nu, facts.Family, facts.User))
		case ou == 0:
			out = append(out, fmt.Sprintf("%s: asked for root explicitly (runAsUser: 0), made to run as UID %d", w, nu))
		case known && facts.User == 0 && len(kube.Unmounted(nc, facts.Writes)) > 0:
			out = append(out, fmt.Sprintf("%s: made to run as UID %d, but the %s image runs as root and writes %q, not mounted", w, nu, facts.Family, kube.Unmounted(nc, facts.Writes)))
		}
	}
	if readOnly(oc) != readOnly(nc) && readOnly(nc) {
		if family, dirs := kube.Writer(ctx, n, nc); family != "" {
			if missing := kube.Unmounted(nc, dirs); len(dirs) == 0 || len(missing) > 0 {
				out = append(out, fmt.Sprintf("%s: made read-only, but the %s image writes %q", w, family, missing))
			}
		}
	}
	if dropsAll(nc) && !dropsAll(oc) && known {
		for _, c := range facts.Caps {
			if !adds(nc, c) {
				out = append(out, fmt.Sprintf("%s: drops ALL without adding back %s, which the %s image needs", w, c, facts.Family))
			}
		}
	}
	if floor, family := kube.MemoryFloor(ctx, n, nc); floor != "" {
		lim, ok := nc.Resources.Limits[corev1.ResourceMemory]
		olim := oc.Resources.Limits[corev1.ResourceMemory]
		if ok && !lim.Equal(olim) && lim.Cmp(resource.MustParse(floor)) < 0 {
			out = append(out, fmt.Sprintf("%s: memory limit %s, below the %s the %s image needs", w, lim.String(), floor, family))
		}
	}
	return out
}

// raisedPastOne says why a workload whose replicas a fix raised above one
// cannot run twice ("" when it can, or when they were not raised).
func raisedPastOne(ctx *checks.Context, o, n *manifest.Object, npt *manifest.PodTemplate) string {
	or, _ := o.Replicas()
	nr, _ := n.Replicas()
	if nr <= 1 || or > 1 || nr == or {
		return ""
	}
	if why := kube.SingleReason(ctx, n, npt); why != "" {
		return fmt.Sprintf("replicas raised from %d to %d, but %s", or, nr, why)
	}
	return ""
}

// uid returns the container's effective runAsUser, -1 when unset.
func uid(pt *manifest.PodTemplate, c manifest.Container) int64 {
	if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
		return *c.SecurityContext.RunAsUser
	}
	if pt.Spec.SecurityContext != nil && pt.Spec.SecurityContext.RunAsUser != nil {
		return *pt.Spec.SecurityContext.RunAsUser
	}
	return -1
}

func readOnly(c manifest.Container) bool {
	return c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem
}

func dropsAll(c manifest.Container) bool {
	if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
		return false
	}
	for _, d := range c.SecurityContext.Capabilities.Drop {
		if strings.EqualFold(string(d), "ALL") {
			return true
		}
	}
	return false
}

func adds(c manifest.Container, name string) bool {
	if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
		return false
	}
	for _, a := range c.SecurityContext.Capabilities.Add {
		if n := strings.TrimPrefix(strings.ToUpper(string(a)), "CAP_"); n == name || n == "ALL" {
			return true
		}
	}
	return false
}
