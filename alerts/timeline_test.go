package alerts

import (
	"testing"
	"time"
)

// TestParsePromtoolFailures reads promtool's failure report as it prints it.
func TestParsePromtoolFailures(t *testing.T) {
	out := `Processing test file: replay_test.yml
  FAILED:
    expr: "ALERTS{alertstate=\"firing\"}", time: 2h20m,
        exp: nil
        got: {__name__="ALERTS", account="demo", alertname="A", alertstate="firing", kind="read", table="t1"} 1E+00, {__name__="ALERTS", alertname="B", alertstate="firing", table="t,2 \"x\""} 1E+00

    expr: "ALERTS{alertstate=\"firing\"}", time: 1d1m,
        exp: nil
        got: {__name__="ALERTS", account="demo", alertname="A", alertstate="firing", kind="read", table="t1"} 1E+00
`
	got, err := parsePromtoolFailures(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].At != 2*time.Hour+20*time.Minute || got[0].Labels["kind"] != "read" ||
		got[1].Labels["table"] != `t,2 "x"` || got[2].At != 24*time.Hour+time.Minute {
		t.Fatalf("parsed %+v", got)
	}
	tl := buildTimeline("s", 25*time.Hour, append(got, sample{At: 2*time.Hour + 21*time.Minute, Labels: got[0].Labels}))
	// Sorted by table: "t,2 ..." before "t1"; A's two minutes are one episode.
	if len(tl.Firings) != 2 || tl.Firings[1].Alert != "A" || len(tl.Firings[1].Episodes) != 2 || tl.Firings[1].Episodes[0] != (Episode{140 * time.Minute, 141 * time.Minute}) {
		t.Fatalf("timeline %+v", tl.Firings)
	}
}
