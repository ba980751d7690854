package cron

import (
	"testing"
	"time"
)

func TestCronCadence(t *testing.T) {
	const day = 24 * time.Hour
	cases := []struct {
		schedule string
		interval time.Duration
		regular  bool
		span     time.Duration // 0: fewer than 101 runs in the horizon
	}{
		{"*/5 * * * *", 5 * time.Minute, true, 500 * time.Minute},
		{"* * * * *", time.Minute, true, 100 * time.Minute},
		{"? * * * *", time.Minute, true, 100 * time.Minute},
		{"0 * * * *", time.Hour, true, 100 * time.Hour},
		{"@hourly", time.Hour, true, 100 * time.Hour},
		{"@daily", day, true, 100 * day},
		{"@midnight", day, true, 100 * day},
		{"00 01 * * *", day, true, 100 * day},
		{"@every 90s", 90 * time.Second, true, 150 * time.Minute},
		{"@every 500ms", time.Second, true, 100 * time.Second},
		{"@every 2h30m", 150 * time.Minute, true, 250 * time.Hour},
		{"*/10 * * * *", 10 * time.Minute, true, 1000 * time.Minute},
		{"CRON_TZ=Europe/Berlin */10 * * * *", 10 * time.Minute, true, 1000 * time.Minute},
		{"TZ=UTC 0 * * * *", time.Hour, true, 100 * time.Hour},
		// Twice an hour, but only in one hour a day: 100 runs take 50 days.
		{"0,30 9 * * *", 30 * time.Minute, false, 50 * day},
		// 0, 7, …, 56, then 0 again four minutes later.
		{"*/7 * * * *", 4 * time.Minute, false, 11*time.Hour + 4*time.Minute},
		{"50-59/1 * * * *", time.Minute, false, 10 * time.Hour},
		{"1-49/1 * * * *", time.Minute, false, 2*time.Hour + 2*time.Minute},
		{"5/15 * * * *", 15 * time.Minute, true, 1500 * time.Minute},
		// Business hours on weekdays: dense within a day.
		{"*/5 9-17 * * 1-5", 5 * time.Minute, false, 8*time.Hour + 20*time.Minute},
		{"0 0 * * MON-FRI", day, false, 140 * day},
		{"0 0 * * sun", 7 * day, true, 700 * day},
		// Day of month and weekday both restricted: either matches.
		{"0 0 1-31 * 1", day, true, 100 * day},
		// A star with step 1 is still a star: both must match (Mondays).
		{"0 0 */1 * 1", 7 * day, true, 700 * day},
		{"@weekly", 7 * day, true, 700 * day},
		{"@monthly", 28 * day, false, 0},
		{"0 0 1 jan *", 365 * day, false, 0},
	}
	for _, c := range cases {
		s, ok := Parse(c.schedule)
		if !ok {
			t.Errorf("%q: not parsed", c.schedule)
			continue
		}
		got := s.Cadence()
		if !got.Runs || got.Interval != c.interval || got.Regular != c.regular || got.Span != c.span {
			t.Errorf("%q: got %+v, want interval %v regular %v span %v", c.schedule, got, c.interval, c.regular, c.span)
		}
	}
}

func TestCronNeverRuns(t *testing.T) {
	for _, spec := range []string{"0 0 30 2 *", "0 0 31 4 *"} {
		s, ok := Parse(spec)
		if !ok {
			t.Fatalf("%q: not parsed", spec)
		}
		if c := s.Cadence(); c.Runs {
			t.Errorf("%q: runs %+v", spec, c)
		}
	}
	// February 29th runs twice in the horizon (2024, 2028), four years apart.
	s, _ := Parse("0 0 29 2 *")
	if c := s.Cadence(); !c.Runs || c.Interval != 1461*24*time.Hour || c.Span != 0 {
		t.Errorf("Feb 29: %+v", c)
	}
}

func TestCronInvalid(t *testing.T) {
	for _, spec := range []string{
		"", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *", "* * * 13 *",
		"* * * * 7", // robfig/cron (and so the API server) reads weekdays 0-6
		"*/0 * * * *", "5-1 * * * *", "*-5 * * * *", "a * * * *", "1-2-3 * * * *", "1,,2 * * * *",
		"@reboot", "@every", "@every 0s", "@every -5m", "@every soon", "@Daily", "H * * * *", "${SCHEDULE}",
		"CRON_TZ=UTC", "* * * JANUARY *",
	} {
		if s, ok := Parse(spec); ok {
			t.Errorf("%q parsed: %+v", spec, s)
		}
	}
	long := "0"
	for len(long) <= MaxLen {
		long += ",0"
	}
	if _, ok := Parse(long + " * * * *"); ok {
		t.Error("an over-long schedule parsed")
	}
}

// BenchmarkCadenceDensest measures the densest schedule's cadence, the
// most work Cadence does: it stops at cronMaxRuns runs or cronHorizonDays
// days, whichever comes first (a bound by count, not by a clock).
func BenchmarkCadenceDensest(b *testing.B) {
	s, ok := Parse("* * * * *")
	if !ok {
		b.Fatal("* * * * * does not parse")
	}
	for b.Loop() {
		s.Cadence()
	}
}

// FuzzParseCron checks that any schedule text parses or not without
// panicking, and that a parsed schedule's cadence is consistent.
func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "@every 1h", "CRON_TZ=UTC 0 9 * * 1-5", "0 0 29 2 *", "5/15 1-3 ? JAN-MAR sun,sat"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, ok := Parse(spec)
		if !ok {
			return
		}
		c := s.Cadence()
		if c.Span > 0 && (c.Interval <= 0 || c.Span < 100*c.Interval) {
			t.Errorf("%q: inconsistent cadence %+v", spec, c)
		}
	})
}
