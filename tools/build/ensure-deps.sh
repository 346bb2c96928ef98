#!/bin/sh
# ensure-deps.sh [--check] NAME...: make sure a tool the course needs is here (cmocka, doxygen,
# gnuplot, fuzzer: clang with libFuzzer, python3 for make tables).
# Installs it with apt-get when running as root, after one line that says what it installs and
# why (on file descriptor 3 where it is open: make's $(call need) points it at the terminal, whose
# standard error it keeps for the one line of a failure); otherwise stops with the exact command to
# run. With CMOCKA_ROOT set, CMocka is looked for there only: never installed, and a CMOCKA_ROOT
# without include/cmocka.h is refused at once in the one offline line.
# --check: only say, by the exit status, whether every NAME is here (make doctor).
set -eu

have() {
    case "$1" in
    cmocka)
        printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void) { return 0; }\n' |
            ${CC:-cc} -x c - ${CMOCKA_ROOT:+-I$CMOCKA_ROOT/include -L$CMOCKA_ROOT/lib \
                -L$CMOCKA_ROOT/lib/$(${CC:-cc} -print-multiarch 2>/dev/null)} -lcmocka \
                -o /dev/null 2>/dev/null ;;
    doxygen) command -v doxygen >/dev/null 2>&1 && command -v dot >/dev/null 2>&1 ;;
    gnuplot) command -v gnuplot >/dev/null 2>&1 ;;
    python3) command -v python3 >/dev/null 2>&1 ;;
    fuzzer)
        printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
            clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null ;;
    *) echo "ensure-deps.sh: unknown dependency '$1'" >&2; exit 2 ;;
    esac
}

# what needs DEP, for the line said before it is installed
needed_by() {
    case "$1" in
    cmocka) echo "make test builds its tests with it" ;;
    doxygen) echo "make docs builds the notes with it" ;;
    gnuplot) echo "the charts are drawn with it" ;;
    python3) echo "the tables and the pages' checks run on it" ;;
    fuzzer) echo "make fuzz builds the fuzzers with it" ;;
    esac
}

# a line to the terminal (file descriptor 3 where it is open), else to standard output
say() {
    { printf '%s\n' "$*" >&3; } 2>/dev/null || printf '%s\n' "$*"
}

packages() {
    case "$1" in
    cmocka) echo libcmocka-dev ;;
    doxygen) echo doxygen graphviz ;;
    gnuplot) echo gnuplot-nox ;;
    python3) echo python3 ;;
    fuzzer) echo clang ;;
    esac
}

if [ "${1:-}" = --check ]; then
    shift
    for dep in "$@"; do have "$dep" || exit 1; done
    exit 0
fi

# The one line said when DEP cannot be had here: what is missing, why, and the commands that bring
# it on a machine without package access (README.md, "Offline machines"); exit status 2
offline() {
    dep=$1 why=$2
    case "$dep" in
    cmocka) debs="libcmocka0 libcmocka-dev" use="make test CMOCKA_ROOT=/tmp/sysroot/usr" ;;
    *) debs=$(packages "$dep") use="PATH=/tmp/sysroot/usr/bin:\$PATH make ..." ;;
    esac
    echo "error: $dep is missing ($why); offline (README.md, \"Offline machines\"): apt-get download $debs where there is a network, then here dpkg -x FILE.deb /tmp/sysroot for each and $use" >&2
    exit 2
}

for dep in "$@"; do
    if [ "$dep" = cmocka ] && [ -n "${CMOCKA_ROOT:-}" ]; then # the user's own copy, never installed
        [ -f "$CMOCKA_ROOT/include/cmocka.h" ] ||
            offline cmocka "CMOCKA_ROOT=$CMOCKA_ROOT has no include/cmocka.h"
        have cmocka || offline cmocka "CMOCKA_ROOT=$CMOCKA_ROOT has include/cmocka.h, but no libcmocka in lib/ that links"
        continue
    fi
    have "$dep" && continue
    pkgs=$(packages "$dep")
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "$dep is missing ($(needed_by "$dep")): installing $pkgs with apt-get as root (a minute at most; without a network it stops with the offline commands)"
        export DEBIAN_FRONTEND=noninteractive
        log=$(mktemp)
        # shellcheck disable=SC2086
        if apt-get install -y -qq $pkgs >"$log" 2>&1 ||
            { apt-get update -qq >>"$log" 2>&1 && apt-get install -y -qq $pkgs >>"$log" 2>&1; }; then
            rm -f "$log"
            have "$dep" && continue
            offline "$dep" "still missing after apt-get installed $pkgs"
        fi
        rm -f "$log"
        offline "$dep" "apt-get could not install $pkgs: no network or no package source"
    fi
    if command -v apt-get >/dev/null 2>&1; then
        offline "$dep" "with root: sudo apt-get install $pkgs"
    fi
    offline "$dep" "this machine has no apt-get"
done
