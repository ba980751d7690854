package render

import (
	"context"

	"github.com/prodready/prodready/checks/rendered"
)

// The types of a render live in package rendered, which does not link the
// Helm and kustomize libraries, so a program that only reads renders (the
// lean prodready CLI, which asks a worker process to render) stays small.
type (
	// Files is rendered.Files.
	Files = rendered.Files
	// Render is rendered.Render.
	Render = rendered.Render
	// Document is rendered.Document.
	Document = rendered.Document
	// Location is rendered.Location.
	Location = rendered.Location
	// Problem is rendered.Problem.
	Problem = rendered.Problem
	// Skipped is rendered.Skipped.
	Skipped = rendered.Skipped
	// Options is rendered.Options.
	Options = rendered.Options
	// Result is rendered.Result.
	Result = rendered.Result
	// Roots is rendered.Roots.
	Roots = rendered.Roots
	// seg is one step of a key path.
	seg = rendered.Segment
)

// The kinds of a render and of a location, as in package rendered.
const (
	Helm      = rendered.Helm
	Kustomize = rendered.Kustomize
	Template  = rendered.Template
	Values    = rendered.Values
	Patch     = rendered.Patch
	Base      = rendered.Base
	Generator = rendered.Generator
)

// Defaults applied to zero Options fields, as in package rendered.
const (
	DefaultKubeVersion    = rendered.DefaultKubeVersion
	DefaultTimeout        = rendered.DefaultTimeout
	DefaultMaxOutputBytes = rendered.DefaultMaxOutputBytes
	DefaultMaxObjects     = rendered.DefaultMaxObjects
	DefaultMaxRenders     = rendered.DefaultMaxRenders
)

// Discover is rendered.Discover.
func Discover(files Files) Roots { return rendered.Discover(files) }

// ReadDir is rendered.ReadDir.
func ReadDir(root string) (Files, error) { return rendered.ReadDir(root) }

// Helpers of package rendered that this package's code uses under its own
// names.
var (
	formatPath          = rendered.FormatPath
	parsePath           = rendered.ParsePath
	cleanDir            = rendered.CleanDir
	join                = rendered.JoinWithin
	isKustomizationName = rendered.IsKustomizationName
)

// InProcess is a rendered.Renderer that renders in this process (Run).
func InProcess(ctx context.Context, files Files, opts Options) (Result, error) {
	return Run(ctx, files, opts), nil
}
