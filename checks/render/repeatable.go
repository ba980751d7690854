package render

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"text/template"
	"time"
)

// repeatableSeed seeds the random functions of every render alike.
var repeatableSeed = sha256.Sum256([]byte("prodready: a render repeats"))

// maxRandomLength bounds what one call of a random function writes: a
// chart that asks for more (randAlphaNum 2000000000) fails to render,
// rather than taking the process's memory.
const maxRandomLength = 1 << 20

// errTooLong is the error of a random function asked for count
// characters or bytes, over maxRandomLength.
func errTooLong(count int) error {
	return fmt.Errorf("%d random characters is more than a render takes (%d)", count, maxRandomLength)
}

// repeatableFuncs returns, for one render, the template functions whose
// results Helm draws at random or from the clock, made repeatable:
// randAlphaNum, randAlpha, randNumeric, randAscii, randBytes, randInt,
// shuffle and uuidv4 draw from a generator seeded alike for every render,
// and now is today's midnight, UTC. A chart that names a Job
// migrate-{{ randAlphaNum 5 | lower }} is then rendered with the same name
// by its check, by the render that verifies a fix (which otherwise saw
// the Job's findings as new ones, on another Job, and withheld every fix
// of the chart), by a review's base and head, and by the next run, so its
// reports stay the same from run to run. What each function returns is
// the kind Helm's returns (its alphabet, length and form); dates keep
// their day; none writes more than maxRandomLength. The crypto functions
// (genCA, genPrivateKey…) are left to Helm: their keys are in no name and
// no finding.
func repeatableFuncs() template.FuncMap {
	var mu sync.Mutex
	rng := rand.New(rand.NewChaCha8(repeatableSeed))
	// draw makes count bytes of next (none for a count below 1), at
	// most maxRandomLength.
	draw := func(count int, next func() byte) ([]byte, error) {
		if count > maxRandomLength {
			return nil, errTooLong(count)
		}
		mu.Lock()
		defer mu.Unlock()
		b := make([]byte, max(count, 0))
		for i := range b {
			b[i] = next()
		}
		return b, nil
	}
	pick := func(count int, alphabet string) (string, error) {
		b, err := draw(count, func() byte { return alphabet[rng.IntN(len(alphabet))] })
		return string(b), err
	}
	const (
		lower  = "abcdefghijklmnopqrstuvwxyz"
		upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		digits = "0123456789"
	)
	ascii := make([]byte, 0, 95)
	for c := byte(' '); c <= '~'; c++ {
		ascii = append(ascii, c)
	}
	return template.FuncMap{
		"randAlphaNum": func(count int) (string, error) { return pick(count, lower+upper+digits) },
		"randAlpha":    func(count int) (string, error) { return pick(count, lower+upper) },
		"randNumeric":  func(count int) (string, error) { return pick(count, digits) },
		"randAscii":    func(count int) (string, error) { return pick(count, string(ascii)) },
		"randBytes": func(count int) (string, error) {
			if count < 0 {
				return "", errors.New("makeslice: len out of range")
			}
			b, err := draw(count, func() byte { return byte(rng.Uint32()) })
			return base64.StdEncoding.EncodeToString(b), err
		},
		"randInt": func(lo, hi int) (int, error) {
			if hi <= lo {
				return 0, errors.New("invalid argument to Intn")
			}
			mu.Lock()
			defer mu.Unlock()
			return lo + rng.IntN(hi-lo), nil
		},
		"shuffle": func(s string) string {
			r := []rune(s)
			mu.Lock()
			defer mu.Unlock()
			rng.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
			return string(r)
		},
		"uuidv4": func() string {
			mu.Lock()
			defer mu.Unlock()
			var b [16]byte
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			b[6] = b[6]&0x0f | 0x40 // version 4
			b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
			return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
		},
		"now": func() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) },
	}
}
