// Package cron reads CronJob schedules as the CronJob controller does and
// works out how often they run. It imports only the standard library, so
// its fuzz target instruments a few packages, not the rules' hundreds.
package cron

import (
	"strconv"
	"strings"
	"time"
)

// Schedule is a cron schedule as the CronJob controller reads it (robfig/cron's
// standard parser): five fields (minute, hour, day of month, month, day of
// week) of lists, ranges and steps, month and weekday names, `?` for `*`,
// the @yearly … @hourly descriptors and `@every <duration>`, after an
// optional TZ= or CRON_TZ= prefix (a time zone shifts the runs, not the
// gaps between them; daylight saving time is not modelled).
type Schedule struct {
	minute, hour, dom, month, dow uint64 // bit i set: value i matches
	// domStar and dowStar are set when the field is `*` or `?` (a step
	// above 1 clears it): a day then matches when both fields match, and
	// otherwise when either does, as in cron.
	domStar, dowStar bool
	// every is the delay of an @every schedule, 0 for the others.
	every time.Duration
}

// MaxLen bounds the schedules Parse reads: a real one is a few
// dozen characters.
const MaxLen = 256

type cronField struct{ min, max uint }

var (
	cronMinute = cronField{0, 59}
	cronHour   = cronField{0, 23}
	cronDom    = cronField{1, 31}
	cronMonth  = cronField{1, 12}
	cronDow    = cronField{0, 6}
)

var cronMonthNames = map[string]uint{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
var cronDowNames = map[string]uint{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

var cronDescriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// Parse parses a CronJob schedule; false when it is not one the
// controller accepts (or longer than MaxLen).
func Parse(spec string) (Schedule, bool) {
	spec = strings.TrimSpace(spec)
	if len(spec) > MaxLen {
		return Schedule{}, false
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		i := strings.IndexAny(spec, " \t")
		if i < 0 {
			return Schedule{}, false
		}
		spec = strings.TrimSpace(spec[i:])
	}
	if strings.HasPrefix(spec, "@") {
		if rest, ok := strings.CutPrefix(spec, "@every "); ok {
			d, err := time.ParseDuration(strings.TrimSpace(rest))
			if err != nil || d <= 0 {
				return Schedule{}, false
			}
			// robfig/cron runs @every at whole seconds, at least one apart.
			d = max(d.Truncate(time.Second), time.Second)
			return Schedule{every: d}, true
		}
		std, ok := cronDescriptors[spec]
		if !ok {
			return Schedule{}, false
		}
		spec = std
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return Schedule{}, false
	}
	var s Schedule
	var ok bool
	if s.minute, _, ok = parseCronField(fields[0], cronMinute, nil); !ok {
		return Schedule{}, false
	}
	if s.hour, _, ok = parseCronField(fields[1], cronHour, nil); !ok {
		return Schedule{}, false
	}
	if s.dom, s.domStar, ok = parseCronField(fields[2], cronDom, nil); !ok {
		return Schedule{}, false
	}
	if s.month, _, ok = parseCronField(fields[3], cronMonth, cronMonthNames); !ok {
		return Schedule{}, false
	}
	if s.dow, s.dowStar, ok = parseCronField(fields[4], cronDow, cronDowNames); !ok {
		return Schedule{}, false
	}
	return s, true
}

// parseCronField reads one comma-separated field into a bit set, and
// whether it is a star (`*` or `?` with no step above 1).
func parseCronField(field string, f cronField, names map[string]uint) (set uint64, star bool, ok bool) {
	star = true
	for _, part := range strings.Split(field, ",") {
		bitsOf, partStar, ok := parseCronRange(part, f, names)
		if !ok {
			return 0, false, false
		}
		set |= bitsOf
		star = star && partStar
	}
	return set, star, true
}

// parseCronRange reads `*`, `?`, `N`, `N-M`, each with an optional
// `/step` (`N/step` runs from N to the field's maximum).
func parseCronRange(expr string, f cronField, names map[string]uint) (set uint64, star bool, ok bool) {
	rangePart, stepPart, hasStep := strings.Cut(expr, "/")
	var start, end uint
	low, high, isRange := strings.Cut(rangePart, "-")
	if low == "*" || low == "?" {
		if isRange {
			return 0, false, false
		}
		start, end, star = f.min, f.max, true
	} else {
		if start, ok = cronValue(low, names); !ok {
			return 0, false, false
		}
		end = start
		if isRange {
			if end, ok = cronValue(high, names); !ok {
				return 0, false, false
			}
		}
	}
	step := uint(1)
	if hasStep {
		n, err := strconv.ParseUint(stepPart, 10, 16)
		if err != nil || n == 0 {
			return 0, false, false
		}
		step = uint(n)
		if !isRange && !star {
			end = f.max
		}
		if step > 1 {
			star = false
		}
	}
	if start < f.min || end > f.max || start > end {
		return 0, false, false
	}
	for i := start; i <= end; i += step {
		set |= 1 << i
	}
	return set, star, true
}

// cronValue reads a number or, where the field has them, a name.
func cronValue(s string, names map[string]uint) (uint, bool) {
	if v, ok := names[strings.ToLower(s)]; ok {
		return v, true
	}
	n, err := strconv.ParseUint(s, 10, 8)
	if err != nil {
		return 0, false
	}
	return uint(n), true
}

// Cadence is how often a schedule runs, from its runs over
// cronHorizonDays days (at most cronMaxRuns of them).
type Cadence struct {
	// Runs is false for a schedule that never runs (February 30th).
	Runs bool
	// Interval is the shortest time between two runs.
	Interval time.Duration
	// Regular is true when every gap between two runs is Interval.
	Regular bool
	// Span is the shortest time 100 intervals take (101 runs in a row): a
	// controller outage that long misses 100 schedules. 0 when fewer than
	// 101 runs fall in the horizon (they take longer than years).
	Span time.Duration
}

const (
	// cronHorizonDays covers five calendar years from a Monday, leap days
	// and every weekday of every date included.
	cronHorizonDays = 5*365 + 2
	// cronMaxRuns bounds the runs looked at (a quarter of a millisecond):
	// a schedule that runs every minute shows every gap of its cadence in
	// two weeks, one that runs every 5 minutes on weekdays in nine months.
	cronMaxRuns = 20_000
)

// cronStart is the first day of the horizon (a Monday).
var cronStart = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Cadence works out how often s runs. The work is bounded by
// cronHorizonDays and cronMaxRuns.
func (s Schedule) Cadence() Cadence {
	if s.every > 0 {
		return Cadence{Runs: true, Interval: s.every, Regular: true, Span: 100 * s.every}
	}
	// The minutes of a day at which s runs (the same on every day it runs).
	var times []int
	for h := range 24 {
		if s.hour&(1<<h) == 0 {
			continue
		}
		for m := range 60 {
			if s.minute&(1<<m) != 0 {
				times = append(times, h*60+m)
			}
		}
	}
	if len(times) == 0 {
		return Cadence{}
	}
	var ring [101]int // the last 101 runs, in minutes since cronStart
	n := 0
	out := Cadence{Regular: true}
	minGap, minSpan := -1, -1
	gap := -1
	for d := 0; d < cronHorizonDays && n < cronMaxRuns; d++ {
		day := cronStart.AddDate(0, 0, d)
		if !s.matchesDay(day) {
			continue
		}
		for _, t := range times {
			at := d*24*60 + t
			if n > 0 {
				g := at - ring[(n-1)%len(ring)]
				if gap >= 0 && g != gap {
					out.Regular = false
				}
				gap = g
				if minGap < 0 || g < minGap {
					minGap = g
				}
			}
			if n >= 100 {
				if span := at - ring[(n-100)%len(ring)]; minSpan < 0 || span < minSpan {
					minSpan = span
				}
			}
			ring[n%len(ring)] = at
			n++
		}
	}
	if n == 0 {
		return Cadence{}
	}
	out.Runs = true
	if minGap < 0 {
		return Cadence{Runs: true} // one run in five years
	}
	out.Interval = time.Duration(minGap) * time.Minute
	if minSpan >= 0 {
		out.Span = time.Duration(minSpan) * time.Minute
	}
	return out
}

// matchesDay reports whether s runs on day: the month matches, and the
// day of month and weekday as cron combines them.
func (s Schedule) matchesDay(day time.Time) bool {
	if s.month&(1<<uint(day.Month())) == 0 {
		return false
	}
	dom := s.dom&(1<<uint(day.Day())) != 0
	dow := s.dow&(1<<uint(day.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}
