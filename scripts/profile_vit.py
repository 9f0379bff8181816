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
    TORCH_TRACE=/tmp/tt python3 scripts/profile_vit.py --out DIR --sizes small --modes reduce-overhead \
        --batches 1 --flops --capture-run                       # shapes, FLOPs, compile log, capture
    python3 scripts/profile_vit.py --out DIR --pairs           # controlled pairs, one change each

With TORCH_TRACE set (one process per run), the structured compile log of the
run is gzipped beside its trace as NAME.torch_trace.log.gz. With --barrier,
several processes compile at once but measure one at a time (see slot()).

Each trace is written as NAME.pt.trace.json.gz, and a line per run (compile
time, unprofiled median step) is appended to runs.jsonl beside them; env.json
records the GPU, driver and library versions.
"""
import argparse
import contextlib
import datetime
import fcntl
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
import torch.nn.functional as F
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


def stepper(model, mode, batch, pinned=True):
    host = torch.randn(batch, 3, 224, 224)
    if pinned:
        host = host.pin_memory()

    @torch.no_grad()
    def step():
        if mode in GRAPH_MODES:
            # Tells cudagraph trees that the last step's outputs are dead.
            torch.compiler.cudagraph_mark_step_begin()
        x = host.to("cuda", non_blocking=True)
        return model(x).argmax(-1).cpu()

    return step


def median_step_ms(step, n=20):
    return step_times(step, n)["unprofiled_median_step_ms"]


def step_times(step, n=20):
    """Wall clock of n unprofiled steps: the median of each step's time, and the
    mean over all n with the GPU drained at the end (for steps that do not wait
    for the GPU themselves, such as a training step)."""
    torch.cuda.synchronize()
    times = []
    t0 = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    torch.cuda.synchronize()
    return {"unprofiled_median_step_ms": round(statistics.median(times) * 1e3, 3),
            "unprofiled_mean_step_ms": round((time.perf_counter() - t0) / n * 1e3, 3)}


def record(step, path, active, wait=1, warmup=2, with_stack=False, shapes=False):
    """Profiles wait+warmup+active steps and writes the trace gzipped to path.
    shapes records each op's input shapes and types, and FLOPs of matrix ops."""
    raw = path + ".tmp.json"

    def save(prof):
        prof.export_chrome_trace(raw)

    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=acts, schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
                 on_trace_ready=save, with_stack=with_stack, record_shapes=shapes,
                 with_flops=shapes) as prof:
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


@contextlib.contextmanager
def slot(args, name):
    """With --barrier DIR:N, waits until N processes are past their compilation
    (or failed), then holds DIR/lock while measuring: compilations run side by
    side, but no run is timed or profiled while another process works."""
    if not args.barrier:
        yield
        return
    folder, n = args.barrier.rsplit(":", 1)
    os.makedirs(folder, exist_ok=True)
    ready(args)
    deadline = time.time() + args.barrier_timeout
    while sum(f.startswith("ready.") for f in os.listdir(folder)) < int(n) and time.time() < deadline:
        time.sleep(0.5)
    with open(os.path.join(folder, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def ready(args):
    """Marks this process as past its compilation for slot(); idempotent."""
    if args.barrier:
        folder = args.barrier.rsplit(":", 1)[0]
        os.makedirs(folder, exist_ok=True)
        open(os.path.join(folder, f"ready.{os.getpid()}"), "w").close()


def save_compile_log(out, name):
    """Gzips the TORCH_TRACE structured log(s) of this process beside the run's
    trace as NAME.torch_trace.log.gz (one process per run, so one log)."""
    folder = os.environ.get("TORCH_TRACE")
    if not folder or not os.path.isdir(folder):
        return None
    logs = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".log"))
    if not logs:
        return None
    data = b"".join(open(f, "rb").read() for f in logs)
    path = os.path.join(out, name + ".torch_trace.log.gz")
    with open(path, "wb") as f:
        f.write(gzip.compress(data, compresslevel=9, mtime=0))
    return os.path.getsize(path)


def one_run(args, size, mode, batch):
    name = f"vit-{size}_{mode}_b{batch}" + ("_flops" if args.flops else "")
    capture = args.capture_run and mode in GRAPH_MODES
    torch._dynamo.reset()
    t = time.perf_counter()
    model = build(size, mode)
    step = stepper(model, mode, batch)
    # Compiles (and in graph modes runs cudagraph trees' warm-up); with
    # --capture-run the graph is recorded under the profiler, in slot().
    for _ in range(1 if capture else 5):
        step()
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - t
    if args.compile_only:
        log(args.out, {"run": name, "compile_only": True, "compile_s": round(compile_s, 1)})
        return
    with slot(args, name):
        if capture:
            # The steps that record the CUDA graphs (cudagraph trees record on
            # the call after warm-up) and the first replays, with Python stacks:
            # the launches, ops and shapes each replayed kernel comes from.
            cname = name.replace("_flops", "") + "_capture"
            path = os.path.join(args.out, cname + ".pt.trace.json.gz")
            n = record(step, path, active=4, wait=0, warmup=0, with_stack=True, shapes=True)
            log(args.out, {"run": cname, "size": size, "mode": mode, "batch": batch, "capture": True,
                           "json_bytes": n, "gz_bytes": os.path.getsize(path)})
            for _ in range(4):
                step()
        row = {"run": name, "size": size, "mode": mode, "batch": batch,
               "compile_s": round(compile_s, 1), **step_times(step)}
        if args.flops:
            row["record_shapes"] = row["with_flops"] = True
        path = os.path.join(args.out, name + ".pt.trace.json.gz")
        row["json_bytes"] = record(step, path, args.steps, shapes=args.flops)
        row["gz_bytes"] = os.path.getsize(path)
        if (size, mode, batch) == ("small", "default", 1) and args.stack_run:
            spath = os.path.join(args.out, name + "_stack.pt.trace.json.gz")
            n = record(step, spath, args.steps, with_stack=True)
            log(args.out, {"run": name + "_stack", "with_stack": True, "json_bytes": n,
                           "gz_bytes": os.path.getsize(spath)})
    gz = save_compile_log(args.out, name)
    if gz is not None:
        row["compile_log_gz_bytes"] = gz
    log(args.out, row)
    del model, step
    torch.cuda.empty_cache()


class SyntheticImages(torch.utils.data.Dataset):
    """ImageNet-shaped samples made on the CPU with the work of a light
    augmentation pipeline (random crop, flip, scale, normalize), so that the
    DataLoader pair has real per-sample host cost. Deterministic per index."""

    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.randint(0, 256, (3, 288, 288), dtype=torch.uint8, generator=g)
        y, x = (int(v) for v in torch.randint(0, 64, (2,), generator=g))
        img = img[:, y:y + 224, x:x + 224].float().div_(255)
        if i % 2:
            img = img.flip(-1)
        img = F.interpolate(img[None], size=(224, 224), mode="bilinear", align_corners=False)[0]
        img = (img - 0.45) / 0.225
        return img, i % 1000


def resnet_trainer(workers):
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet50(num_classes=1000).cuda().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = torch.utils.data.DataLoader(SyntheticImages(), batch_size=64, shuffle=False,
                                         num_workers=workers, pin_memory=True,
                                         persistent_workers=workers > 0,
                                         prefetch_factor=4 if workers else None)
    batches = iter(loader)

    def step():
        x, y = next(batches)
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return model, step


def with_item_syncs(model):
    """A host read of each block's output, as a training loop that logs or
    checks values layer by layer does: each .item() waits for the GPU."""
    def read_back(module, inputs, output):
        output.float().abs().max().item()  # returns None: the output stays as it is

    for block in model.blocks:
        block.register_forward_hook(read_back)
    return model


# Controlled pairs: the same step recorded twice, differing in one change, to
# check findings (a rule fires on "before", not on "after") and what-if
# projections (projecting "before" with the edit should give "after").
# name: (what changes, before, after); each side is a function returning a step.
def pairs():
    def vit(size, batch, pinned=True, items=False, precision="high"):
        def make():
            model = build(size, "eager")
            if items:
                with_item_syncs(model)
            inner = stepper(model, "eager", batch, pinned=pinned)

            def step():  # the precision is global: each side sets its own
                torch.set_float32_matmul_precision(precision)
                return inner()
            return model, step
        return make

    return {
        "item-sync": ("vit-small eager b1: .item() on each block's output (before) or not",
                      vit("small", 1, items=True), vit("small", 1)),
        "item-sync-b32": ("vit-small eager b32: .item() on each block's output (before) or not",
                          vit("small", 32, items=True), vit("small", 32)),
        "pageable-copy": ("vit-small eager b32: the input copied from pageable (before) or pinned memory",
                          vit("small", 32, pinned=False), vit("small", 32)),
        "dataloader": ("ResNet-50 training step, batch 64, synthetic images: DataLoader num_workers 0 (before) or 4",
                       lambda: resnet_trainer(0), lambda: resnet_trainer(4)),
        "fp32-matmul": ("vit-medium eager b32: set_float32_matmul_precision 'highest' (before, fp32) or 'high' (TF32)",
                        vit("medium", 32, precision="highest"), vit("medium", 32)),
    }


def pair_runs(args, rounds=5):
    """Records each pair. Both sides are built and warmed up first, then timed
    in alternation (rounds x 20 unprofiled steps each; the medians of the
    rounds are logged), so that a drift of the machine's speed falls on both
    sides alike; then each side is profiled."""
    only = set(args.pair_names.split(",")) if args.pair_names else None
    failed = 0
    with slot(args, "pairs"):
        for pair, (what, *makers) in pairs().items():
            if only and pair not in only:
                continue
            sides = {}
            try:
                for side, make in zip(("before", "after"), makers):
                    model, step = make()
                    for _ in range(5):
                        step()
                    sides[side] = (model, step)
                times = {side: [] for side in sides}
                for _ in range(rounds):
                    for side, (_, step) in sides.items():
                        times[side].append(step_times(step))
                for side, (_, step) in sides.items():
                    name = f"pair-{pair}_{side}"
                    row = {"run": name, "pair": pair, "side": side, "change": what, "rounds": rounds}
                    for key in ("unprofiled_median_step_ms", "unprofiled_mean_step_ms"):
                        row[key] = statistics.median(t[key] for t in times[side])
                    path = os.path.join(args.out, name + ".pt.trace.json.gz")
                    row["json_bytes"] = record(step, path, args.steps, shapes=True)
                    row["gz_bytes"] = os.path.getsize(path)
                    row["record_shapes"] = True
                    log(args.out, row)
            except Exception:
                failed += 1
                traceback.print_exc()
                log(args.out, {"run": f"pair-{pair}", "failed": traceback.format_exc(limit=2)})
            finally:
                sides = None
                torch.set_float32_matmul_precision("high")
                torch.cuda.empty_cache()
    return failed


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
    p.add_argument("--flops", action="store_true",
                   help="record_shapes=True, with_flops=True; the run is named NAME_flops")
    p.add_argument("--capture-run", action="store_true",
                   help="in graph modes, also profile the steps that record the CUDA graphs (NAME_capture)")
    p.add_argument("--pairs", action="store_true", help="only record the controlled pairs")
    p.add_argument("--pair-names", default="", help="with --pairs: which pairs (comma-separated)")
    p.add_argument("--barrier", default="",
                   help="DIR:N: compile beside N-1 other processes, measure one process at a time")
    p.add_argument("--barrier-timeout", type=float, default=300)
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
    if args.pairs:
        sys.exit(1 if pair_runs(args) else 0)
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
                finally:
                    ready(args)  # a failed run must not hold the others back
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
