package bot

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/checks/scan"
)

// round returns the check of one fix round (fix.ConvergeWith's check),
// as prodready fix's: the inputs as fixed so far, with the charts the pull
// request touches rendered from that text with their values.yaml alone,
// and a finding of a chart whose fix is an edit of a values file or of
// literal template lines that rendering again shows right carrying that
// edit (rendered.VerifyFixes, with one FixMemo across the rounds).
// Kustomize overlays are not built, so their bases and patches are fixed
// as written. A round's findings are kept by the inputs' content, so the
// re-check of a round that changed nothing costs no render.
func (a *Applier) round(ctx context.Context, plan *renderPlan, files []File, cfg *checks.Config) func([]checks.Input) []checks.Finding {
	memo := &rendered.FixMemo{}
	var mu sync.Mutex
	seen := map[[sha256.Size]byte][]checks.Finding{}
	return func(cur []checks.Input) []checks.Finding {
		key := inputsKey(cur)
		mu.Lock()
		fs, ok := seen[key]
		mu.Unlock()
		if ok {
			return fs
		}
		fs = a.check(ctx, plan, files, cfg, cur, memo)
		mu.Lock()
		seen[key] = fs
		mu.Unlock()
		return fs
	}
}

func (a *Applier) check(ctx context.Context, plan *renderPlan, files []File, cfg *checks.Config, cur []checks.Input, memo *rendered.FixMemo) []checks.Finding {
	var folders []rendered.Folder
	if a.Render != nil {
		text := make(map[string][]byte, len(cur))
		for _, in := range cur {
			text[in.Path] = in.Data
		}
		now := make([]File, len(files))
		for i, f := range files {
			now[i] = f
			if d, ok := text[f.Path]; ok {
				now[i].Data = d
			}
		}
		if folder, ok := plan.folder(now); ok {
			folders = []rendered.Folder{folder}
		}
	}
	fs := scan.FixRound(ctx, cur, folders, cfg, a.Render, memo)
	for i := range fs {
		fs[i].File = plan.problemFile(fs[i].File)
	}
	return fs
}

// inputsKey identifies a set of inputs by their paths and contents.
func inputsKey(in []checks.Input) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	for _, i := range in {
		binary.LittleEndian.PutUint64(n[:], uint64(len(i.Path)))
		h.Write(n[:])
		h.Write([]byte(i.Path))
		binary.LittleEndian.PutUint64(n[:], uint64(len(i.Data)))
		h.Write(n[:])
		h.Write(i.Data)
	}
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out
}
