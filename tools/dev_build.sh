#!/usr/bin/env bash
# Developer rebuild of repdl._C in place (src/repdl/_C*.so), for an editable
# install.  ccache (when present) makes unchanged files free, and a lock keeps
# two concurrent rebuilds from writing the same .so at once.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v ccache >/dev/null 2>&1; then
  export CC="ccache gcc" CXX="ccache g++"
fi
exec 9>/tmp/repdl-dev-build.lock
flock 9
python setup.py -q build_ext --inplace 2>&1 | grep -v -E "^(running|copying)|SetuptoolsDeprecationWarning|!!|\*{8}|^\s*$|setup.py install|pypa|standards-based|See https|Please avoid" || true
# A non-editable install in site-packages shadows the tree (docs/DEVELOPING.md):
# say so, or the rebuilt module goes unused.
tree="$PWD/src"
(cd /tmp && python -c "
import os, sys, repdl
built = os.path.realpath(sys.argv[1])
if not os.path.realpath(repdl.__file__).startswith(built + os.sep):
    print(f'dev_build.sh: warning: python imports {repdl.__file__}, not the tree just built ({built});'
          ' pip install -e . --no-build-isolation --no-deps brings the tree back', file=sys.stderr)
" "$tree")
