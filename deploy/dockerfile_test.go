package deploy

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// distrolessNonroot is the uid and gid of the nonroot user of the
// distroless images.
const distrolessNonroot = 65532

// instruction is one Dockerfile instruction: its keyword (upper case) and
// its arguments, continuation lines joined.
type instruction struct{ op, arg string }

// finalStage returns the instructions of the Dockerfile's last stage,
// starting with its FROM.
func finalStage(t *testing.T) []instruction {
	t.Helper()
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var final []instruction
	var cont string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if cont == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if l, ok := strings.CutSuffix(line, "\\"); ok {
			cont += l + " "
			continue
		}
		line, cont = cont+line, ""
		op, arg, _ := strings.Cut(line, " ")
		op = strings.ToUpper(op)
		if op == "FROM" {
			final = nil
		}
		final = append(final, instruction{op, strings.TrimSpace(arg)})
	}
	if len(final) == 0 {
		t.Fatal("the Dockerfile has no FROM")
	}
	return final
}

// imageUser returns the uid the Dockerfile's final stage runs as, failing
// on root, on no USER, or on a user the test cannot map to a uid.
func imageUser(t *testing.T) int {
	t.Helper()
	user := ""
	for _, in := range finalStage(t) {
		if in.op == "USER" {
			user = in.arg
		}
	}
	u, g, _ := strings.Cut(user, ":")
	uid := -1
	switch {
	case u == "nonroot":
		uid = distrolessNonroot
	case regexp.MustCompile(`^[0-9]+$`).MatchString(u):
		uid, _ = strconv.Atoi(u)
	}
	if uid <= 0 {
		t.Fatalf("the image runs as %q: want a non-root numeric uid or distroless's nonroot", user)
	}
	if g == "0" || g == "root" {
		t.Errorf("the image runs in group %q (root)", g)
	}
	return uid
}

// TestDockerfile: the image the chart and the Compose stack run is
// distroless static with the nonroot user and no shell: its final stage
// holds the binary only, runs nothing at build time, runs as a non-root
// user, and starts the exporter in exec form (a shell form needs
// /bin/sh, which the image does not have).
func TestDockerfile(t *testing.T) {
	final := finalStage(t)
	if from := final[0].arg; !regexp.MustCompile(`^gcr\.io/distroless/static(-debian[0-9]+)?:nonroot(@sha256:[0-9a-f]{64})?$`).MatchString(from) {
		t.Errorf("the final stage is FROM %s: want gcr.io/distroless/static[-debianN]:nonroot (no shell, no package manager)", from)
	}
	entrypoint := false
	for _, in := range final[1:] {
		switch in.op {
		case "COPY":
			if in.arg != "--from=build /dynamodb_exporter /dynamodb_exporter" {
				t.Errorf("the final stage copies more than the binary: COPY %s", in.arg)
			}
		case "ENTRYPOINT", "CMD":
			var argv []string
			if err := json.Unmarshal([]byte(in.arg), &argv); err != nil || len(argv) == 0 {
				t.Errorf("%s %s is not in exec form (a JSON array): the image has no shell to run it", in.op, in.arg)
				continue
			}
			if in.op == "ENTRYPOINT" {
				entrypoint = true
				if argv[0] != "/dynamodb_exporter" {
					t.Errorf("ENTRYPOINT %s, want the binary", in.arg)
				}
			}
		case "HEALTHCHECK":
			if in.arg != "NONE" {
				t.Errorf("HEALTHCHECK %s: the image has no shell nor client to run a check (probe /metrics from outside)", in.arg)
			}
		case "RUN", "ADD", "SHELL", "ONBUILD":
			t.Errorf("the final stage has %s %s: it must only copy the binary (the image has no shell)", in.op, in.arg)
		}
	}
	if !entrypoint {
		t.Errorf("the final stage has no ENTRYPOINT")
	}
	imageUser(t)
}
