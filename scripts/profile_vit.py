#!/usr/bin/env python3
"""Record the GPU traces in testdata/gpu: timm ViTs, eager and under torch.compile.

A run builds a ViT with random weights (no network is needed), compiles it
outside the profiled steps, times 20 unprofiled steps, then profiles
wait + warmup + active steps with torch.profiler, so that every active step is
a ProfilerStep#N in the trace. A step is what an inference server does per
batch: copy a pinned host batch to the GPU, run the model, copy the predicted
classes back (which waits for the GPU).

    python3 scripts/profile_vit.py --out testdata/gpu          # every run
    python3 scripts/profile_vit.py --out DIR --sizes small --modes default,reduce-overhead --batches 1
    python3 scripts/profile_vit.py --out DIR --warmup-run      # compile inside the profile
    python3 scripts/profile_vit.py --out DIR --compile-only    # fill the compile caches, record nothing

Each trace is written as NAME.pt.trace.json.gz, and a line per run (compile
time, unprofiled median step) is appended to runs.jsonl beside them; env.json
records the GPU, driver and library versions.
"""
import argparse
import datetime
import gzip
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback

import torch
import timm
from timm.models.vision_transformer import VisionTransformer
from torch.profiler import ProfilerActivity, profile, schedule

SIZES = {
    "small": dict(patch_size=16, depth=6, embed_dim=384, num_heads=6),
    "medium": dict(patch_size=32, depth=12, embed_dim=768, num_heads=12),
    "large": dict(patch_size=32, depth=18, embed_dim=1024, num_heads=16),
}
MODES = ["eager", "default", "reduce-overhead", "max-autotune"]
BATCHES = [1, 32]
# Modes whose compiled code replays CUDA graphs (cudagraph trees).
GRAPH_MODES = {"reduce-overhead", "max-autotune"}


def build(size, mode):
    torch.manual_seed(0)
    model = VisionTransformer(img_size=224, num_classes=1000, **SIZES[size])
    model = model.cuda().eval()
    if mode == "eager":
        return model
    return torch.compile(model, mode=mode)


def stepper(model, mode, batch):
    host = torch.randn(batch, 3, 224, 224).pin_memory()

    @torch.no_grad()
    def step():
        if mode in GRAPH_MODES:
            # Tells cudagraph trees that the last step's outputs are dead.
            torch.compiler.cudagraph_mark_step_begin()
        x = host.to("cuda", non_blocking=True)
        return model(x).argmax(-1).cpu()

    return step


def median_step_ms(step, n=20):
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def record(step, path, active, wait=1, warmup=2, with_stack=False):
    """Profiles wait+warmup+active steps and writes the trace gzipped to path."""
    raw = path + ".tmp.json"

    def save(prof):
        prof.export_chrome_trace(raw)

    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=acts, schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
                 on_trace_ready=save, with_stack=with_stack) as prof:
        for _ in range(wait + warmup + active):
            step()
            prof.step()
    with open(raw, "rb") as f:
        data = f.read()
    # mtime=0: the same trace gives the same bytes.
    with open(path, "wb") as f:
        f.write(gzip.compress(data, compresslevel=9, mtime=0))
    os.remove(raw)
    return len(data)


def environment():
    def cmd(*args):
        try:
            return subprocess.run(args, capture_output=True, text=True, timeout=30).stdout.strip()
        except Exception as e:  # an absent tool is recorded, not fatal
            return f"unavailable: {e}"

    cpu = ""
    for line in cmd("lscpu").splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
    import triton
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "gpu": torch.cuda.get_device_name(),
        "driver": cmd("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "triton": triton.__version__,
        "timm": timm.__version__,
        "precision": "float32 weights and inputs, TF32 matmuls (set_float32_matmul_precision('high'))",
    }


def log(out, row):
    with open(os.path.join(out, "runs.jsonl"), "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def one_run(args, size, mode, batch):
    name = f"vit-{size}_{mode}_b{batch}"
    torch._dynamo.reset()
    t = time.perf_counter()
    model = build(size, mode)
    step = stepper(model, mode, batch)
    for _ in range(5):  # compiles, and in graph modes warms up and records the graphs
        step()
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - t
    if args.compile_only:
        log(args.out, {"run": name, "compile_only": True, "compile_s": round(compile_s, 1)})
        return
    row = {"run": name, "size": size, "mode": mode, "batch": batch,
           "compile_s": round(compile_s, 1), "unprofiled_median_step_ms": round(median_step_ms(step), 3)}
    path = os.path.join(args.out, name + ".pt.trace.json.gz")
    row["json_bytes"] = record(step, path, args.steps)
    row["gz_bytes"] = os.path.getsize(path)
    log(args.out, row)
    if (size, mode, batch) == ("small", "default", 1) and args.stack_run:
        path = os.path.join(args.out, name + "_stack.pt.trace.json.gz")
        n = record(step, path, args.steps, with_stack=True)
        log(args.out, {"run": name + "_stack", "with_stack": True, "json_bytes": n,
                       "gz_bytes": os.path.getsize(path)})
    del model, step
    torch.cuda.empty_cache()


def warmup_run(args, mode):
    """Profiles the first steps of a fresh process: compilation, graph capture, steady state."""
    name = f"vit-small_{mode}_b1_warmup"
    torch._dynamo.reset()
    model = build("small", mode)
    step = stepper(model, mode, 1)
    path = os.path.join(args.out, name + ".pt.trace.json.gz")
    t = time.perf_counter()
    n = record(step, path, active=6, wait=0, warmup=0)
    log(args.out, {"run": name, "size": "small", "mode": mode, "batch": 1, "warmup": True,
                   "profiled_s": round(time.perf_counter() - t, 1), "json_bytes": n,
                   "gz_bytes": os.path.getsize(path)})


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="folder for the traces")
    p.add_argument("--sizes", default=",".join(SIZES))
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--batches", default=",".join(map(str, BATCHES)))
    p.add_argument("--steps", type=int, default=10, help="profiled (active) steps a run")
    p.add_argument("--stack-run", action="store_true", help="also record small/default/b1 with_stack=True")
    p.add_argument("--warmup-run", action="store_true",
                   help="only profile the first steps of small/reduce-overhead/b1, compilation included")
    p.add_argument("--compile-only", action="store_true", help="compile and warm up, record nothing")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_float32_matmul_precision("high")
    env = environment()
    env["command"] = " ".join(["python3"] + sys.argv)
    with open(os.path.join(args.out, "env.json"), "a") as f:
        f.write(json.dumps(env) + "\n")
    print(json.dumps(env), flush=True)

    if args.warmup_run:
        warmup_run(args, "reduce-overhead")
        return
    failed = 0
    for size in args.sizes.split(","):
        for batch in map(int, args.batches.split(",")):
            for mode in args.modes.split(","):
                try:
                    one_run(args, size, mode, batch)
                except Exception:
                    failed += 1
                    traceback.print_exc()
                    log(args.out, {"run": f"vit-{size}_{mode}_b{batch}", "failed": traceback.format_exc(limit=1)})
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
