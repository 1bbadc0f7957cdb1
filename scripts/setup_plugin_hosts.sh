#!/usr/bin/env bash
# The agent hosts' own plugin loaders and validators, for tests/integration/test_plugin_hosts.py:
# each artifact of `package-plugins` is loaded by the host it is built for. The hosts' CLIs come
# from the npm registry (pinned versions; each ships its prebuilt binary in a platform package,
# which their install scripts copy into place), into .deps/plugin-hosts/. Nothing else is
# downloaded, and once installed the tests run offline. Idempotent: does nothing when the pinned set is there.
# EGO_BROWSER_SKIP_PLUGIN_HOSTS_SETUP=1 leaves it out (those tests then skip and say so).
set -euo pipefail
cd "$(dirname "$0")/.."

DEST=.deps/plugin-hosts
PACKAGES=(
  "@anthropic-ai/claude-code@2.1.332"  # claude plugin validate
  "@openai/codex@0.171.0"              # codex plugin marketplace add / plugin add / debug prompt-input
  "@github/copilot@1.0.102"            # copilot plugin install / --plugin-dir / skill list
  "opencode-ai@1.18.33"                # opencode debug skill (runs the plugin's config hook)
  # DeepSeek Harness: its full CLI does not install (its latest release pins unpublished
  # packages), so the parts that load a bundle: the patch layer, the loader, the skill registry
  "@deepseek-ai/cordis@4.0.4" "@deepseek-ai/cordis-plugin-loader@1.0.5"
  "@deepseek-ai/cordis-plugin-include@1.0.9" "@deepseek-ai/dsh-skill@0.1.0-rc.8" "js-yaml@4.3.2"
)

say() { printf '[setup] %s\n' "$*"; }

want=$(printf '%s\n' "${PACKAGES[@]}")
if [ "$(cat "$DEST/.stamp" 2>/dev/null || true)" = "$want" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  say "npm not found: the plugin host checks will skip (apt-get install npm, then re-run make test)"
  exit 0
fi

say "installing the agent hosts' CLIs and loaders for the plugin checks (npm, about 1.3 GB, once) into $DEST"
mkdir -p .deps
tmp=$(mktemp -d .deps/.plugin-hosts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '{"name": "ego-browser-plugin-hosts", "private": true}\n' > "$tmp/package.json"
(cd "$tmp" && npm install --no-audit --no-fund --loglevel=error "${PACKAGES[@]}" >/dev/null)
printf '%s\n' "$want" > "$tmp/.stamp"
rm -rf "$DEST"
mv "$tmp" "$DEST"
trap - EXIT
say "plugin hosts ready: $(ls "$DEST/node_modules/.bin" | grep -E '^(claude|codex|copilot|opencode)$' | tr '\n' ' ')"
