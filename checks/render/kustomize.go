package render

import "context"

// RenderKustomization builds the kustomization file kfile of files.
func RenderKustomization(ctx context.Context, files Files, kfile string, opts Options) *Render {
	return &Render{Kind: Kustomize, Root: kfile, Problems: []Problem{{File: kfile, Message: "kustomize not implemented yet"}}}
}
