#!/usr/bin/env bash
# Prices traceql's Kineto reader on every real layout: each real Kineto trace
# in ../shared/traces (or the files named) is repeated to 1 GB by the
# project's repeat generator, and `traceql summarize` is timed against
# `wc -l` on the same page-cached bytes, interleaved, N rounds.
#
#   bash bench/run.sh [-n ROUNDS] [-size 1GB] [-cmd 'summarize -f csv'] [TRACE...] > bench/NAME.txt
#
# Prints benchstat lines (sec/op and peak-RSS-B per layout and tool; compare
# two files with `benchstat old.txt new.txt`), then a table, to stdout; the
# load average beside each layout says how loud the machine was.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5 size=1GB cmd=summarize
while [ $# -gt 0 ]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    -size) size=$2; shift 2 ;;
    -cmd) cmd=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -gt 0 ]; then traces=("$@"); else
  mapfile -t traces < <(find ../shared/traces -name '*.json' -o -name '*.json.gz' | grep -v -e execution_details -e cpu_only -e mtia | sort)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/traceql" ./cmd/traceql
go build -o "$work/tracegen" ./internal/cmd/tracegen
# wall seconds and peak RSS (bytes) of one run
measure() { /usr/bin/time -f '%e %M' -o "$work/t" "$@" >/dev/null 2>&1 || return 1; awk '{print $1, $2*1024}' "$work/t"; }
echo "goos: $(go env GOOS)"; echo "goarch: $(go env GOARCH)"; echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty)"
table=()
for tr in "${traces[@]}"; do
  name=$(echo "${tr#../shared/traces/}" | sed 's/\.json\(\.gz\)\?$//; s/\.pt\.trace$//; s/[^A-Za-z0-9_.-]/_/g')
  big="$work/big.json"
  if ! "$work/tracegen" -repeat "$tr" -size "$size" -o "$big" 2>/dev/null; then
    echo "# $tr: not repeatable, skipped" >&2; continue
  fi
  # shellcheck disable=SC2086
  if ! "$work/traceql" $cmd "$big" >/dev/null 2>&1; then
    echo "# $tr: no GPU summary, skipped" >&2; rm -f "$big"; continue
  fi
  cat "$big" >/dev/null # page-cached
  tq=() wc=() rss=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    read -r s m < <(measure "$work/traceql" $cmd "$big"); tq+=("$s"); rss+=("$m")
    read -r s _ < <(measure wc -l "$big"); wc+=("$s")
    echo "BenchmarkSummarize/layout=$name 1 $(awk "BEGIN{print ${tq[-1]}*1e9}") ns/op ${rss[-1]} peak-RSS-B"
    echo "BenchmarkWcL/layout=$name 1 $(awk "BEGIN{print ${wc[-1]}*1e9}") ns/op"
  done
  med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
  mt=$(med "${tq[@]}") mw=$(med "${wc[@]}") mr=$(med "${rss[@]}")
  table+=("$(printf '%-58s %7.2f s %6.2f s %5.1f× %5.0f MB  load %s' "$name" "$mt" "$mw" "$(awk "BEGIN{print $mt/$mw}")" "$(awk "BEGIN{print $mr/1e6}")" "$(cut -d' ' -f1 /proc/loadavg)")")
  rm -f "$big"
done
echo
printf '# %-56s %9s %8s %6s %8s\n' layout traceql 'wc -l' ratio 'peak RSS'
printf '# %s\n' "${table[@]}"
