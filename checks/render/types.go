package render

import (
	"context"

	"github.com/prodready/prodready/checks/rendered"
)

// seg is one step of a key path.
type seg = rendered.Segment

// The kinds of a render and of a location, named here as the rendering
// code names them.
const (
	Helm      = rendered.Helm
	Kustomize = rendered.Kustomize
	Template  = rendered.Template
	Values    = rendered.Values
	Patch     = rendered.Patch
	Base      = rendered.Base
	Generator = rendered.Generator
)

// Helpers of package rendered that this package's code uses under its own
// names.
var (
	formatPath          = rendered.FormatPath
	parsePath           = rendered.ParsePath
	cleanDir            = rendered.CleanDir
	join                = rendered.JoinWithin
	isKustomizationName = rendered.IsKustomizationName
)

// Streaming is a rendered.StreamRenderer that renders in this process
// (RunEach): what a render worker serves.
func Streaming(ctx context.Context, files rendered.Files, opts rendered.Options, emit func(*rendered.Render)) rendered.Result {
	return RunEach(ctx, files, opts, emit)
}

// InProcess is a rendered.Renderer that renders in this process (Run).
func InProcess(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
	return Run(ctx, files, opts), nil
}
