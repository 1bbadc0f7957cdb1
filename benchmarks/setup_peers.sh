#!/usr/bin/env bash
# Install the peers we benchmark against into benchmarks/.peers/ (gitignored). Idempotent.
#
#   agent-browser  npm package in benchmarks/.peers/agent-browser (native CLI called directly)
#   browser-use    PyPI package in its own venv benchmarks/.peers/bu-venv, so its many
#                  dependencies cannot disturb ours
#   Playwright MCP npm package @playwright/mcp in benchmarks/.peers/playwright-mcp (bench_mcp.py;
#                  run on /usr/bin/chromium with --executable-path, never its own browser)
#   Playwright     already in the project venv (extra "peers"); checked, never installed here
#   matplotlib     into the project venv, bench-only (the chart of benchmarks/tasks/run.py)
#
# Nothing here downloads a browser: every peer is pointed at /usr/bin/chromium.
# Override versions with AGENT_BROWSER_VERSION / BROWSER_USE_VERSION / PLAYWRIGHT_MCP_VERSION (default: latest).
# Exits 0 even if a peer fails to install (its benches then skip) unless STRICT=1.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PEERS="$HERE/.peers"
AB_DIR="$PEERS/agent-browser"
BU_VENV="$PEERS/bu-venv"
PYTHON="${PYTHON:-python3}"
# a link that leads nowhere (e.g. one made to point at itself) would make every step below fail
if [ -L "$PEERS" ] && ! [ -d "$PEERS" ]; then
    echo "setup_peers: $PEERS was a link to nothing ($(readlink "$PEERS")); replaced by a directory" >&2
    rm "$PEERS"
fi
mkdir -p "$PEERS"

status=0

# -- agent-browser ------------------------------------------------------------------------
AB_BIN="$AB_DIR/node_modules/agent-browser/bin/agent-browser-linux-x64"
if [ -x "$AB_BIN" ] && [ -z "${FORCE:-}" ]; then
    echo "agent-browser: already installed ($AB_BIN)"
elif command -v npm >/dev/null 2>&1; then
    mkdir -p "$AB_DIR/home" "$AB_DIR/tmp" "$AB_DIR/sock"
    [ -f "$AB_DIR/package.json" ] || echo '{"name":"ego-bench-peers","private":true}' > "$AB_DIR/package.json"
    # --ignore-scripts: its postinstall fetches binaries from GitHub (unreachable here, and the
    # npm tarball already ships them); we only need the executable bit on ours.
    # --prefer-online: a stale metadata cache once resolved "agent-browser" to 0.27.0.
    ( cd "$AB_DIR" && HOME="$AB_DIR/home" npm install --no-audit --no-fund --ignore-scripts --prefer-online \
        "agent-browser@${AGENT_BROWSER_VERSION:-latest}" ) || status=1
    chmod +x "$AB_BIN" 2>/dev/null || true
    [ -x "$AB_BIN" ] && echo "agent-browser: installed" || { echo "agent-browser: native binary missing" >&2; status=1; }
else
    echo "agent-browser: skipped (npm not found; Debian: apt-get install -y nodejs npm)" >&2
fi

# -- Playwright MCP (bench_mcp.py: the same tasks over MCP, ego-browser mcp against it) ------
PWMCP_DIR="$PEERS/playwright-mcp"
PWMCP_CLI="$PWMCP_DIR/node_modules/@playwright/mcp/cli.js"
if [ -f "$PWMCP_CLI" ] && [ -z "${FORCE:-}" ]; then
    echo "playwright-mcp: already installed ($PWMCP_CLI)"
elif command -v npm >/dev/null 2>&1; then
    mkdir -p "$PWMCP_DIR/home"
    [ -f "$PWMCP_DIR/package.json" ] || echo '{"name":"ego-bench-pwmcp","private":true}' > "$PWMCP_DIR/package.json"
    # --ignore-scripts: nothing may fetch a browser; it runs on /usr/bin/chromium (--executable-path)
    ( cd "$PWMCP_DIR" && HOME="$PWMCP_DIR/home" npm install --no-audit --no-fund --ignore-scripts --prefer-online \
        "@playwright/mcp@${PLAYWRIGHT_MCP_VERSION:-latest}" ) || status=1
    [ -f "$PWMCP_CLI" ] && echo "playwright-mcp: installed" || { echo "playwright-mcp: cli.js missing" >&2; status=1; }
else
    echo "playwright-mcp: skipped (npm not found; Debian: apt-get install -y nodejs npm)" >&2
fi

# -- browser-use --------------------------------------------------------------------------
if [ -x "$BU_VENV/bin/python" ] && "$BU_VENV/bin/python" -c "import browser_use" 2>/dev/null && [ -z "${FORCE:-}" ]; then
    echo "browser-use: already installed ($BU_VENV)"
else
    "$PYTHON" -m venv "$BU_VENV" || status=1
    # (the grep drops pip's noise about this machine's unused local index paths)
    log="$PEERS/bu-pip.log"
    "$BU_VENV/bin/python" -m pip install -q "browser-use${BROWSER_USE_VERSION:+==$BROWSER_USE_VERSION}" >"$log" 2>&1 || status=1
    grep -v "is ignored: it is neither a file nor a directory" "$log" || true
    "$BU_VENV/bin/python" -c "import browser_use" && echo "browser-use: installed" || status=1
fi

# -- real-world page corpus (bench_corpus): documentation packages from Debian ------------
# HTML docs made by five different generators; apt by package name, nothing else fetched.
CORPUS_PKGS="python3-doc git-doc sqlite3-doc"
need=""
for p in $CORPUS_PKGS; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -z "$need" ]; then
    echo "corpus: documentation packages present"
elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null; }; } \
      && echo "corpus: installed$need" || { echo "corpus: could not install$need" >&2; status=1; }
else
    echo "corpus: skipped (as root: apt-get install -y$need)" >&2
fi

# -- Playwright (project venv) ------------------------------------------------------------
OUR_PY="${OUR_PY:-$HERE/../.venv/bin/python}"
if "$OUR_PY" -c "import playwright.async_api" 2>/dev/null; then
    echo "playwright: present in the project venv (uses /usr/bin/chromium; no browser download)"
else
    echo "playwright: missing; install the project with its peers extra: pip install -e '.[peers]'" >&2
fi

# -- matplotlib (project venv, bench-only: the task benchmark's chart) ---------------------
if "$OUR_PY" -c "import matplotlib" 2>/dev/null; then
    echo "matplotlib: present in the project venv"
else
    "$OUR_PY" -m pip install -q matplotlib 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true
    "$OUR_PY" -c "import matplotlib" 2>/dev/null && echo "matplotlib: installed (chart of bench-tasks)" \
        || echo "matplotlib: missing; bench-tasks writes its tables without the chart" >&2
fi

if [ "$status" != 0 ]; then
    echo "setup_peers: some peers failed to install; their benchmarks will report 'skipped'" >&2
    # peers are optional for `make bench`; STRICT=1 makes a failed install fail the script
    [ -n "${STRICT:-}" ] && exit "$status"
fi
exit 0
