package checks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestNumberOccurrences checks that findings sharing a fingerprint are
// numbered in file order: each file from 0 by Run (unique within a file),
// across files by NumberOccurrences (unique within a review, where the
// file is not part of the identity).
func TestNumberOccurrences(t *testing.T) {
	same := func(file string) Finding {
		return Finding{RuleID: "replicas-too-few", File: file, Object: ObjectRef{Kind: "Deployment", Name: "web"}, Path: "spec.replicas", Message: "m"}
	}
	other := same("a.yaml")
	other.Object.Name = "api"
	fresh := func() []Finding {
		return []Finding{same("a.yaml"), same("a.yaml"), other, same("a.yaml"), same("b.yaml"), same("b.yaml")}
	}
	fs := fresh()
	numberOccurrences(fs)
	for i, want := range []int{0, 1, 0, 2, 0, 1} {
		if fs[i].Occurrence != want {
			t.Errorf("per file: finding %d (%s %s): occurrence %d, want %d", i, fs[i].File, fs[i].Object.Name, fs[i].Occurrence, want)
		}
	}
	fs = fresh()
	NumberOccurrences(fs)
	seen := map[string]bool{}
	for i, want := range []int{0, 1, 0, 2, 3, 4} {
		f := fs[i]
		if f.Occurrence != want {
			t.Errorf("across files: finding %d (%s %s): occurrence %d, want %d", i, f.File, f.Object.Name, f.Occurrence, want)
		}
		if seen[f.Fingerprint()] {
			t.Errorf("finding %d: fingerprint %s repeats", i, f.Fingerprint())
		}
		seen[f.Fingerprint()] = true
	}
}

// TestFingerprintIdentity holds the fingerprint to what a finding is
// about: the message, fix, line and file do not change it; the rule, the
// object's group, kind, namespace and name, and the container do.
func TestFingerprintIdentity(t *testing.T) {
	base := Finding{RuleID: "probe-missing", File: "a.yaml", Line: 9, Message: "m", Object: ObjectRef{Group: "apps", Kind: "Deployment", Name: "web", Namespace: "shop"},
		Path: "spec.template.spec.containers[0].readinessProbe", IdentityPath: "spec.template.spec.containers[name=app].readinessProbe"}
	same := base
	same.File, same.Line, same.Message, same.Fix, same.Path = "b/c.yaml", 40, "other words", &Fix{Description: "x"}, "spec.template.spec.containers[1].readinessProbe"
	if base.Fingerprint() != same.Fingerprint() {
		t.Error("fingerprint depends on file, line, message, fix or container index")
	}
	for name, change := range map[string]func(*Finding){
		"rule":      func(f *Finding) { f.RuleID = "other" },
		"group":     func(f *Finding) { f.Object.Group = "extensions" },
		"kind":      func(f *Finding) { f.Object.Kind = "StatefulSet" },
		"namespace": func(f *Finding) { f.Object.Namespace = "" },
		"name":      func(f *Finding) { f.Object.Name = "api" },
		"container": func(f *Finding) { f.IdentityPath = "spec.template.spec.containers[name=side].readinessProbe" },
	} {
		f := base
		change(&f)
		if f.Fingerprint() == base.Fingerprint() {
			t.Errorf("fingerprint ignores the %s", name)
		}
		if f.Container() == "" {
			t.Errorf("%s: no container", name)
		}
	}
	if base.Container() != "app" {
		t.Errorf("Container() = %q, want app", base.Container())
	}
}

// TestFingerprintIsTheSHA256OfItsParts pins Fingerprint to what it has
// always hashed (comments posted before carry it in their markers): the
// SHA-256 of the identity's parts, each ended by a zero byte, then "#" and
// the occurrence when it is not 0, as its first 16 hex digits; parts
// longer than its stack buffer included.
func TestFingerprintIsTheSHA256OfItsParts(t *testing.T) {
	long := strings.Repeat("spec.template.spec.containers[name=web].env[name=X].valueFrom.", 8)
	fs := []Finding{
		{RuleID: "probe-missing", Object: ObjectRef{Group: "apps", Kind: "Deployment", Name: "web", Namespace: "shop"}, Path: "spec.replicas"},
		{RuleID: "probe-missing", Object: ObjectRef{Group: "apps", Kind: "Deployment", Name: "web", Namespace: "shop"}, Path: "spec.replicas", Occurrence: 12},
		{RuleID: "yaml-invalid", File: "a/b.yaml", Object: ObjectRef{Doc: -1}},
		{RuleID: "env-secret", Object: ObjectRef{Kind: "Deployment", Name: "api"}, Path: "x", IdentityPath: long, Occurrence: 1},
	}
	for i, f := range fs {
		h := sha256.New()
		k := f.identity()
		for _, s := range []string{k.rule, k.group, k.kind, k.namespace, k.name, k.path, k.file} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		if f.Occurrence > 0 {
			fmt.Fprintf(h, "#%d", f.Occurrence)
		}
		if got, want := f.Fingerprint(), hex.EncodeToString(h.Sum(nil))[:16]; got != want {
			t.Errorf("finding %d: fingerprint %s, want %s", i, got, want)
		}
	}
}

// TestNumberOccurrencesCountsByKey holds NumberOccurrences to counting
// each identity's findings in order with a map of identities, on findings
// most of whose identities occur once and some several times, in several
// files, whatever Occurrence they came with.
func TestNumberOccurrencesCountsByKey(t *testing.T) {
	var fs []Finding
	for i := range 3000 {
		f := Finding{RuleID: fmt.Sprintf("rule-%d", i%3), File: fmt.Sprintf("f%d.yaml", i%5), Object: ObjectRef{Kind: "Deployment", Name: fmt.Sprintf("app-%d", i%700)}, Occurrence: i % 3}
		if i%11 == 0 {
			f.Object = ObjectRef{Doc: -1} // about a file: the file is the identity
		}
		fs = append(fs, f)
	}
	want := make([]int, len(fs))
	counter := map[occurrenceKey]int{}
	repeats := 0
	for i := range fs {
		k := fs[i].identity()
		want[i] = counter[k]
		counter[k]++
		if want[i] > 0 {
			repeats++
		}
	}
	if repeats == 0 || repeats == len(fs) {
		t.Fatalf("%d of %d findings repeat an identity: the test needs some of each", repeats, len(fs))
	}
	NumberOccurrences(fs)
	for i := range fs {
		if fs[i].Occurrence != want[i] {
			t.Fatalf("finding %d: occurrence %d, want %d", i, fs[i].Occurrence, want[i])
		}
	}
}

// TestSortFindingsIsStable holds SortFindings to sort.SliceStable's order
// by file, line, column and rule, on findings in no order, many of which
// tie (their messages tell them apart), moved in place.
func TestSortFindingsIsStable(t *testing.T) {
	var fs []Finding
	for i := range 2000 {
		fs = append(fs, Finding{File: fmt.Sprintf("f%d.yaml", (i*7)%13), Line: (i * 31) % 17, Column: i % 3, RuleID: fmt.Sprintf("r%d", (i*11)%5), Message: fmt.Sprint(i)})
	}
	want := append([]Finding(nil), fs...)
	sort.SliceStable(want, func(i, j int) bool { return findingLess(&want[i], &want[j]) })
	SortFindings(fs)
	for i := range fs {
		if fs[i].Message != want[i].Message {
			t.Fatalf("finding %d: %s:%d:%d %s #%s, want #%s", i, fs[i].File, fs[i].Line, fs[i].Column, fs[i].RuleID, fs[i].Message, want[i].Message)
		}
	}
}

// TestNumberWithinFilesAcrossShares holds numberWithinFiles, which numbers
// shares of the findings on every CPU, to numbering each run of one file's
// findings in order from 0: files that cross a share's end, a file longer
// than a share, one file in two runs, and single findings between.
func TestNumberWithinFilesAcrossShares(t *testing.T) {
	var files []string
	add := func(file string, count int) {
		for range count {
			files = append(files, file)
		}
	}
	add("a.yaml", numberShare-3)
	add("b.yaml", 7) // crosses the first share's end
	add("c.yaml", numberShare+numberShare/2)
	add("d.yaml", 1)
	add("e.yaml", numberShare-5-numberShare/2) // ends one before a share's end
	add("f.yaml", 1)                           // begins a share
	add("g.yaml", 1)
	add("a.yaml", 40) // a.yaml again, after others
	for i := range 300 {
		add(fmt.Sprintf("z%03d.yaml", i), i%5+1)
	}
	n := len(files)
	key := func(i int) occurrenceKey { return occurrenceKey{rule: "r", name: fmt.Sprint(i % 3), file: files[i]} }
	got := make([]int, n)
	for i := range got {
		got[i] = -1
	}
	numberWithinFiles(n, func(i int) string { return files[i] }, key, func(i, o int) {
		if got[i] != -1 {
			t.Errorf("finding %d numbered twice", i)
		}
		got[i] = o
	})
	counter := map[occurrenceKey]int{}
	for i := range n {
		if i == 0 || files[i] != files[i-1] {
			clear(counter)
		}
		k := key(i)
		if got[i] != counter[k] {
			t.Fatalf("finding %d (%s): occurrence %d, want %d", i, files[i], got[i], counter[k])
		}
		counter[k]++
	}
}
