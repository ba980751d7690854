package jsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
)

// runRecord is what the run bucket keeps of the check run a job started.
type runRecord struct {
	ID   int64  `json:"id"`
	Head string `json:"head"`
}

// guardedHost is the Host a queued review runs with. It adds to the
// host's own:
//   - StartReview reuses the check run an earlier attempt of the same job
//     started (on this replica or a dead one) instead of creating another;
//   - Publish first renews the lease (a review whose lease was lost
//     publishes nothing) and asks the host for the pull request's head: a
//     review of an older head publishes nothing and ends its check run as
//     superseded;
//   - Fail ends the check run only on the job's last attempt: before it,
//     the job is delivered again and the run stays in progress for it.
type guardedHost struct {
	bot.Host
	runs   jetstream.KeyValue
	key    string // run record key
	lease  *lease
	final  bool        // the job's last attempt
	ending func() bool // the replica's grace period is over
	log    *slog.Logger

	superseded string // the head that superseded the review, when one did
	deferred   string // the failure Fail did not publish
}

// Unwrap returns the host the guard wraps (bot.Wrapper), so that the
// review still finds what it can do beyond bot.Host, such as looking up the
// merge base.
func (g *guardedHost) Unwrap() bot.Host { return g.Host }

// StartReview returns the check run an earlier attempt of the job
// started, or starts one and records it.
func (g *guardedHost) StartReview(ctx context.Context, pr bot.PullRequest) (bot.ReviewHandle, error) {
	if rec, ok := g.record(ctx); ok {
		g.log.Info("review resumed in the check run an earlier attempt started", "check_run", rec.ID)
		return bot.ReviewHandle{ID: rec.ID}, nil
	}
	h, err := g.Host.StartReview(ctx, pr)
	if err != nil || h.ID == 0 {
		return h, err
	}
	data, _ := json.Marshal(runRecord{ID: h.ID, Head: pr.HeadSHA})
	if _, perr := g.runs.Put(ctx, g.key, data); perr != nil {
		// The review goes on; a retry would start a second run.
		g.log.Warn("cannot record the check run for a retry", "check_run", h.ID, "err", perr.Error())
	}
	return h, nil
}

// record is the check run an earlier attempt recorded, if any.
func (g *guardedHost) record(ctx context.Context) (runRecord, bool) {
	return lookupRun(ctx, g.runs, g.key, g.log)
}

func lookupRun(ctx context.Context, runs jetstream.KeyValue, key string, log *slog.Logger) (runRecord, bool) {
	e, err := runs.Get(ctx, key)
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			log.Warn("cannot read the job's check run record", "err", err.Error())
		}
		return runRecord{}, false
	}
	var rec runRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil || rec.ID == 0 {
		return runRecord{}, false
	}
	return rec, true
}

// Publish publishes r unless the lease is lost or the pull request's head
// moved on.
func (g *guardedHost) Publish(ctx context.Context, pr bot.PullRequest, h bot.ReviewHandle, r bot.Review) error {
	if err := g.lease.renew(ctx); err != nil {
		return fmt.Errorf("not publishing: %w", err)
	}
	if hc, ok := g.Host.(bot.HeadChecker); ok {
		head, err := hc.HeadSHA(ctx, pr)
		if err != nil {
			return fmt.Errorf("checking the pull request's head before publishing: %w", err)
		}
		if head != "" && head != pr.HeadSHA {
			g.superseded = head
			g.log.Info("review not published: the pull request's head moved on", "head", head)
			if err := hc.Supersede(ctx, pr, h, head); err != nil {
				return err
			}
			return nil
		}
	}
	return g.Host.Publish(ctx, pr, h, r)
}

// Fail ends the check run on the job's last attempt; before it, or when
// the replica is stopping, it keeps the run in progress for the next
// delivery of the job.
func (g *guardedHost) Fail(ctx context.Context, pr bot.PullRequest, h bot.ReviewHandle, message string) error {
	if !g.final || g.ending() {
		g.deferred = message
		return nil
	}
	return g.Host.Fail(ctx, pr, h, message)
}
