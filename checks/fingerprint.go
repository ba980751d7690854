package checks

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/parallel"
)

// Fingerprint identifies a finding across pushes by what it is about: the
// rule, the object (apiVersion group, kind, namespace, name), the container
// or other sub-object and the field path (IdentityPath). It depends neither
// on the message, the fix, the line nor the file: moving an object to
// another file, reformatting it, or rewording a message keeps it. A finding
// about no object (a document that does not parse, an ignore comment) is
// identified by its file instead. Occurrence tells apart findings the rest
// does not (Run numbers them within a file, NumberOccurrences across
// files).
//
// It is the first 16 hex digits of the SHA-256 of those parts, each ended
// by a zero byte, and "#" and the occurrence when it is not 0, hashed from
// one buffer on the stack: a review fingerprints every finding of its head
// at every push.
func (f Finding) Fingerprint() string {
	sum := f.fingerprintSum()
	return hex.EncodeToString(sum[:8])
}

// FingerprintKey is KeyOfFingerprint of f's Fingerprint, made without its
// text: a review keys every finding of its head at every push.
func (f Finding) FingerprintKey() uint64 {
	sum := f.fingerprintSum()
	return binary.BigEndian.Uint64(sum[:8])
}

// MergedKeys are the FingerprintKeys of f as each object it stands for
// (Merged) would have it: one for each, in order.
func (f Finding) MergedKeys() []uint64 {
	if len(f.Merged) == 0 {
		return nil
	}
	keys := make([]uint64, len(f.Merged))
	for i, o := range f.Merged {
		g := f
		g.Object = o
		keys[i] = g.FingerprintKey()
	}
	return keys
}

// fingerprintSum is the SHA-256 that Fingerprint's digits begin.
func (f *Finding) fingerprintSum() [sha256.Size]byte {
	var buf [256]byte
	b := buf[:0]
	k := f.identity()
	for _, s := range [...]string{k.rule, k.group, k.kind, k.namespace, k.name, k.path, k.file} {
		b = append(append(b, s...), 0)
	}
	if f.Occurrence > 0 {
		b = strconv.AppendInt(append(b, '#'), int64(f.Occurrence), 10)
	}
	return sha256.Sum256(b)
}

// KeyOfFingerprint returns fingerprint fp (Fingerprint) as a number, its
// 16 hex digits read as 8 bytes, big-endian: two fingerprints have one key
// exactly when they are the same. False when fp is not a fingerprint. A
// map by key holds a fraction of what one by the text holds (a review
// server keeps a base run's identities, one per finding).
func KeyOfFingerprint(fp string) (uint64, bool) {
	if len(fp) != 16 || strings.ToLower(fp) != fp {
		return 0, false
	}
	k, err := strconv.ParseUint(fp, 16, 64)
	return k, err == nil
}

// IdentityField is the field of its object a finding is about, as its
// fingerprint names it: IdentityPath (containers by name), else Path.
func (f *Finding) IdentityField() string {
	if f.IdentityPath != "" {
		return f.IdentityPath
	}
	return f.Path
}

// occurrenceKey is what Fingerprint hashes besides the occurrence, without
// hashing: equal keys are equal fingerprints.
type occurrenceKey struct{ rule, group, kind, namespace, name, path, file string }

func (f *Finding) identity() occurrenceKey {
	k := occurrenceKey{rule: f.RuleID, group: f.Object.Group, kind: f.Object.Kind, namespace: f.Object.Namespace, name: f.Object.Name, path: f.IdentityField()}
	if f.Object.Kind == "" {
		k.file = f.File
	}
	return k
}

// NumberOccurrences numbers findings that would share a fingerprint across
// all of fs (sorted by SortFindings), in order: Run numbers them within
// each file; a review that sees the same object in two files (two overlays
// of one Deployment) numbers them across files.
//
// Most keys occur once in a review: each key is counted by a 64-bit hash
// first, in a map a tenth the size of one of keys, and only the findings
// whose hash repeats (the same key, or two keys sharing a hash) are counted
// by their keys.
func NumberOccurrences(fs []Finding) {
	numberAcross(len(fs), func(i int) occurrenceKey { return fs[i].identity() }, func(i, n int) { fs[i].Occurrence = n })
}

// numberAcross is NumberOccurrences of n findings, finding i's key
// identity(i), its occurrence set by set(i, occurrence).
func numberAcross(n int, identity func(int) occurrenceKey, set func(i, occurrence int)) {
	// Hashed on every CPU (a push's head has some 150,000 findings), one
	// seed for all, then counted in order.
	seed := maphash.MakeSeed()
	hashes := make([]uint64, n)
	const share = 1024
	parallel.For((n+share-1)/share, func(s int) {
		var h maphash.Hash
		h.SetSeed(seed)
		for i := s * share; i < min(n, (s+1)*share); i++ {
			k := identity(i)
			h.Reset()
			for _, s := range [...]string{k.rule, k.group, k.kind, k.namespace, k.name, k.path, k.file} {
				h.WriteString(s)
				h.WriteByte(0)
			}
			hashes[i] = h.Sum64()
		}
	})
	// The hashes that more than one finding has, found in a sorted copy:
	// a count of each in a map sized for every finding was 4 MB of a
	// push's allocations at 50,000 objects, where few findings share one.
	sorted := slices.Clone(hashes)
	slices.Sort(sorted)
	var repeated map[uint64]bool
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			if repeated == nil {
				repeated = map[uint64]bool{}
			}
			repeated[sorted[i]] = true
		}
	}
	var counter occurrenceCounter
	for i := range n {
		if !repeated[hashes[i]] {
			set(i, 0)
			continue
		}
		if counter == nil {
			counter = occurrenceCounter{}
		}
		k := identity(i)
		set(i, counter[k])
		counter[k]++
	}
}

// Container is the name of the container the finding is about (from
// IdentityPath), "" when it is about no container.
func (f Finding) Container() string {
	m := containerNameRE.FindStringSubmatch(f.IdentityPath)
	if m == nil {
		return ""
	}
	return m[2]
}

// ContainerPath is the path of the container f is about, a prefix of its
// Path (spec.template.spec.containers[0]), "" when it is about none.
func (f Finding) ContainerPath() string {
	loc := containerIndexRE.FindStringIndex(f.Path)
	if loc == nil {
		return ""
	}
	return f.Path[:loc[1]]
}

// containerIndexRE finds a container's index in a rendered path.
var containerIndexRE = regexp.MustCompile(`(^|\.)(initContainers|containers|ephemeralContainers)\[(\d+)\]`)

// containerNameRE finds a container's name in an IdentityPath.
var containerNameRE = regexp.MustCompile(`(initContainers|containers|ephemeralContainers)\[name=([^\]]*)\]`)

// identify sets f.IdentityPath and f.ContainerLine from obj, the object
// the finding is about: the first container index of the path becomes the
// container's name (its index when it has none).
func identify(f *Finding, obj *manifest.Object) {
	if f.IdentityPath != "" || f.Path == "" {
		return
	}
	loc := containerIndexRE.FindStringSubmatchIndex(f.Path)
	if loc == nil {
		return
	}
	prefix := splitPath(f.Path[:loc[4]])
	seq := f.Path[loc[4]:loc[5]]
	idx := f.Path[loc[6]:loc[7]]
	item := append(append(prefix, seq), idx)
	name, ok := obj.Scalar(append(item, "name")...)
	if !ok || name == "" || strings.ContainsAny(name, "[]") {
		name = idx
	}
	f.IdentityPath = f.Path[:loc[4]] + seq + "[name=" + name + "]" + f.Path[loc[1]:]
	if line, _, exact := obj.Pos(item...); exact {
		f.ContainerLine = line
	}
}

// splitPath reads a path as manifest.Path.String writes it, for the plain
// keys and indexes that lead to a container ("spec.template.spec",
// "items[2].spec").
func splitPath(s string) manifest.Path {
	var out manifest.Path
	for _, part := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				out = append(out, part[i:])
				break
			}
			if _, err := strconv.Atoi(part[i+1 : i+j]); err == nil {
				out = append(out, part[i+1:i+j])
			}
			part = part[i+j+1:]
		}
	}
	return out
}

// apiGroup is the group of an apiVersion: "apps" for apps/v1, "" for v1.
func apiGroup(apiVersion string) string {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}
