package rendered

import (
	"context"
	"path"
	"strings"

	"github.com/prodready/prodready/checks"
)

// VerifyClaims makes Map check the findings whose message is about what a
// chart will render once another finding's fix is applied against a
// render of the chart with that fix: the follow-ups the fix names
// (replicas-too-few's pdb-missing, "no PodDisruptionBudget selects them
// once replicas: 3 is applied", and its spreads). A chart that renders its
// own PodDisruptionBudget or spread when replicas rise (ingress-nginx,
// kyverno) makes the claim false: the render with the fixes of one chart
// (one render more per chart that has such a pair, made from the files
// its values.yaml render read, kept from folders) decides, and a
// follow-up it does not have is not reported. A fix that is no values
// edit cannot be rendered, and its follow-ups stay as they are. A fix the
// chart cannot be rendered with (refuse) is withheld, with why, and its
// follow-ups are not reported. Call it before Map; VerifyFixes does it
// too.
func (p *Prepared) VerifyClaims(ctx context.Context, cfg *checks.Config, folders []Folder) {
	if ctx == nil {
		ctx = context.Background()
	}
	if p.claims == nil {
		p.claims = &verifier{ctx: ctx, cfg: cfg}
	}
	if p.renderer == nil {
		return
	}
	for _, folder := range folders {
		if folder.Err == nil {
			p.keepSources(path.Clean(folder.Dir), folder.Files, folder.Read, p.renderer, p.opts)
		}
	}
}

// dropDisproved returns fs without the follow-up findings that a render
// of their chart with the fix that names them does not have (see
// VerifyClaims).
func (p *Prepared) dropDisproved(fs []checks.Finding) []checks.Finding {
	if p.claims == nil {
		return fs
	}
	order, byRender := p.byRender(fs, func(pl *placed, _ checks.Finding) bool {
		return pl.src != nil && pl.render.Kind == Helm
	})
	drop := map[int]bool{}
	for _, pl := range order {
		for _, i := range pl.disproved(p.claims, fs, byRender[pl]) {
			drop[i] = true
		}
		if p.verify == nil {
			// Without VerifyFixes nothing else translates a fix: the
			// values trees the claims were translated on are let go, not
			// held while the rest of the run's rules run (5 MB on the
			// corpus's charts, argo-cd's 4,700-line values.yaml most of
			// it). A later batch of the same render's findings parses
			// them again.
			pl.values = nil
		}
	}
	if len(drop) == 0 {
		return fs
	}
	out := make([]checks.Finding, 0, len(fs)-len(drop))
	for i, f := range fs {
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

// MaxClaimRenders bounds the renders the claims check spends on one
// chart in a run: one with the fixes of the first batch of its findings
// that has claims, and one more for each later batch that brings fixes of
// its own, up to the bound. The claims of fixes no render was made with
// are not decided, and their follow-ups are reported as they are, as when
// a render with the fixes fails. A chart hands its findings over in
// batches of 32 objects, so the bound is reached only by a chart of more
// than 300 objects whose later objects keep bringing new claims. It is
// MaxVerifyRenders, the bound of the renders that verify fixes.
const MaxClaimRenders = MaxVerifyRenders

// disproved returns the indexes (among idx, findings of pl's render) of
// the follow-up findings a render of the chart with the fixes that name
// them does not have. The render is made once per chart and run, and
// again only for a batch that brings fixes of its own, within
// MaxClaimRenders.
func (pl *placed) disproved(v *verifier, fs []checks.Finding, idx []int) []int {
	var claims []claim
	var cands []candidate
	for _, i := range idx {
		f := fs[i]
		if f.Fix == nil || len(f.Fix.Edits) == 0 || len(f.Fix.FollowUps) == 0 {
			continue
		}
		var mine []claim
		for _, j := range idx {
			g := fs[j]
			if j != i && sameObject(followUpObject(f), g.Object) && slicesContains(f.Fix.FollowUps, g.RuleID) {
				mine = append(mine, claim{j, followUpKey(g.RuleID, g.Object), aloneKey(f)})
			}
		}
		if len(mine) == 0 {
			continue
		}
		pc, ok := pl.translate(pl.src, f)
		if !ok {
			continue // not a values edit: the chart cannot be rendered with it
		}
		claims = append(claims, mine...)
		cands = append(cands, candidate{finding: i, key: aloneKey(f), place: pc, doc: f.Object.Doc})
	}
	if len(cands) == 0 || pl.claimFailed {
		return pl.refusedClaims(claims) // a render with the fixes failed: nothing more is known
	}
	// A chart of more objects than one unit of the rules' work hands its
	// findings over in several batches: one that brings fixes the last
	// render was not made with renders the chart again with every fix
	// seen so far, so that each claim is decided by a render that has the
	// fix naming it.
	if fresh := pl.unrefused(unrendered(pl.claimCands, cands)); len(fresh) > 0 && pl.claimRenders < MaxClaimRenders {
		pl.claimCands = append(pl.claimCands, fresh...)
		pl.claimKeys = nil
		pl.claimRenders++
		failed := ""
		if v.ctx.Err() == nil {
			pl.claimKeys, _, failed = pl.renderWith(v, pl.src, pl.claimCands)
		}
		if pl.claimKeys == nil && failed != "" {
			pl.refuse(v)
		}
		if pl.claimKeys == nil {
			pl.claimFailed = true
			return pl.refusedClaims(claims)
		}
	}
	rendered := make(map[string]bool, len(pl.claimCands))
	for _, c := range pl.claimCands {
		rendered[c.key] = true
	}
	out := pl.refusedClaims(claims)
	for _, c := range claims {
		if rendered[c.fix] && !hasPrefixKey(pl.claimKeys, c.key) {
			out = append(out, c.finding)
		}
	}
	return out
}

// claim is a follow-up finding whose message is about what the chart
// renders once another finding's fix is applied.
type claim struct {
	finding int    // its index among the findings
	key     string // followUpKey of its rule and object
	fix     string // aloneKey of the finding whose fix names it
}

// refusedClaims returns the findings of the claims whose fix the chart
// cannot be rendered with (refuse): what they say will be rendered once
// the fix is applied will not be, as the fix is not applied.
func (pl *placed) refusedClaims(claims []claim) []int {
	var out []int
	for _, c := range claims {
		if _, ok := pl.claimRefused[c.fix]; ok {
			out = append(out, c.finding)
		}
	}
	return out
}

// refuse finds, when the chart cannot be rendered with the fixes of
// pl.claimCands together, the fixes it cannot be rendered with alone
// (a template's own fail, a values schema, an edit that does not apply),
// one render each within MaxClaimRenders, and renders the chart again
// with the others. A refused fix is not applied by prodready fix (which
// withholds it with the same reason), so the follow-ups it names are not
// reported (refusedClaims) and its fix is shown withheld (Map). A fix
// whose render alone succeeds, or which the bound leaves untried, stays
// among the candidates.
func (pl *placed) refuse(v *verifier) {
	var kept []candidate
	var keptKeys findingKeys // the keys of the render with kept's last fix alone
	for _, c := range pl.claimCands {
		if pl.claimRenders >= MaxClaimRenders || v.ctx.Err() != nil {
			kept, keptKeys = append(kept, c), nil
			continue
		}
		pl.claimRenders++
		keys, _, failed := pl.renderWith(v, pl.src, []candidate{c})
		if keys == nil && failed != "" && v.ctx.Err() == nil {
			if pl.claimRefused == nil {
				pl.claimRefused = map[string]string{}
			}
			pl.claimRefused[c.key] = pl.again() + " with it: " + failed
			continue
		}
		kept, keptKeys = append(kept, c), keys
	}
	pl.claimCands = kept
	switch {
	case len(kept) == 0 || len(pl.claimRefused) == 0:
	case len(kept) == 1 && keptKeys != nil:
		pl.claimKeys = keptKeys // the one fix left was rendered alone just now
	case pl.claimRenders < MaxClaimRenders && v.ctx.Err() == nil:
		pl.claimRenders++
		pl.claimKeys, _, _ = pl.renderWith(v, pl.src, kept)
	}
}

// unrefused returns cands without the fixes the chart was found not to
// render with.
func (pl *placed) unrefused(cands []candidate) []candidate {
	if len(pl.claimRefused) == 0 {
		return cands
	}
	var out []candidate
	for _, c := range cands {
		if _, ok := pl.claimRefused[c.key]; !ok {
			out = append(out, c)
		}
	}
	return out
}

// unrendered returns the candidates of cands whose fix is not among
// those of rendered (by aloneKey).
func unrendered(rendered, cands []candidate) []candidate {
	had := make(map[string]bool, len(rendered))
	for _, c := range rendered {
		had[c.key] = true
	}
	var out []candidate
	for _, c := range cands {
		if !had[c.key] {
			had[c.key] = true
			out = append(out, c)
		}
	}
	return out
}

// sameObject reports whether two findings are about the same object.
func sameObject(a, b checks.ObjectRef) bool {
	return a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// hasPrefixKey reports whether keys holds a key that starts with prefix.
func hasPrefixKey(keys findingKeys, prefix string) bool {
	for k := range keys {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
