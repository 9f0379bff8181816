#!/usr/bin/env bash
# Records the second set of testdata/gpu runs on one GPU machine in one go
# (see testdata/gpu/README.md): the small and medium ViT at batch 1, default
# and reduce-overhead, with shapes, FLOPs and TORCH_TRACE compile logs; the
# small reduce-overhead run's graph capture; and the controlled pairs.
# The four compiled runs compile side by side, then every process measures
# alone (profile_vit.py --barrier), so no timing shares the machine.
#
#   bash scripts/record_gpu.sh OUT
set -u
out=${1:?usage: record_gpu.sh OUT}
here=$(dirname "$0")
mkdir -p "$out"
bar=$(mktemp -d)
n=5                               # processes that meet at the barrier
export INDUCTOR_PROVENANCE=1      # Inductor's kernel -> FX node map in the compile log
for s in small medium; do
  for m in default reduce-overhead; do
    capture=; [ $s-$m = small-reduce-overhead ] && capture=--capture-run
    TORCH_TRACE=$(mktemp -d) python3 "$here/profile_vit.py" --out "$out" --sizes $s --modes $m \
      --batches 1 --flops $capture --barrier "$bar:$n" >"$out/log.vit-$s-$m.txt" 2>&1 &
  done
done
python3 "$here/profile_vit.py" --out "$out" --pairs --barrier "$bar:$n" >"$out/log.pairs.txt" 2>&1 &
failed=0
for job in $(jobs -p); do wait "$job" || failed=1; done
exit $failed
