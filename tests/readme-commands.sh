#!/usr/bin/env bash
# readme-commands.sh: the README's commands as a reader types them (CI runs it): the code block of
# "The two commands" (make run, make test) and that of "Checking a result with numpy", each taken
# from README.md as it stands and run whole, in that order, from the repository's root. One line
# per block; exit status 1 at the first block that fails (its own output above it says why).
# The numpy check needs python3 with numpy (CI installs python3-numpy).
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "readme-commands: FAILED: $*" >&2; exit 1; }

# the first fenced code block after the heading "## $1" of README.md
block() {
    awk -v heading="## $1" '
        $0 == heading { found = 1; next }
        found && /^## / { exit }
        found && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' README.md
}

made=""
for f in in.npy out.npy; do [ -e "$f" ] || made="$made $f"; done
# shellcheck disable=SC2086 # the files' names, one word each
trap '[ -z "$made" ] || rm -f $made' EXIT
for section in "The two commands" "Checking a result with numpy"; do
    commands=$(block "$section")
    [ -n "$commands" ] || fail "README.md has no code block under '## $section'"
    if [ "$section" = "Checking a result with numpy" ] && ! python3 -c "import numpy" 2>/dev/null; then
        fail "python3 has no numpy, which the README's check uses (pip install numpy, or apt-get install python3-numpy)"
    fi
    echo "readme-commands: $section: $(printf '%s\n' "$commands" | grep -vc '^ *#') lines"
    bash -euo pipefail -c "$commands" || fail "the block under '## $section' of README.md"
done
echo "readme-commands: every command of README.md's two blocks ran as written"
