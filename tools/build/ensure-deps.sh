#!/bin/sh
# ensure-deps.sh NAME...: make sure a tool the course needs is here (cmocka, doxygen, gnuplot,
# fuzzer: clang with libFuzzer, python3 for make tables).
# Installs it with apt-get when running as root; otherwise stops with the exact command to run.
set -eu

have() {
    case "$1" in
    cmocka)
        printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void) { return 0; }\n' |
            ${CC:-cc} -x c - -lcmocka -o /dev/null 2>/dev/null ;;
    doxygen) command -v doxygen >/dev/null 2>&1 && command -v dot >/dev/null 2>&1 ;;
    gnuplot) command -v gnuplot >/dev/null 2>&1 ;;
    python3) command -v python3 >/dev/null 2>&1 ;;
    fuzzer)
        printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
            clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null ;;
    *) echo "ensure-deps.sh: unknown dependency '$1'" >&2; exit 2 ;;
    esac
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

for dep in "$@"; do
    have "$dep" && continue
    pkgs=$(packages "$dep")
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "$dep is missing: installing $pkgs with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq $pkgs >/dev/null 2>&1 ||
            { apt-get update -qq && apt-get install -y -qq $pkgs >/dev/null; }
        have "$dep" && continue
        echo "error: $dep is still missing after installing $pkgs" >&2
        exit 1
    fi
    echo "error: $dep is missing; install it with: sudo apt-get install $pkgs" >&2
    [ "$dep" = cmocka ] && echo "       (or point CMOCKA_ROOT at a prefix that holds include/cmocka.h and lib/)" >&2
    exit 1
done
