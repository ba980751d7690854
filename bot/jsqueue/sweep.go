package jsqueue

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
)

// staleMessage is the note a check run the sweep completes carries.
const staleMessage = "prodready did not finish this review: the replica running it stopped and the job is no longer queued. Re-run this check to review again."

// maxSweptPerRound bounds the records one sweep looks at.
const maxSweptPerRound = 10000

// forgetRun drops the job's run record once its check run is complete.
func (q *Queue) forgetRun(job bot.Job, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.runs.Delete(ctx, runKey(msgID(job))); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		log.Warn("cannot drop the job's check run record: the sweep drops it", "err", err.Error())
	}
}

// sweepEvery sweeps at start and every SweepEvery until Shutdown.
func (q *Queue) sweepEvery() {
	defer q.wg.Done()
	t := time.NewTicker(q.cfg.SweepEvery)
	defer t.Stop()
	for {
		q.Sweep(q.runCtx)
		select {
		case <-q.stop:
			return
		case <-t.C:
		}
	}
}

// Sweep completes the check runs no replica will complete: those recorded
// in the run bucket longer ago than StaleAfter whose job the stream no
// longer holds (its replica stopped between the job's end and its
// record's removal, or the job was lost). Each is completed as timed out
// with a note to re-run (bot.StaleEnder) unless already complete, and its
// record dropped. Every replica sweeps; two sweeping one record at once
// complete the run once (the second finds it complete). It returns the
// number of runs completed.
func (q *Queue) Sweep(ctx context.Context) int {
	lister, err := q.runs.ListKeys(ctx)
	if err != nil {
		q.log.Warn("sweep: cannot list the run records", "err", err.Error())
		return 0
	}
	var keys []string
	for k := range lister.Keys() {
		if len(keys) < maxSweptPerRound {
			keys = append(keys, k)
		}
	}
	stream, err := q.js.Stream(ctx, q.cfg.Stream)
	if err != nil {
		q.log.Warn("sweep: cannot read the stream", "err", err.Error())
		return 0
	}
	ended := 0
	for _, key := range keys {
		if ctx.Err() != nil {
			break
		}
		if q.sweepOne(ctx, stream, key) {
			ended++
		}
	}
	return ended
}

// sweepOne ends the run of one record when it is stale, and reports
// whether it ended one.
func (q *Queue) sweepOne(ctx context.Context, stream jetstream.Stream, key string) bool {
	rec, ok := lookupRun(ctx, q.runs, key, q.log)
	if !ok || time.Since(rec.Started) < q.cfg.StaleAfter {
		return false
	}
	if rec.Seq != 0 {
		if _, err := stream.GetMsg(ctx, rec.Seq); err == nil {
			return false // still queued: its next delivery completes the run
		} else if !errors.Is(err, jetstream.ErrMsgNotFound) {
			q.log.Warn("sweep: cannot tell whether a job is queued", "key", key, "err", err.Error())
			return false
		}
	}
	job, _, err := decodeJob(rec.Job)
	if err != nil {
		q.log.Warn("sweep: unreadable run record dropped", "key", key, "err", err.Error())
		q.runs.Delete(ctx, key)
		return false
	}
	log := bot.JobLogger(q.log, job)
	host, err := q.opt.HostFor(job)
	if err != nil {
		log.Warn("sweep: cannot act for the job", "err", err.Error())
		return false
	}
	ender, ok := bot.As[bot.StaleEnder](host)
	if !ok {
		q.runs.Delete(ctx, key)
		return false
	}
	done, err := ender.EndStale(ctx, job.PR, bot.ReviewHandle{ID: rec.ID}, staleMessage)
	if err != nil {
		log.Warn("sweep: cannot complete a stale check run; tried again at the next sweep", "check_run", rec.ID, "err", err.Error())
		return false
	}
	if done {
		log.Warn("sweep: stale check run completed as timed out", "check_run", rec.ID, "started", rec.Started)
		q.opt.Metrics.StaleRunCompleted(job.PR.Host)
	}
	if err := q.runs.Delete(ctx, key); err != nil {
		log.Warn("sweep: cannot drop the run record", "err", err.Error())
	}
	return done
}
