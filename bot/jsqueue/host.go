package jsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
)

// runRecord is what the run bucket keeps of the check run a job started:
// written before the run is created (ID 0) and again with its id, so that
// the sweep finds the run of a job no replica works on any more.
type runRecord struct {
	ID      int64     `json:"id"`
	Head    string    `json:"head"`
	Started time.Time `json:"started"`
	// Seq is the job's sequence in the stream: while the stream holds it,
	// the job is in flight.
	Seq uint64 `json:"seq"`
	// Job is the job's message, to act for it again.
	Job json.RawMessage `json:"job"`
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
	// seq and job are the job's stream sequence and message (runRecord).
	seq     uint64
	job     []byte
	metrics *bot.Metrics

	superseded string // the head that superseded the review, when one did
	deferred   string // the failure Fail did not publish
	published  bool   // the review was published
	config     string // configHash of the config read at base, when read
}

// Unwrap returns the host the guard wraps (bot.Wrapper), so that the
// review still finds what it can do beyond bot.Host, such as looking up the
// merge base.
func (g *guardedHost) Unwrap() bot.Host { return g.Host }

// StartReview returns the check run an earlier attempt of the job
// started, or starts one and records it. A start that fails is counted;
// before the last attempt the job is retried, on the last the review goes
// on without a check run, so that it is still posted.
func (g *guardedHost) StartReview(ctx context.Context, pr bot.PullRequest) (bot.ReviewHandle, error) {
	if rec, ok := g.record(ctx); ok && rec.ID != 0 {
		g.log.Info("review resumed in the check run an earlier attempt started", "check_run", rec.ID)
		return bot.ReviewHandle{ID: rec.ID, Resumed: true}, nil
	}
	g.put(ctx, runRecord{Head: pr.HeadSHA})
	h, err := g.Host.StartReview(ctx, pr)
	if err != nil {
		g.metrics.ReviewStartFailure(pr.Host)
		if g.final && !g.ending() {
			g.log.Error("check run not created on the last attempt: the review is posted without it", "err", err.Error())
			return bot.ReviewHandle{}, nil
		}
		return h, err
	}
	if h.ID != 0 {
		g.put(ctx, runRecord{ID: h.ID, Head: pr.HeadSHA})
	}
	return h, nil
}

// requestTimeout bounds one request to JetStream made within a review,
// whose own context lasts as long as the review may: a request JetStream
// never answers (its store failed to write, or it restarted and lost the
// request) fails after it instead of holding the worker.
const requestTimeout = 5 * time.Second

// put records rec for the job (its start time, stream sequence and
// message are the guard's).
func (g *guardedHost) put(ctx context.Context, rec runRecord) {
	rec.Started, rec.Seq, rec.Job = time.Now().UTC(), g.seq, g.job
	data, _ := json.Marshal(rec)
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	if _, err := g.runs.Put(ctx, g.key, data); err != nil {
		// The review goes on; a retry finds the run on the head by name.
		g.log.Warn("cannot record the check run for a retry", "check_run", rec.ID, "err", err.Error())
	}
}

// record is the check run an earlier attempt recorded, if any.
func (g *guardedHost) record(ctx context.Context) (runRecord, bool) {
	return lookupRun(ctx, g.runs, g.key, g.log)
}

func lookupRun(ctx context.Context, runs jetstream.KeyValue, key string, log *slog.Logger) (runRecord, bool) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	e, err := runs.Get(ctx, key)
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			log.Warn("cannot read the job's check run record", "err", err.Error())
		}
		return runRecord{}, false
	}
	var rec runRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return runRecord{}, false
	}
	return rec, true
}

// Publish publishes r unless the lease is lost or the pull request's head
// moved on.
func (g *guardedHost) Publish(ctx context.Context, pr bot.PullRequest, h bot.ReviewHandle, r bot.Review) error {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	err := g.lease.renew(rctx)
	cancel()
	if err != nil {
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
	if err := g.Host.Publish(ctx, pr, h, r); err != nil {
		return err
	}
	g.published = true
	return nil
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
