#!/usr/bin/env bash
# mypy over the installed namespace: the repo-root folders mapped to hlorun.* (as the
# package-dir mapping of pyproject.toml installs them), in a throwaway tree of links.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/hlorun"
ln -s "$root/hlorun/__init__.py" "$tree/hlorun/__init__.py"
for pkg in parser shape_inference engine; do ln -s "$root/$pkg" "$tree/hlorun/$pkg"; done
cd "$tree"
mypy --config-file "$root/pyproject.toml" -p hlorun
