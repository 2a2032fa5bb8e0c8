package deploy

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfile: the image the chart and the Compose stack run holds the
// binary only, runs as a non-root user, and starts the exporter.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var final []string // instructions of the last stage
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "FROM ") {
			final = nil
		}
		final = append(final, line)
	}
	if len(final) == 0 || !regexp.MustCompile(`^FROM \S+:\S+$`).MatchString(final[0]) {
		t.Fatalf("the final stage does not start from a tagged image: %q", final)
	}
	user := ""
	for _, in := range final[1:] {
		op, arg, _ := strings.Cut(in, " ")
		switch op {
		case "COPY":
			if arg != "--from=build /dynamodb_exporter /dynamodb_exporter" {
				t.Errorf("the final stage copies more than the binary: %s", in)
			}
		case "USER":
			user = arg
		case "ENTRYPOINT":
			if arg != `["/dynamodb_exporter"]` {
				t.Errorf("ENTRYPOINT %s, want the binary", arg)
			}
		case "RUN", "ADD":
			t.Errorf("the final stage runs or adds something: %s", in)
		}
	}
	if u, _, _ := strings.Cut(user, ":"); u == "" || u == "root" || u == "0" {
		t.Errorf("the image runs as %q, want a non-root user", user)
	}
}
