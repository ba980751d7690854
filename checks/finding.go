package checks

import (
	"strings"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// Finding is one thing a rule found, at an exact place in a file.
type Finding struct {
	RuleID   string   `json:"rule"`
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	// Line and Column are 1-based; EndLine is the 1-based, inclusive last
	// line of the block the finding is about (equal to Line for one line).
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	EndLine int    `json:"endLine"`
	Message string `json:"message"`
	// Object names the Kubernetes object (or document) the finding is about.
	Object ObjectRef `json:"object"`
	// Path is the node path the finding is about, e.g.
	// spec.template.spec.containers[0].readinessProbe (it may not exist yet).
	Path string `json:"path,omitempty"`
	Fix  *Fix   `json:"fix,omitempty"`
	// Occurrence tells apart findings that would otherwise be identical (two
	// objects of one kind and name in one file): 0 for the first, 1 for the
	// second, … It keeps fingerprints unique.
	Occurrence int `json:"occurrence,omitempty"`
	// IdentityPath is Path with every container's index replaced by the
	// container's name (spec.template.spec.containers[name=web].image),
	// set by Run: what Fingerprint hashes, so that reordering containers
	// keeps a finding's identity. Empty means Path.
	IdentityPath string `json:"-"`
	// ContainerLine is the 1-based line of the "- name:" item of the
	// container the finding is about, 0 when it is about no container.
	ContainerLine int `json:"-"`
	// Cause is the node path of the object's value that brings the
	// finding about when that is not Path: spec.replicas for a rule that
	// asks something of a workload from two replicas on. A render maps it
	// to the line that writes it (a values line, an overlay's replicas:
	// count), one of Parts. Empty for most findings.
	Cause string `json:"-"`
	// Parts are other lines that write part of what the finding is
	// about: the values lines of the keys a Helm template line composes
	// its scalar from (image: "{{ .Values.image.repository }}:{{
	// .Values.image.tag }}"), when the finding is on that template line,
	// in the order they write; the line that writes its Cause, when that
	// is not its own; and its home, when a fix moved it (see Place.Home).
	// A review comments on one its pull request adds when it does not add
	// the finding's own line. Not in the outputs.
	Parts []Place `json:"-"`
	// Merged are the objects of other renders whose same finding, at the
	// same line, this one stands for (a base line that several overlays
	// build, each with its own name prefix): each is an identity of the
	// finding as much as its Object is. A review takes the finding as new
	// only when one of them is, and as fixed for each that is gone. Not in
	// the outputs.
	Merged []ObjectRef `json:"-"`
	// AfterFixOf, when set, is the finding whose fix brings this one
	// about in the same review: pdb-missing on a serving singleton that
	// replicas-too-few's fix raises to three. An ignore that silences that
	// finding silences this one with it, wherever it is read: in the run
	// (a comment at the finding's line, an annotation of its object), or,
	// for a render, at the template, values or base line its findings map
	// to. Not in the outputs.
	AfterFixOf *FixOf `json:"-"`
}

// Place is a line of a file, at a column.
type Place struct {
	// File is the file's path, as a Finding's File names one.
	File string
	// Line and Column are 1-based.
	Line, Column int
	// Cause says the line writes the finding's Cause (its value brings
	// the finding about) rather than part of what it is about.
	Cause bool
	// Home says the line is where the finding is when no fix moves it,
	// where check reports it: a verified fix of a render puts its finding
	// on the line the fix edits (a values key, a patch appended to an
	// overlay's kustomization), and an ignore at its home silences it
	// there too.
	Home bool
}

// FixOf names the finding of one rule on one object whose fix another
// finding anticipates (Finding.AfterFixOf), and where the run found it:
// the path of its object's file and its 1-based line there.
type FixOf struct {
	Rule   string
	Object ObjectRef
	File   string
	Line   int
}

// WithObject is msg after the kind and name of f's object ("Deployment
// web: msg"), msg when f names no object: how the outputs tell apart
// findings of several objects that say the same at one line.
func (f Finding) WithObject(msg string) string {
	if f.Object.Name == "" {
		return msg
	}
	return f.Object.Kind + " " + f.Object.Name + ": " + msg
}

// WithoutObject is f's message without the kind and name WithObject
// starts it with.
func (f Finding) WithoutObject() string {
	if f.Object.Name == "" {
		return f.Message
	}
	return strings.TrimPrefix(f.Message, f.Object.Kind+" "+f.Object.Name+": ")
}

// ObjectRef identifies the object a finding is about.
type ObjectRef struct {
	// Group is the API group of the object's apiVersion ("apps" for
	// apps/v1, "" for the core group's v1): part of a finding's identity,
	// not of the reports.
	Group     string `json:"-"`
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Doc is the 0-based index of the document in its file (a List's items
	// share their List's); -1 for the file.
	Doc int `json:"doc"`
}

// Object is the object o names, apart from where it is written (its Doc):
// two findings are of one object when their Objects are equal.
func (o ObjectRef) Object() ObjectRef {
	o.Doc = 0
	return o
}

// Fix is a change that makes a finding go away: structured edits of the
// finding's document, applied by package edit, or, in a file that is not
// YAML the edit engine reads (a Helm template), whole-line changes of the
// finding's file.
type Fix struct {
	// Description says what the fix does, for people.
	Description string `json:"description"`
	// Kind says whether the fix is certainly right (Exact) or right in
	// shape with values or effects to check (StartingPoint).
	Kind  FixKind   `json:"kind"`
	Edits []edit.Op `json:"edits"`
	// Lines, when set, is the fix as whole-line changes of the finding's
	// file, made in place of Edits (which are then empty): how a fix
	// verified on a rendered chart edits the literal template lines that
	// rendered what it changes.
	Lines []edit.Change `json:"lines,omitempty"`
	// FollowUps are the rules whose findings on the same object the fix
	// brings on by design, and which are reported after it (spreading and
	// a PodDisruptionBudget once replicas rise): verifying the fix by
	// rendering again does not count them against it.
	FollowUps []string `json:"followUps,omitempty"`
	// FollowUpsOn, when set, is the object the FollowUps are found on
	// when it is not the finding's own: an HPA's minReplicas fix raises
	// the replicas of the workload it scales.
	FollowUpsOn *ObjectRef `json:"followUpsOn,omitempty"`
	// Reads are the paths of the object whose values the fix writes again
	// elsewhere (the port a probe names, the name a label copies): a fix of
	// a chart is applied only where the chart writes them whenever it
	// writes the fixed object's line, so that no other values leave the fix
	// naming what is not there, and its copy is written as the chart
	// computes the original.
	Reads []manifest.Path `json:"-"`
	// TurnOn, when set, is a fix of a rendered chart made in its values
	// rather than in the object: the values that make a template of the
	// chart render (Context.DormantTemplate), in place of Edits, which are
	// then empty. A chart's render makes them edits of its values.yaml,
	// verified by rendering again; anywhere else the fix is its
	// description only.
	TurnOn *TurnOn `json:"-"`
	// Also, when set, are the parts of the fix made in files other than
	// the finding's: a chart's fix that sets a values key and adds
	// template lines (a read-only root filesystem set in values.yaml, the
	// volume for /tmp in the template). The fix is applied whole or not at
	// all, and is never one suggestion of a review, which edits one file.
	Also []FilePart `json:"also,omitempty"`
	// Withheld, when set, says why a fix that was offered is not applied:
	// rendering again with it showed the finding it brings, or that its
	// own finding stays. Every output shows it in place of the edits.
	Withheld string `json:"withheld,omitempty"`
}

// FilePart is the part of a fix made in one file other than its
// finding's (Fix.Also): edits of its document Doc, or whole-line changes.
type FilePart struct {
	// File is the file the part edits, as a Finding's File names one.
	File string `json:"file"`
	// Line is the 1-based line where the part edits, for people.
	Line int `json:"line"`
	// Doc is the 0-based index of the document Edits edit.
	Doc int `json:"doc"`
	// Edits are the part's structured edits, or, for a template,
	// Lines its whole-line changes (as a Fix's).
	Edits []edit.Op     `json:"edits,omitempty"`
	Lines []edit.Change `json:"lines,omitempty"`
}

// TurnOn is a fix that turns on a Dormant template: the values its guard
// reads are set so that it renders. Only a guard made of values alone is
// turned on (`{{- if .Values.pdb.enabled }}`, `{{- if and .Values.a
// .Values.b.create }}`): each key it reads that holds false or nothing
// is set to true, and one that holds an empty mapping
// (`podDisruptionBudget: {}` under `{{- if .Values.podDisruptionBudget
// }}`) is given Mapping's keys.
type TurnOn struct {
	// Template is the template to turn on.
	Template Dormant
	// Mapping are edits (their paths under the guard's key) that give an
	// empty mapping the guard reads its content, as the template writes
	// it out: maxUnavailable: 1 for a PodDisruptionBudget's spec. Without
	// them such a guard is not turned on.
	Mapping []edit.Op
}

// TurnOnFix is the fix that turns d on (a starting point: the template's
// settings are the author's to check), with mapping as its Mapping.
func (d Dormant) TurnOnFix(mapping ...edit.Op) *Fix {
	return &Fix{Description: "turn on the chart's " + d.File, Kind: StartingPoint, TurnOn: &TurnOn{Template: d, Mapping: mapping}}
}

// FixKind says how sure a fix is.
type FixKind string

const (
	// Exact is a fix that is certainly right and keeps the workload's
	// behaviour: an API version migration, a request lowered to its limit,
	// distinct probe timings, --profiling=false. prodready fix applies these
	// by default.
	Exact FixKind = "exact"
	// StartingPoint is a fix right in shape whose values or effect depend
	// on the image or the app (resource sizes, runAsUser, a read-only root
	// filesystem, dropped capabilities, replica counts): its author checks
	// it. prodready fix applies these only when asked (--all, --rule).
	StartingPoint FixKind = "starting-point"
)

// Fixable reports whether f carries a fix that can be applied (edits or
// line changes), not only its description.
func (f Finding) Fixable() bool {
	return f.Fix != nil && (len(f.Fix.Edits) > 0 || len(f.Fix.Lines) > 0)
}

// At starts a finding about obj located at path: the path's key when it
// exists, else the nearest existing parent (the block that should hold it),
// else the object's kind line. Run fills in the rule ID and, unless the rule
// sets one, the severity.
func At(obj *manifest.Object, path manifest.Path, message string) Finding {
	line, col, exact := obj.Pos(path...)
	end := line
	if exact {
		if e := obj.BlockEnd(path...); e > end {
			end = e
		}
	}
	return Finding{
		File:    obj.File.Path,
		Line:    line,
		Column:  col,
		EndLine: end,
		Message: message,
		Object:  RefOf(obj),
		Path:    path.String(),
	}
}

// WithFix attaches a fix made of ops to the finding, as a starting point:
// right in shape, to be checked against the app (see WithExactFix).
func (f Finding) WithFix(description string, ops ...edit.Op) Finding {
	f.Fix = &Fix{Description: description, Kind: StartingPoint, Edits: ops}
	return f
}

// WithExactFix attaches a fix made of ops that is certainly right and
// keeps the workload's behaviour (see Exact).
func (f Finding) WithExactFix(description string, ops ...edit.Op) Finding {
	f.Fix = &Fix{Description: description, Kind: Exact, Edits: ops}
	return f
}

// ExactFix reports whether f carries an exact fix.
func (f Finding) ExactFix() bool { return f.Fix != nil && f.Fix.Kind == Exact }

// WithSeverity overrides the rule's default severity for this finding
// (for example info instead of warning in a milder case).
func (f Finding) WithSeverity(s Severity) Finding {
	f.Severity = s
	return f
}

// RefOf is the ObjectRef of obj, as its findings name it.
func RefOf(obj *manifest.Object) ObjectRef {
	return ObjectRef{Group: apiGroup(obj.APIVersion), Kind: obj.Kind, Name: obj.Name, Namespace: obj.Namespace, Doc: obj.Doc}
}

// SetOp is a shorthand for an edit that sets value at path.
func SetOp(path manifest.Path, value string, after ...string) edit.Op {
	return edit.Op{Action: edit.Set, Path: path, Value: value, After: after}
}

// DeleteOp is a shorthand for an edit that deletes path.
func DeleteOp(path manifest.Path) edit.Op {
	return edit.Op{Action: edit.Delete, Path: path}
}

// AppendOp is a shorthand for an edit that appends value to the sequence at path.
func AppendOp(path manifest.Path, value string) edit.Op {
	return edit.Op{Action: edit.Append, Path: path, Value: value}
}
