package github_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// manyFindingsRepo is a pull request whose review has inline threads and
// 120 annotations (three batches), so that every kind of write is sent.
func manyFindingsRepo(fake *fakegithub.Server) {
	var baseDocs, headDocs []string
	for i := 0; i < 120; i++ {
		d := strings.Replace(deployment("http", "nope", "8080"), "name: web\nspec", fmt.Sprintf("name: web%d\nspec", i), 1)
		baseDocs = append(baseDocs, d)
		headDocs = append(headDocs, d)
	}
	headDocs = append(headDocs, strings.Replace(deployment("http", "nope", "8080"), "name: web\nspec", "name: added\nspec", 1))
	fake.AddCommit("acme", "deploys", synthBase, map[string]string{"many.yaml": strings.Join(baseDocs, "---\n"), ".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared") + "review: {report: touched}\n"})
	fake.AddCommit("acme", "deploys", synthHead, map[string]string{"many.yaml": strings.Join(headDocs, "---\n")})
	fake.SetPR("acme", "deploys", 7, synthBase, synthHead)
}

// published is what a review left on the fake: check runs, reviews,
// top-level comments and the annotations of the last run.
type published struct {
	runs, reviews, comments, annotations int
	status, conclusion                   string
}

func publishedOn(fake *fakegithub.Server) published {
	var p published
	runs := fake.CheckRuns("acme", "deploys")
	p.runs = len(runs)
	if len(runs) > 0 {
		last := runs[len(runs)-1]
		p.annotations, p.status, p.conclusion = len(last.Annotations), last.Status, last.Conclusion
	}
	p.reviews = len(fake.Reviews("acme", "deploys"))
	for _, c := range fake.Comments("acme", "deploys") {
		if c.InReplyTo == 0 {
			p.comments++
		}
	}
	return p
}

// TestLostAnswerCreatesNothingTwice: GitHub carries out a create (or an
// annotation batch) and its answer is lost (a 502 from a proxy, or a
// gateway timeout). The review ends with one check run, one review, each
// thread and annotation once, exactly as without the fault.
func TestLostAnswerCreatesNothingTwice(t *testing.T) {
	base := newStack(t, 4, true)
	manyFindingsRepo(base.fake)
	base.deliver(t, "pull_request", "l-0", syntheticOpened(t))
	<-base.done
	want := publishedOn(base.fake)
	if want.runs != 1 || want.reviews != 1 || want.comments == 0 || want.annotations != 120 || want.conclusion != "failure" {
		t.Fatalf("baseline: %+v", want)
	}
	for _, tc := range []struct {
		name  string
		fault fakegithub.Fault
	}{
		{"check run create answered 502", fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/check-runs", Status: http.StatusBadGateway, After: true, Times: 1}},
		{"check run create answered 504 twice", fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/check-runs", Status: http.StatusGatewayTimeout, After: true, Times: 2}},
		{"review create answered 502", fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/pulls/7/reviews", Status: http.StatusBadGateway, After: true, Times: 1}},
		{"annotation batch answered 502", fakegithub.Fault{Method: "PATCH", PathPrefix: "/repos/acme/deploys/check-runs/", Status: http.StatusBadGateway, After: true, Times: 1}},
		{"two annotation batches answered 500", fakegithub.Fault{Method: "PATCH", PathPrefix: "/repos/acme/deploys/check-runs/", Status: http.StatusInternalServerError, After: true, Times: 2}},
		{"annotation batch refused with 500", fakegithub.Fault{Method: "PATCH", PathPrefix: "/repos/acme/deploys/check-runs/", Status: http.StatusInternalServerError, Times: 1}},
		{"secondary rate limit on the review", fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/pulls/7/reviews", Secondary: true, Times: 2}},
		{"secondary rate limit on the check run", fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/check-runs", Secondary: true, Times: 1}},
		{"slow answer to the file list", fakegithub.Fault{Method: "GET", PathPrefix: "/repos/acme/deploys/pulls/7/files", Delay: 300 * time.Millisecond, Times: 1}},
		{"slow answer to the review create", fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/pulls/7/reviews", Delay: 300 * time.Millisecond, Times: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStack(t, 4, true)
			manyFindingsRepo(st.fake)
			st.fake.Inject(tc.fault)
			st.deliver(t, "pull_request", "l-1", syntheticOpened(t))
			<-st.done
			got := publishedOn(st.fake)
			if got != want {
				t.Errorf("published %+v, want %+v as without the fault\n%s", got, want, st.logs.String())
			}
			faulted := 0
			for _, c := range st.fake.Calls() {
				if c.Method == tc.fault.Method && strings.HasPrefix(c.Path, tc.fault.PathPrefix) {
					faulted++
				}
			}
			if faulted == 0 {
				t.Fatal("the faulted call was never made")
			}
		})
	}
}

// TestPersistent500OnUpdateLeavesNoRunInProgress: every update of the check
// run fails for a while, so the review cannot complete it, nor can it
// end it as failed. Once GitHub answers again, EndStale (the durable
// queue's sweep) completes it as timed out with a note to re-run; a run
// already complete is left as it is.
func TestPersistent500OnUpdateLeavesNoRunInProgress(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	st.fake.Inject(fakegithub.Fault{Method: "PATCH", PathPrefix: "/repos/acme/deploys/check-runs/", Status: http.StatusInternalServerError, Times: 1000})
	st.deliver(t, "pull_request", "u-1", syntheticOpened(t))
	<-st.done
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Status != "in_progress" {
		t.Fatalf("runs %+v, want one left in progress by the failing updates", runs)
	}
	st.fake.ClearFaults()
	host, err := st.app.Host(42)
	if err != nil {
		t.Fatal(err)
	}
	ender, ok := bot.As[bot.StaleEnder](host)
	if !ok {
		t.Fatal("the GitHub host cannot end stale reviews")
	}
	pr := bot.PullRequest{Host: "github", Repo: "acme/deploys", Number: 7, HeadSHA: synthHead}
	ended, err := ender.EndStale(context.Background(), pr, bot.ReviewHandle{}, "The replica reviewing this stopped. Re-run this check to review again.")
	if err != nil || !ended {
		t.Fatalf("EndStale = %v, %v", ended, err)
	}
	runs = st.fake.CheckRuns("acme", "deploys")
	if runs[0].Status != "completed" || runs[0].Conclusion != "timed_out" || !strings.Contains(runs[0].Summary, "Re-run") {
		t.Fatalf("run %+v, want completed timed_out with a note to re-run", runs[0])
	}
	ended, err = ender.EndStale(context.Background(), pr, bot.ReviewHandle{ID: runs[0].ID}, "again")
	if err != nil || ended {
		t.Errorf("EndStale of a complete run = %v, %v; want nothing done", ended, err)
	}
}

// noRunHost is a Host whose check run could not be created, as the queue
// hands the review on a job's last attempt after every create failed.
type noRunHost struct{ bot.Host }

func (n noRunHost) StartReview(context.Context, bot.PullRequest) (bot.ReviewHandle, error) {
	return bot.ReviewHandle{}, nil
}

func (n noRunHost) Unwrap() bot.Host { return n.Host }

// TestWithoutACheckRunTheReviewCarriesTheSummary: when no check run could
// be created, the review is still posted, with the summary in its body,
// even for a push that adds no thread: the author is told the outcome.
func TestWithoutACheckRunTheReviewCarriesTheSummary(t *testing.T) {
	base := map[string]string{"deploy/web.yaml": webApp, ".prodready.yaml": threadRules}
	for _, tc := range []struct {
		name    string
		head    map[string]string
		threads bool
	}{
		{"a push with a new finding", map[string]string{"deploy/api.yaml": apiApp("metrics", false)}, true},
		{"a clean push", map[string]string{"deploy/web.yaml": strings.Replace(webApp, "name: web\n", "name: web\n  annotations: {team: shop}\n", 1)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newThreadRig(t, base)
			head := map[string]string{}
			for k, v := range base {
				head[k] = v
			}
			for k, v := range tc.head {
				head[k] = v
			}
			g.fake.AddCommit(rigOwner, rigRepo, strings.Repeat("1", 40), head)
			g.fake.SetPR(rigOwner, rigRepo, 1, strings.Repeat("b", 40), strings.Repeat("1", 40))
			pr := bot.PullRequest{Host: "github", Repo: rigOwner + "/" + rigRepo, Number: 1, BaseSHA: strings.Repeat("b", 40), HeadSHA: strings.Repeat("1", 40)}
			if err := g.rv.Review(context.Background(), noRunHost{g.host}, pr); err != nil {
				t.Fatal(err)
			}
			if runs := g.fake.CheckRuns(rigOwner, rigRepo); len(runs) != 0 {
				t.Fatalf("check runs %+v, want none", runs)
			}
			reviews := g.fake.Reviews(rigOwner, rigRepo)
			if len(reviews) != 1 {
				t.Fatalf("%d reviews, want 1", len(reviews))
			}
			body := reviews[0].Body
			if !strings.Contains(body, "could not create its **prodready** check run") || !strings.Contains(body, "## prodready") {
				t.Errorf("the review does not carry the summary:\n%s", body)
			}
			if got := len(g.threads()) > 0; got != tc.threads {
				t.Errorf("threads posted: %v, want %v", got, tc.threads)
			}
		})
	}
}
