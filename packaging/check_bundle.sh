#!/usr/bin/env bash
# Start the one-folder bundle that `make dist` built, as a user without Python would, and check
# that it opens its window and scans, in worker processes too (neardup-gui --smoke-test=full). Under a virtual display
# (xvfb-run) when there is none, so it runs on a build server too.
#   packaging/check_bundle.sh [BUNDLE_DIR]     (default: dist/neardup)
set -euo pipefail
bundle=${1:-dist/neardup}
if [ ! -x "$bundle/neardup-gui" ]; then
    echo "No bundle at $bundle: build it with 'make dist' first." >&2
    exit 1
fi
bundle=$(cd "$bundle" && pwd)   # absolute: the check runs from an empty folder
exe="$bundle/neardup-gui"
# Nothing from a development setup may help the bundle: no virtualenv, no source tree.
run=(env -u VIRTUAL_ENV -u PYTHONPATH -u PYTHONHOME -u QT_QPA_PLATFORM "$exe" --smoke-test=full)
cd "$(mktemp -d)"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    if ! command -v xvfb-run > /dev/null; then
        echo "No display and no xvfb-run: install xvfb (apt-get install xvfb) to check the bundle." >&2
        exit 1
    fi
    run=(xvfb-run -a -s "-screen 0 1400x900x24" "${run[@]}")
fi
# At most five minutes, where coreutils' timeout exists (macOS has none by default).
if command -v timeout > /dev/null; then run=(timeout 300 "${run[@]}"); fi
if out=$("${run[@]}" 2>&1); then
    echo "$out" | grep -v "propagateSizeHints" || true
    echo "The bundle in $bundle starts and works ($(du -sh "$bundle" | cut -f1))."
else
    code=$?
    echo "$out" >&2
    echo "The bundle in $bundle failed its smoke test (exit status $code)." >&2
    exit "$code"
fi
