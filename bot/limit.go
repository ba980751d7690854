package bot

import (
	"fmt"
	"io"
)

// MaxAnswerBytes is the largest API answer a host adapter reads by default:
// far above a manifest blob the bot would load (10 MiB, base64-encoded in
// JSON) or a repository tree, far below what would exhaust memory. A
// listing may claim any size; only a bounded read protects against a body
// that does not end.
const MaxAnswerBytes = 64 << 20

// LimitBody wraps an answer's body so that reading more than n bytes fails
// with an error naming the limit, instead of growing without bound or
// being cut silently (a cut body could decode as a shorter, valid file).
func LimitBody(body io.ReadCloser, n int64) io.ReadCloser {
	return &limitedBody{rc: body, left: n, limit: n}
}

type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("answer larger than %d bytes: not read", b.limit)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
