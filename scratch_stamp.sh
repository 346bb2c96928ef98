#!/bin/bash
# throwaway: per-test wall times of every test program
out=$1; shift
mkdir -p $out
for t in "$@"; do
  n=$(echo $t | tr / _)
  start=$(date +%s.%N)
  stdbuf -oL -eL ./$t 2>&1 | while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > $out/$n.log
  echo "$t $(echo "$(date +%s.%N) - $start" | bc)" >> $out/programs.txt
done
# durations per test
for f in $out/*.log; do awk '/\[ RUN/ {s=$1; name=substr($0, index($0,"]")+2)} /\[ +(OK|FAILED|SKIPPED) \]/ && s {printf "%7.2f %s %s\n", $1-s, FILENAME, name; s=0}' $f; done | sort -rn > $out/tests.txt
