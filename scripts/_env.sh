# The project's environment: make .venv if missing, install the project into it, put .venv/bin on PATH.
#   source scripts/_env.sh        # in your shell (bash or zsh): then 'balance ...' works from any folder
# Safe to source: it sets no shell option in your shell (its work runs in a subshell with 'set -euo pipefail'),
# leaves your current folder as it was, and on a failure returns 1 instead of closing the terminal. It exports
# BALANCE_ROOT (the repository) and PATH. Scripts that source it set their own options and folder.
# Re-installs only when pyproject.toml or this script changes (a stamp file records the installed version).
BALANCE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)" || return 1 2>/dev/null || exit 1
export BALANCE_ROOT
# (bash ignores errexit inside an if's condition, this subshell included: each step that can fail exits itself)
if (
  set -euo pipefail
  cd "$BALANCE_ROOT" || exit 1
  PY="${PYTHON:-}"
  if [ -z "$PY" ]; then
    for c in python3.11 python3 python; do
      if command -v "$c" >/dev/null 2>&1; then PY="$c"; break; fi
    done
  fi
  if [ ! -x .venv/bin/python ]; then
    echo "creating .venv with $PY" >&2
    "$PY" -m venv .venv || exit 1
  fi
  # the stamp also covers this script, so a change of the extras below re-installs too
  stamp=".venv/.installed-$(cat pyproject.toml scripts/_env.sh | sha256sum | cut -c1-16)"
  if [ ! -f "$stamp" ]; then
    echo "installing the toolkit into .venv (first run: a few minutes)" >&2
    .venv/bin/python -m pip install -q --upgrade pip >&2 || exit 1
    # dask: the --executor dask tests run a LocalCluster (the extra is optional for users: pip install .[dask])
    .venv/bin/python -m pip install -q -e ".[test,dask]" >&2 || exit 1
    rm -f .venv/.installed-*
    touch "$stamp" || exit 1
  fi
  # bytecode for the toolkit's own modules (an editable install has none): with PYTHONDONTWRITEBYTECODE set, as
  # in many containers, every command would compile ~40 modules from source, ~0.1 s of each start
  .venv/bin/python -m compileall -q balance simulators strategies reports >/dev/null 2>&1 || true
); then
  case ":$PATH:" in
    *":$BALANCE_ROOT/.venv/bin:"*) ;;
    *) export PATH="$BALANCE_ROOT/.venv/bin:$PATH" ;;
  esac
else
  echo "scripts/_env.sh: setting up $BALANCE_ROOT/.venv failed (see the lines above)" >&2
  return 1 2>/dev/null || exit 1
fi
