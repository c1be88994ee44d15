#!/usr/bin/env bash
# Fake `python3` for `python3 -m build --wheel --outdir dist blackbox_server/`: writes the wheel named after the
# version in blackbox_server/pyproject.toml. FAKE_NO_BUILD=1 answers like Python without the `build` package.
set -euo pipefail
if [[ "${FAKE_NO_BUILD:-0}" == 1 ]]; then
  echo "/usr/bin/python3: No module named build" >&2
  exit 1
fi
[[ "$1 $2 $3" == "-m build --wheel" ]] || { echo "unexpected args: $*" >&2; exit 2; }
outdir="$5"; src="$6"
version="$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$src/pyproject.toml" | head -1)"
mkdir -p "$outdir"
echo "* Building wheel..."
echo "fake wheel $version" > "$outdir/dressage_blackbox_server-$version-py3-none-any.whl"
echo "Successfully built dressage_blackbox_server-$version-py3-none-any.whl"
