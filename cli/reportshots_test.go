package cli

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/png"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

var writeScreenshots = flag.Bool("screenshots", false, "copy the Chromium screenshots of the HTML report, TTL audit and landing page to docs/")

// consoleLine is a message of the page's console in Chromium's log.
var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// shoot renders url in headless Chromium to a PNG and checks the page the
// way a person sees it: it loaded (a screenshot was written), its console
// stayed silent (the pages have no script: any message is an error, a
// blocked or failed resource), and the screenshot is not blank. With
// -screenshots the PNG is copied to docs/<name>.png.
func shoot(t *testing.T, url, name string, height int) {
	t.Helper()
	chromium := testtools.Chromium(t)
	dir := t.TempDir()
	out := filepath.Join(dir, name+".png")
	res := testtools.RunCommand(t, "", chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--window-size=1280,"+strconv.Itoa(height), "--screenshot="+out, url)
	if res.ExitCode != 0 {
		t.Fatalf("chromium failed (%d):\n%s", res.ExitCode, res.Stderr)
	}
	if msgs := consoleLine.FindAllString(res.Stderr, -1); len(msgs) > 0 {
		t.Errorf("%s: console messages while loading:\n%s", name, strings.Join(msgs, "\n"))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%s: no screenshot: %v\n%s", name, err, res.Stderr)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", name, err)
	}
	if inked, colors := ink(img); inked < 0.02 || colors < 8 {
		t.Errorf("%s: the screenshot looks blank: %.1f%% of pixels not white, %d colours", name, 100*inked, colors)
	}
	if *writeScreenshots {
		if err := os.WriteFile(filepath.Join("..", "docs", name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ink returns the share of pixels that are not near-white and the number of
// distinct colours (capped) of an image.
func ink(img image.Image) (float64, int) {
	bounds := img.Bounds()
	seen := map[[3]uint32]bool{}
	var inked, total int
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			total++
			if r < 0xf000 || g < 0xf000 || b < 0xf000 {
				inked++
			}
			if len(seen) < 1000 {
				seen[[3]uint32{r >> 12, g >> 12, b >> 12}] = true
			}
		}
	}
	return float64(inked) / float64(max(total, 1)), len(seen)
}

// TestReportsRenderInChromium renders the HTML capacity report of the
// fixture account and the exporter's landing page in headless Chromium.
// The TTL audit's HTML is rendered by TestTTLAuditOnDynamoDBLocal.
func TestReportsRenderInChromium(t *testing.T) {
	testtools.Chromium(t)
	page := filepath.Join(t.TempDir(), "capacity-report.html")
	if err := os.WriteFile(page, []byte(reportOf(t, "", "html")), 0o644); err != nil {
		t.Fatal(err)
	}
	shoot(t, "file://"+page, "capacity-report", 1800)

	app := fixtureApp(t)
	app.Scheduler.RunOnce(context.Background())
	h, err := app.Handler("/metrics", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	if body := get(t, srv.URL+"/"); !strings.Contains(body, "<td>sessions</td>") {
		t.Fatalf("the landing page shows no fleet summary:\n%s", body)
	}
	shoot(t, srv.URL+"/", "landing-page", 900)
}
