# Shared by scripts/demo and scripts/test: make .venv if missing and install the project into it.
# Re-installs only when pyproject.toml or this script changes (a stamp file records the installed version).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.11 python3 python; do
    if command -v "$c" >/dev/null 2>&1; then PY="$c"; break; fi
  done
fi
if [ ! -x .venv/bin/python ]; then
  echo "creating .venv with $PY" >&2
  "$PY" -m venv .venv
fi
# the stamp also covers this script, so a change of the extras below re-installs too
stamp=".venv/.installed-$(cat pyproject.toml scripts/_env.sh | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "installing the toolkit into .venv (first run: a few minutes)" >&2
  .venv/bin/python -m pip install -q --upgrade pip >&2
  # dask: the --executor dask tests run a LocalCluster (the extra is optional for users: pip install .[dask])
  .venv/bin/python -m pip install -q -e ".[test,dask]" >&2
  rm -f .venv/.installed-*
  touch "$stamp"
fi
export PATH="$PWD/.venv/bin:$PATH"
