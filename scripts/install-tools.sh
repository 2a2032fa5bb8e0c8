#!/usr/bin/env bash
# install-tools.sh — install the external programs the tests use into ./.tools/.
#
# Usage: scripts/install-tools.sh [tool...]
#
# Tools: promtool prometheus alertmanager amtool helm dynamodb-local dynalite
# chromium (default: all).
# Each tool is pinned below and skipped when the pinned version is already
# present, so running this again is cheap. Installs go to $DYNAMODB_EXPORTER_TOOLS
# when that is set, else to <repo root>/.tools:
#
#   bin/promtool, bin/prometheus, bin/helm           go install from the Go module proxy
#   bin/alertmanager, bin/amtool                     go build from a copy of the module
#                                                    (see install_alertmanager)
#   dynamodb-local/DynamoDBLocal.jar (+ _lib/)       from the npm package amplify-dynamodb-simulator
#   node/node_modules/.bin/dynalite                  npm install dynalite
#   chromium (system-wide)                           apt-get install chromium (Debian's
#                                                    package; needs root or passwordless sudo,
#                                                    else a warning and the HTML rendering
#                                                    tests skip, or fail with CI=true)
#
# Needs: go (Prometheus tools), npm + tar + sha256sum (DynamoDB Local, dynalite).
# Running DynamoDB Local also needs java; running dynalite needs node.
set -euo pipefail

# --- Pinned versions ---------------------------------------------------------
# Go module v0.3xx.y of github.com/prometheus/prometheus is Prometheus 3.xx.y.
# Its go.mod has no replace directives, so `go install pkg@version` works.
# The tests use static scrape configs only, so Prometheus and promtool are
# built without the service-discovery plugins (Prometheus's own build tag
# remove_all_sd keeps file and HTTP discovery): the cloud SDKs they pull in
# were most of the build's time.
PROMETHEUS_MODULE=github.com/prometheus/prometheus
PROMETHEUS_VERSION=v0.316.0
PROMETHEUS_TAGS=remove_all_sd
# Alertmanager v0.32.0 and later embed a web UI (ui/app/dist) that is built by
# npm and is not in the module zip, so `go install` fails with "pattern
# app/dist: no matching files found". install_alertmanager builds it from a
# copy of the module with placeholder UI files instead (the API, which the
# tests use, is unaffected). amtool is built from the same module and version,
# so it speaks the configuration of that release.
ALERTMANAGER_MODULE=github.com/prometheus/alertmanager
ALERTMANAGER_VERSION=v0.35.0
# amplify-dynamodb-simulator 2.9.30 ships DynamoDB Local 1.25.1. npm checks the
# tarball's integrity; we also pin the jar itself.
DYNAMODB_SIMULATOR_VERSION=2.9.30
DYNAMODB_LOCAL_JAR_SHA256=454305e9bc3e6ebcca5b62569869e31563b8d7e346474e94557b2600702146c7
DYNALITE_VERSION=4.0.0
# Helm, for the chart's tests (helm lint, helm template of deploy/helm/).
HELM_MODULE=helm.sh/helm/v3
HELM_VERSION=v3.22.0

ALL_TOOLS=(promtool prometheus alertmanager amtool helm dynamodb-local dynalite chromium)

# --- Helpers -----------------------------------------------------------------
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS_DIR=${DYNAMODB_EXPORTER_TOOLS:-$ROOT/.tools}
LOG_DIR=$TOOLS_DIR/logs

# Scratch directories made under $TOOLS_DIR; removed on exit, even on failure.
TMP_DIRS=()
cleanup() {
	((${#TMP_DIRS[@]})) && rm -rf "${TMP_DIRS[@]}"
	return 0
}
trap cleanup EXIT

# make_tmp NAME — create a scratch directory next to the final install location
# (same file system, so mv is atomic) and print its path.
make_tmp() {
	mktemp -d "$TOOLS_DIR/.tmp.$1.XXXXXX"
}

die() {
	printf 'install-tools: error: %s\n' "$*" >&2
	exit 1
}

need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 is required to install $2 but is not on PATH"
}

# report TOOL STATUS PATH START_SECONDS — the one summary line per tool.
report() {
	printf '%-15s %-16s %s (%ss)\n' "$1:" "$2" "$3" "$((SECONDS - $4))"
}

# run_logged TOOL CMD... — run CMD with its output in $LOG_DIR/TOOL.log; show
# the log's tail and fail when CMD fails.
run_logged() {
	local tool=$1 log=$LOG_DIR/$1.log
	shift
	mkdir -p "$LOG_DIR"
	if ! "$@" >"$log" 2>&1; then
		printf 'install-tools: %s failed; last lines of %s:\n' "$tool" "$log" >&2
		tail -n 40 "$log" >&2
		exit 1
	fi
}

# go_binary_version BINARY MODULE — print the version of MODULE that BINARY was
# built from (empty when the binary is missing or was built from something else).
go_binary_version() {
	[[ -x $1 ]] || return 0
	go version -m "$1" 2>/dev/null | awk -v mod="$2" '$1 == "mod" && $2 == mod { print $3 }'
}

# install_go_tool TOOL MODULE VERSION PACKAGE [TAGS] — go install
# PACKAGE@VERSION into bin/, with build tags TAGS.
install_go_tool() {
	local tool=$1 module=$2 version=$3 pkg=$4 tags=${5:-} start=$SECONDS
	local bin=$TOOLS_DIR/bin/$tool
	need go "$tool"
	if [[ $(go_binary_version "$bin" "$module") == "$version" ]]; then
		report "$tool" "already present" "$bin" "$start"
		return
	fi
	printf 'install-tools: building %s from %s@%s (a few minutes on a cold Go cache)...\n' \
		"$tool" "$pkg" "$version" >&2
	# Build into a scratch GOBIN and move the result, so an interrupted build
	# never leaves a half-written binary at the final path.
	local tmp
	tmp=$(make_tmp "$tool")
	TMP_DIRS+=("$tmp")
	# `go install pkg@version` builds with the tool's own go.mod, not ours.
	# -s -w: no symbol table or DWARF, which the tests never read and
	# whose writing is a good part of linking a binary this large.
	run_logged "$tool" env GOBIN="$tmp" GOWORK=off go install -tags "$tags" -ldflags "-s -w" "$pkg@$version"
	mkdir -p "$TOOLS_DIR/bin"
	mv -f "$tmp/$tool" "$bin"
	report "$tool" "installed" "$bin" "$start"
}

# install_alertmanager — build bin/alertmanager and bin/amtool together from
# one copy of the Alertmanager module at ALERTMANAGER_VERSION. `go install`
# cannot build v0.32.0 and later: ui/web.go embeds app/dist, the web UI that
# the release process builds with npm and that the module zip leaves out. We
# download the module (checked against go.sum's checksum database as usual),
# copy it to a writable scratch directory, put a placeholder page where the
# UI would be, and `go build` both commands inside it with the module's own
# go.mod and go.sum. The binaries record the module version (-ldflags sets
# the version that `alertmanager --version` prints); a rerun with both at the
# pinned version does nothing.
ALERTMANAGER_DONE=false
install_alertmanager() {
	if $ALERTMANAGER_DONE; then return; fi
	ALERTMANAGER_DONE=true
	local start=$SECONDS module=$ALERTMANAGER_MODULE version=$ALERTMANAGER_VERSION
	local am=$TOOLS_DIR/bin/alertmanager amt=$TOOLS_DIR/bin/amtool
	if [[ $(alertmanager_version "$am") == "$version" && $(alertmanager_version "$amt") == "$version" ]]; then
		report alertmanager "already present" "$am" "$start"
		report amtool "already present" "$amt" "$start"
		return
	fi
	need go alertmanager
	printf 'install-tools: building alertmanager and amtool from %s@%s (about 2 CPU-minutes on a cold Go cache)...\n' \
		"$module" "$version" >&2
	local tmp src
	tmp=$(make_tmp alertmanager)
	TMP_DIRS+=("$tmp")
	src=$(GOWORK=off GOFLAGS= go mod download -json "$module@$version" |
		awk -F'"' '$2 == "Dir" { print $4 }')
	[[ -n $src && -f $src/go.mod ]] || die "go mod download $module@$version gave no module directory"
	mkdir -p "$tmp/src"
	cp -R "$src/." "$tmp/src/"
	chmod -R u+w "$tmp/src" # the module cache is read-only
	local dist=$tmp/src/ui/app/dist page
	[[ ! -e $dist ]] || die "$module@$version now ships ui/app/dist: use go install again"
	for page in elm mantine; do
		mkdir -p "$dist/$page"
		printf '<!DOCTYPE html><title>Alertmanager</title><p>Web UI not built (install-tools.sh placeholder); the API is at /api/v2/.\n' \
			>"$dist/$page/index.html"
	done
	local ldflags="-s -w -X github.com/prometheus/common/version.Version=${version#v}"
	ldflags+=" -X github.com/prometheus/common/version.Revision=module-$version"
	ldflags+=" -X github.com/prometheus/common/version.Branch=module"
	# The module's own go.mod and go.sum, read-only: nothing is resolved anew.
	run_logged alertmanager env GOWORK=off GOFLAGS= \
		go -C "$tmp/src" build -trimpath -ldflags "$ldflags" -o "$tmp/bin/" ./cmd/alertmanager ./cmd/amtool
	mkdir -p "$TOOLS_DIR/bin"
	mv -f "$tmp/bin/alertmanager" "$am"
	mv -f "$tmp/bin/amtool" "$amt"
	report alertmanager "installed" "$am" "$start"
	report amtool "installed" "$amt" "$start"
}

# alertmanager_version BINARY — the Alertmanager version BINARY says it is
# (empty when it is missing, is not built from the Alertmanager module, or has
# no version stamped in, as `go install` builds have not).
alertmanager_version() {
	[[ -x $1 ]] || return 0
	go version -m "$1" 2>/dev/null | grep -E "^[[:space:]]+mod[[:space:]]+$ALERTMANAGER_MODULE[[:space:]]" >/dev/null ||
		return 0
	"$1" --version 2>&1 | awk 'NR == 1 && $2 == "version" && $3 ~ /^[0-9]/ { print "v" $3 }'
}

install_dynamodb_local() {
	local tool=dynamodb-local start=$SECONDS
	local dest=$TOOLS_DIR/dynamodb-local
	local stamp="amplify-dynamodb-simulator@$DYNAMODB_SIMULATOR_VERSION $DYNAMODB_LOCAL_JAR_SHA256"
	if [[ -f $dest/DynamoDBLocal.jar && -f $dest/.installed && $(<"$dest/.installed") == "$stamp" ]]; then
		report "$tool" "already present" "$dest/DynamoDBLocal.jar" "$start"
		return
	fi
	need npm "$tool"
	need tar "$tool"
	need sha256sum "$tool"
	printf 'install-tools: fetching DynamoDB Local from npm amplify-dynamodb-simulator@%s...\n' \
		"$DYNAMODB_SIMULATOR_VERSION" >&2
	local tmp
	tmp=$(make_tmp "$tool")
	TMP_DIRS+=("$tmp")
	# npm pack downloads the tarball only (no dependencies, no install scripts).
	run_logged "$tool" npm pack --silent --pack-destination "$tmp" \
		"amplify-dynamodb-simulator@$DYNAMODB_SIMULATOR_VERSION"
	tar -xzf "$tmp"/amplify-dynamodb-simulator-*.tgz -C "$tmp" package/emulator
	local jar=$tmp/package/emulator/DynamoDBLocal.jar
	[[ -f $jar && -d $tmp/package/emulator/DynamoDBLocal_lib ]] ||
		die "the npm package no longer has emulator/DynamoDBLocal.jar and DynamoDBLocal_lib/"
	local sum
	sum=$(sha256sum "$jar" | awk '{ print $1 }')
	[[ $sum == "$DYNAMODB_LOCAL_JAR_SHA256" ]] ||
		die "DynamoDBLocal.jar has sha256 $sum, expected $DYNAMODB_LOCAL_JAR_SHA256"
	printf '%s\n' "$stamp" >"$tmp/package/emulator/.installed"
	rm -rf "$dest"
	mv "$tmp/package/emulator" "$dest"
	report "$tool" "installed" "$dest/DynamoDBLocal.jar" "$start"
}

install_dynalite() {
	local tool=dynalite start=$SECONDS
	local prefix=$TOOLS_DIR/node
	local bin=$prefix/node_modules/.bin/dynalite
	local pkg_json=$prefix/node_modules/dynalite/package.json
	if [[ -x $bin && -f $pkg_json ]] &&
		grep -Eq "\"version\": *\"$DYNALITE_VERSION\"" "$pkg_json"; then
		report "$tool" "already present" "$bin" "$start"
		return
	fi
	need npm "$tool"
	printf 'install-tools: installing dynalite@%s with npm...\n' "$DYNALITE_VERSION" >&2
	mkdir -p "$prefix"
	run_logged "$tool" npm install --prefix "$prefix" --no-audit --no-fund --no-save \
		"dynalite@$DYNALITE_VERSION"
	[[ -x $bin ]] || die "npm finished but $bin is missing"
	report "$tool" "installed" "$bin" "$start"
}

# install_chromium — headless Chromium for the tests that render the HTML
# reports, from the distribution (a browser is not a Go or npm package).
install_chromium() {
	local tool=chromium start=$SECONDS name
	for name in chromium chromium-browser google-chrome google-chrome-stable; do
		if command -v "$name" >/dev/null 2>&1; then
			report "$tool" "already present" "$(command -v "$name")" "$start"
			return
		fi
	done
	local -a as_root=()
	if ((EUID != 0)); then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			as_root=(sudo -n)
		else
			printf 'install-tools: warning: chromium is missing and installing it needs root: run apt-get install chromium (the HTML rendering tests skip without it, and fail with CI=true)\n' >&2
			report "$tool" "missing" "-" "$start"
			return
		fi
	fi
	command -v apt-get >/dev/null 2>&1 || die "chromium is missing and apt-get is not available: install Chromium with your package manager"
	printf 'install-tools: installing chromium with apt-get...\n' >&2
	run_logged "$tool" "${as_root[@]}" apt-get update
	run_logged "$tool" "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
	command -v chromium >/dev/null 2>&1 || die "apt-get finished but chromium is not on PATH"
	report "$tool" "installed" "$(command -v chromium)" "$start"
}

install_tool() {
	case $1 in
	promtool) install_go_tool promtool "$PROMETHEUS_MODULE" "$PROMETHEUS_VERSION" "$PROMETHEUS_MODULE/cmd/promtool" "$PROMETHEUS_TAGS" ;;
	prometheus) install_go_tool prometheus "$PROMETHEUS_MODULE" "$PROMETHEUS_VERSION" "$PROMETHEUS_MODULE/cmd/prometheus" "$PROMETHEUS_TAGS" ;;
	alertmanager | amtool) install_alertmanager ;;
	helm) install_go_tool helm "$HELM_MODULE" "$HELM_VERSION" "$HELM_MODULE/cmd/helm" ;;
	dynamodb-local) install_dynamodb_local ;;
	dynalite) install_dynalite ;;
	chromium) install_chromium ;;
	*) die "unknown tool '$1' (known: ${ALL_TOOLS[*]})" ;;
	esac
}

# --- Main --------------------------------------------------------------------
case ${1:-} in
-h | --help)
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
	exit 0
	;;
esac

tools=("$@")
((${#tools[@]})) || tools=("${ALL_TOOLS[@]}")
for tool in "${tools[@]}"; do # check all names before installing anything
	[[ " ${ALL_TOOLS[*]} " == *" $tool "* ]] || die "unknown tool '$tool' (known: ${ALL_TOOLS[*]})"
done

mkdir -p "$TOOLS_DIR"
# The downloads (npm, apt) and the Go builds overlap: each group of tools
# installs in a background job of its own, and the script fails when any
# job failed (each job prints its own error and the tail of its log).
# promtool and prometheus share one job, so the second build reuses the
# first's compiled packages instead of compiling them at the same time.
declare -A group_tools=()
order=()
for tool in "${tools[@]}"; do
	case $tool in
	promtool | prometheus) group=prometheus ;;
	alertmanager | amtool) group=alertmanager ;;
	*) group=$tool ;;
	esac
	[[ -v "group_tools[$group]" ]] || order+=("$group")
	group_tools[$group]+="$tool "
done
pids=()
for group in "${order[@]}"; do
	(
		trap cleanup EXIT # a subshell does not inherit the trap
		for tool in ${group_tools[$group]}; do
			install_tool "$tool"
		done
	) &
	pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
	wait "$pid" || failed=1
done
((failed == 0)) || die "some tools could not be installed (see the messages above)"
