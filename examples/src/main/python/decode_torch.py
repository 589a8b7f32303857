#!/usr/bin/env python3
"""PyTorch comparison for GraphRT's transformer decode example.

GPT-2-small shapes by default, fp32 throughout (bf16 with --bf16), random weights generated from a
fixed seed with a splitmix64-based generator that matches the Java example bit
for bit, so logits can be compared across implementations.  Nothing is
downloaded.

Usage (GPU machine):
    python3 decode_torch.py --out DIR [--layers 12 --d 768 --heads 12
                            --ctx 1024 --vocab 50257 --tokens 64 --check 8]

Self-check of the weight generator (no torch needed, numpy only):
    python3 decode_torch.py --selfcheck

Outputs:
  * DIR/torch-logits-k.bin  (k = 0..check-1): logits of token k at position k,
    raw float32 little-endian, eager execution.
  * a markdown timing table (eager vs CUDA graph, step at position T-1, i.e.
    attention over all T cache rows), plus profiler kernel time / count per
    token; also written to DIR/torch-results.md.

Exit status: 0 on success, 1 on a hard failure (bad args, self-check mismatch,
non-finite logits, graph/eager mismatch), 3 if only the profiler summary could
not be produced.
"""

import argparse
import math
import os
import statistics
import struct
import sys
import time

# --------------------------------------------------------------------------
# Deterministic weight generator (must match the Java code bit for bit)
# --------------------------------------------------------------------------

SEED = 2026
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
MASK64 = (1 << 64) - 1
TWO_M24 = 2.0 ** -24
LN_EPS = 1e-5

GAIN = "gain"  # kind marker for LayerNorm gains: 1 + (u*2-1)*0.1


def log(msg):
    print(msg, flush=True)


def mix_py(x):
    """splitmix64 finalizer, pure Python (reference implementation)."""
    z = (x + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def value_py(tensor_id, i, scale, seed=SEED):
    """One weight element, pure Python; returns the float32 bit pattern (bytes)."""
    x = ((tensor_id << 32) + i + seed * GOLDEN) & MASK64
    u = (mix_py(x) >> 40) * TWO_M24
    t = u * 2.0 - 1.0
    v = (1.0 + t * 0.1) if scale == GAIN else (t * scale)
    return struct.pack("<f", v)  # rounds the double once to float32 (RNE)


def gen_np(np, tensor_id, n, scale, start=0, seed=SEED, chunk=1 << 22):
    """Elements start..start+n-1 of a tensor (flat row-major index), as float32."""
    out = np.empty(n, dtype=np.float32)
    base = np.uint64(((tensor_id << 32) + seed * GOLDEN) & MASK64)
    c_golden = np.uint64(GOLDEN)
    c_m1 = np.uint64(MIX1)
    c_m2 = np.uint64(MIX2)
    s30, s27, s31, s40 = (np.uint64(s) for s in (30, 27, 31, 40))
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        with np.errstate(over="ignore"):
            z = np.arange(start + s, start + e, dtype=np.uint64)
            z += base
            z += c_golden
            z ^= z >> s30
            z *= c_m1
            z ^= z >> s27
            z *= c_m2
            z ^= z >> s31
        u = (z >> s40).astype(np.float64)
        u *= TWO_M24
        t = u * 2.0
        t -= 1.0
        if scale == GAIN:
            t *= 0.1
            v = 1.0 + t
        else:
            t *= scale
            v = t
        out[s:e] = v.astype(np.float32)
    return out


def weight_specs(L, d, T, V):
    """(name, tensor id, shape, scale-or-GAIN) in a fixed order."""
    specs = [
        ("wte", 1, (V, d), 0.02),
        ("wpe", 2, (T, d), 0.02),
        ("lnf_g", 3, (d,), GAIN),
        ("lnf_b", 4, (d,), 0.1),
    ]
    for l in range(L):
        b = 100 + 16 * l
        specs += [
            (f"l{l}.ln1_g", b + 0, (d,), GAIN),
            (f"l{l}.ln1_b", b + 1, (d,), 0.1),
            (f"l{l}.w_qkv", b + 2, (3 * d, d), 0.02),
            (f"l{l}.b_qkv", b + 3, (3 * d,), 0.01),
            (f"l{l}.w_proj", b + 4, (d, d), 0.02),
            (f"l{l}.b_proj", b + 5, (d,), 0.01),
            (f"l{l}.ln2_g", b + 6, (d,), GAIN),
            (f"l{l}.ln2_b", b + 7, (d,), 0.1),
            (f"l{l}.w_up", b + 8, (4 * d, d), 0.02),
            (f"l{l}.b_up", b + 9, (4 * d,), 0.01),
            (f"l{l}.w_down", b + 10, (d, 4 * d), 0.02),
            (f"l{l}.b_down", b + 11, (d,), 0.01),
        ]
    return specs


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def token_at(k, V):
    return (k * 7919 + 13) % V


def selfcheck(np, L, d, T, V, verbose=True):
    """Compare the vectorised numpy generator against the pure-Python reference
    on sampled indices (first, last, middle, chunk edges, pseudo-random).
    Returns the number of mismatches."""
    specs = weight_specs(L, d, T, V)
    # a representative subset: globals + first and last layer
    keep = {"wte", "wpe", "lnf_g", "lnf_b"}
    for l in sorted({0, L - 1}):
        keep |= {n for (n, _, _, _) in specs if n.startswith(f"l{l}.")}
    bad = 0
    checked = 0
    for name, tid, shape, scale in specs:
        if name not in keep:
            continue
        n = numel(shape)
        idx = {0, 1, 2, 3, n // 2, n - 2, n - 1}
        for c in (1 << 22,):
            for j in (c - 1, c, c + 1):
                if j < n:
                    idx.add(j)
        r = (tid * 2654435761) & 0xFFFFFFFF
        for _ in range(24):
            r = (r * 1103515245 + 12345) & 0x7FFFFFFF
            idx.add(r % n)
        for i in sorted(idx):
            got = gen_np(np, tid, 1, scale, start=i).tobytes()
            ref = value_py(tid, i, scale)
            checked += 1
            if got != ref:
                bad += 1
                if bad <= 10:
                    log(f"  MISMATCH {name}[{i}]: numpy {got.hex()} python {ref.hex()}")
        # small tensors: full element-by-element comparison, also exercises
        # the chunk loop with a tiny chunk
        if n <= 4 * d:
            full = gen_np(np, tid, n, scale, chunk=97)
            for i in range(n):
                checked += 1
                if full[i:i + 1].tobytes() != value_py(tid, i, scale):
                    bad += 1
                    if bad <= 10:
                        log(f"  MISMATCH(full) {name}[{i}]")
    # chunked vs unchunked on a large slice of wte
    a = gen_np(np, 1, 100003, 0.02, start=12345, chunk=1 << 22)
    b = gen_np(np, 1, 100003, 0.02, start=12345, chunk=1000)
    if a.tobytes() != b.tobytes():
        bad += 1
        log("  MISMATCH chunked vs unchunked wte slice")
    if verbose:
        log(f"selfcheck: {checked} sampled elements compared, {bad} mismatches")
        # reference values for cross-checking other implementations
        for name, tid, scale in (("wte", 1, 0.02), ("lnf_g", 3, GAIN),
                                 ("l0.w_qkv", 102, 0.02), ("l0.ln1_g", 100, GAIN)):
            vals = []
            for i in range(4):
                bits = value_py(tid, i, scale)
                f = struct.unpack("<f", bits)[0]
                vals.append(f"{f:+.9e} (0x{struct.unpack('<I', bits)[0]:08x})")
            log(f"  ref {name}[0..3] = " + ", ".join(vals))
    return bad


def selfcheck_pure_python():
    """Generator check runnable with no numpy at all: prints reference values."""
    for name, tid, scale in (("wte", 1, 0.02), ("lnf_g", 3, GAIN),
                             ("l0.w_qkv", 102, 0.02), ("l0.ln1_g", 100, GAIN)):
        vals = []
        for i in range(4):
            bits = value_py(tid, i, scale)
            vals.append(f"{struct.unpack('<f', bits)[0]:+.9e} "
                        f"(0x{struct.unpack('<I', bits)[0]:08x})")
        log(f"  ref {name}[0..3] = " + ", ".join(vals))
    # basic range sanity
    for i in range(1000):
        v = struct.unpack("<f", value_py(1, i, 0.02))[0]
        g = struct.unpack("<f", value_py(3, i, GAIN))[0]
        if not (-0.02 <= v < 0.02 and 0.9 <= g < 1.1):
            log(f"  out of range at {i}: {v} {g}")
            return 1
    return 0


# --------------------------------------------------------------------------
# Model (torch)
# --------------------------------------------------------------------------

def build_weights(np, torch, args, dev):
    L, d, T, V = args.layers, args.d, args.ctx, args.vocab
    specs = weight_specs(L, d, T, V)
    total = sum(numel(s) for (_, _, s, _) in specs)
    log(f"generating {len(specs)} tensors, {total:,} parameters "
        f"({total * 4 / 2**20:.1f} MiB fp32) on the host ...")
    t0 = time.perf_counter()
    W = {}
    for name, tid, shape, scale in specs:
        arr = gen_np(np, tid, numel(shape), scale).reshape(shape)
        W[name] = torch.from_numpy(arr).to(dev)
    torch.cuda.synchronize()
    log(f"weights generated and moved to {dev} in {time.perf_counter() - t0:.1f} s")
    return W


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--d", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--tokens", type=int, default=64,
                    help="steps per timing round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--check", type=int, default=8,
                    help="tokens whose logits are written for comparison")
    ap.add_argument("--out", default="torch-decode-out")
    ap.add_argument("--bf16", action="store_true",
                    help="run the whole model in bf16 (weights, activations and caches; the usual bf16 inference)")
    ap.add_argument("--selfcheck", action="store_true",
                    help="only check the weight generator (no torch needed)")
    args = ap.parse_args()

    L, d, H, T, V = args.layers, args.d, args.heads, args.ctx, args.vocab
    if min(L, d, H, T, V, args.tokens, args.rounds) < 1 or args.check < 0:
        log("error: sizes must be positive")
        return 1
    if d % H:
        log(f"error: d={d} not divisible by heads={H}")
        return 1
    if args.check > T:
        log(f"error: --check {args.check} > --ctx {T}")
        return 1
    hd = d // H

    try:
        import numpy as np
    except ImportError:
        np = None

    if args.selfcheck:
        log("pure-Python reference values (seed %d):" % SEED)
        rc = selfcheck_pure_python()
        if np is None:
            log("numpy not available: only the pure-Python generator was exercised")
            return rc
        log(f"numpy {np.__version__}: comparing vectorised generator ...")
        bad = selfcheck(np, L, d, T, V, verbose=False)
        log(f"selfcheck: {bad} mismatches")
        return 1 if (bad or rc) else 0

    if np is None:
        log("error: numpy is required")
        return 1

    log("[1/7] weight-generator self-check (numpy vs pure Python)")
    bad = selfcheck(np, L, d, T, V, verbose=True)
    if bad:
        log("FAIL: weight generator self-check")
        return 1

    import torch
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        log("error: CUDA not available")
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = torch.device("cuda")
    dev_name = torch.cuda.get_device_name(dev)
    log(f"torch {torch.__version__} (CUDA {torch.version.cuda}), numpy {np.__version__}, "
        f"device {dev_name}")
    log(f"model: layers={L} d={d} heads={H} head_dim={hd} ctx={T} vocab={V} {'bf16' if args.bf16 else 'fp32'}, seed={SEED}")
    os.makedirs(args.out, exist_ok=True)

    soft_fail = False
    with torch.no_grad():
        log("[2/7] building weights")
        W = build_weights(np, torch, args, dev)
        dtype = torch.bfloat16 if args.bf16 else torch.float32
        if args.bf16:
            W = {name: t.to(dtype) for name, t in W.items()}  # rounded to nearest, as GraphRT's packing
        wte, wpe, lnf_g, lnf_b = W["wte"], W["wpe"], W["lnf_g"], W["lnf_b"]
        layers = []
        for l in range(L):
            p = f"l{l}."
            layers.append(tuple(W[p + k] for k in (
                "ln1_g", "ln1_b", "w_qkv", "b_qkv", "w_proj", "b_proj",
                "ln2_g", "ln2_b", "w_up", "b_up", "w_down", "b_down")))

        # static state: KV caches, the [token, position] input pair, mask ramp
        k_cache = torch.zeros(L, T, d, device=dev, dtype=dtype)
        v_cache = torch.zeros(L, T, d, device=dev, dtype=dtype)
        inp = torch.zeros(2, device=dev, dtype=torch.long)     # [token, pos]
        tok_t = inp[0:1]
        pos_t = inp[1:2]
        ramp = torch.arange(T, device=dev, dtype=torch.long)
        inp_all = torch.tensor([[token_at(k, V), k] for k in range(T)],
                               device=dev, dtype=torch.long)  # [T, 2]
        attn_div = math.sqrt(hd)
        neg_inf = float("-inf")

        def set_inputs(k):
            inp.copy_(inp_all[k])  # one device-to-device copy of 16 bytes

        def step():
            x = wte.index_select(0, tok_t).view(d) + wpe.index_select(0, pos_t).view(d)
            future = ramp > pos_t  # [T] True for rows after the current position
            for l, (ln1_g, ln1_b, w_qkv, b_qkv, w_proj, b_proj,
                    ln2_g, ln2_b, w_up, b_up, w_down, b_down) in enumerate(layers):
                h = F.layer_norm(x, (d,), ln1_g, ln1_b, LN_EPS)
                qkv = F.linear(h, w_qkv, b_qkv)                     # [3d]
                q, k, v = qkv.split(d)
                kc, vc = k_cache[l], v_cache[l]                     # [T, d]
                kc.index_copy_(0, pos_t, k.view(1, d))
                vc.index_copy_(0, pos_t, v.view(1, d))
                Kh = kc.view(T, H, hd).transpose(0, 1)              # [H, T, hd]
                Vh = vc.view(T, H, hd).transpose(0, 1)              # [H, T, hd]
                s = torch.bmm(Kh, q.view(H, hd, 1)).view(H, T) / attn_div
                s = s.masked_fill(future, neg_inf)
                pr = torch.softmax(s, dim=-1)
                att = torch.bmm(pr.view(H, 1, T), Vh).reshape(d)   # heads concatenated
                x = x + F.linear(att, w_proj, b_proj)
                h2 = F.layer_norm(x, (d,), ln2_g, ln2_b, LN_EPS)
                m = F.gelu(F.linear(h2, w_up, b_up), approximate="tanh")
                x = x + F.linear(m, w_down, b_down)
            hf = F.layer_norm(x, (d,), lnf_g, lnf_b, LN_EPS)
            return F.linear(hf, wte)                                # [V]

        # ---------------- correctness (eager) ----------------
        log(f"[3/7] eager correctness run, tokens 0..{args.check - 1} at positions 0..{args.check - 1}")
        eager_logits = []
        for k in range(args.check):
            set_inputs(k)
            lg = step()
            h_lg = lg.float().cpu().numpy().astype("<f4")
            if not np.all(np.isfinite(h_lg)):
                log(f"FAIL: non-finite logits at k={k}")
                return 1
            path = os.path.join(args.out, f"torch-logits-{k}.bin")
            h_lg.tofile(path)
            eager_logits.append(h_lg)
            log(f"  k={k} token={token_at(k, V)} max|logit|={np.abs(h_lg).max():.6e} "
                f"argmax={int(h_lg.argmax())} logits[0..3]=["
                + ", ".join(f"{v:+.8e}" for v in h_lg[:4]) + f"]  -> {path}")

        # ---------------- CUDA graph capture ----------------
        log("[4/7] capturing one decode step as a CUDA graph")
        set_inputs(T - 1)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_logits = step()
        torch.cuda.synchronize()
        log("  captured")

        # graph replay reproduces the eager logits (same positions, same cache rows)
        worst = 0.0
        for k in range(args.check):
            set_inputs(k)
            graph.replay()
            g = static_logits.float().cpu().numpy()
            diff = float(np.abs(g - eager_logits[k]).max())
            scale = float(np.abs(eager_logits[k]).max()) or 1.0
            worst = max(worst, diff / scale)
            log(f"  graph vs eager k={k}: max|diff|={diff:.3e}")
        if args.check and worst > 1e-4:
            log(f"FAIL: CUDA graph replay differs from eager (max rel diff {worst:.3e})")
            return 1

        # fill the cache up to T-1 with real steps (graph replays, fast)
        log(f"[5/7] filling KV cache positions {args.check}..{T - 1}")
        for k in range(args.check, T):
            set_inputs(k)
            graph.replay()
        torch.cuda.synchronize()
        if not bool(torch.isfinite(static_logits).all()):
            log("FAIL: non-finite logits at the last position")
            return 1

        # ---------------- timing at p = T-1 ----------------
        log(f"[6/7] timing: step at position p={T - 1} (attention over {T} rows), "
            f"{args.rounds} rounds x {args.tokens} tokens")

        def run_eager():
            set_inputs(T - 1)
            step()

        def run_graph():
            set_inputs(T - 1)
            graph.replay()

        def rounds(fn, label):
            for _ in range(max(10, args.tokens)):  # warm-up
                fn()
            torch.cuda.synchronize()
            per = []
            for _ in range(args.rounds):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(args.tokens):
                    fn()
                torch.cuda.synchronize()
                per.append((time.perf_counter() - t0) * 1e6 / args.tokens)
            med = statistics.median(per)
            log(f"  {label}: median {med:.1f} us/token; rounds "
                + ", ".join(f"{v:.1f}" for v in per))
            return med

        eager_us = rounds(run_eager, "eager")
        graph_us = rounds(run_graph, "CUDA graph")

        # ---------------- profiler ----------------
        log("[7/7] torch.profiler over 10 graph replays (and 10 eager steps)")

        def profile_kernels(fn, n=10):
            from torch.profiler import profile, ProfilerActivity
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(n):
                    fn()
                torch.cuda.synchronize()
            CUDA = torch.autograd.DeviceType.CUDA
            items = []  # (name, duration_us)
            try:
                for e in prof.profiler.kineto_results.events():
                    if e.device_type() == CUDA:
                        items.append((e.name(), e.duration_ns() / 1000.0))
            except Exception as ex:  # fall back to the parsed FunctionEvents
                log(f"  (raw kineto events unavailable: {ex!r}; using prof.events())")
                items = []
                for e in prof.events():
                    if e.device_type == CUDA:
                        items.append((e.name, e.time_range.end - e.time_range.start))
            kern = [(nm, t) for (nm, t) in items
                    if not nm.startswith(("Memcpy", "Memset"))]
            other = [(nm, t) for (nm, t) in items
                     if nm.startswith(("Memcpy", "Memset"))]
            by_name = {}
            for nm, t in kern:
                c, s = by_name.get(nm, (0, 0.0))
                by_name[nm] = (c + 1, s + t)
            return (sum(t for _, t in kern) / n, len(kern) / n,
                    sum(t for _, t in other) / n, len(other) / n, by_name)

        prof_ok = True
        try:
            g_kus, g_kcnt, g_mus, g_mcnt, g_names = profile_kernels(run_graph)
            e_kus, e_kcnt, e_mus, e_mcnt, _ = profile_kernels(run_eager)
            if g_kcnt == 0:
                log("  WARNING: profiler saw no kernels for the graph replays")
                prof_ok = False
            log("  graph replay, top kernels per token (count, us):")
            for nm, (c, s) in sorted(g_names.items(), key=lambda kv: -kv[1][1])[:12]:
                log(f"    {c / 10:6.1f}  {s / 10:9.2f}  {nm[:110]}")
        except Exception as ex:
            log(f"  WARNING: profiling failed: {ex!r}")
            prof_ok = False

        lines = [
            f"| PyTorch{' bf16' if args.bf16 else ''} | eager µs/token | CUDA graph µs/token |",
            "|---|---:|---:|",
            f"| T = {T:,} (step at p = {T - 1}) | {eager_us:.1f} | {graph_us:.1f} |",
            "",
            f"- torch {torch.__version__} (CUDA {torch.version.cuda}), device: {dev_name}",
            f"- model: {L} layers, d={d}, {H} heads, vocab {V}, ctx {T}, "
            f"{'bf16 (weights, activations, caches)' if args.bf16 else 'fp32 (TF32 off)'}, "
            f"median of {args.rounds} rounds x {args.tokens} tokens",
        ]
        if prof_ok:
            lines += [
                f"- CUDA graph, profiler (10 replays): summed kernel time {g_kus:.1f} µs/token, "
                f"{g_kcnt:.1f} kernels/token (+ {g_mcnt:.1f} memcpy/memset, {g_mus:.1f} µs)",
                f"- eager, profiler (10 steps): summed kernel time {e_kus:.1f} µs/token, "
                f"{e_kcnt:.1f} kernels/token (+ {e_mcnt:.1f} memcpy/memset, {e_mus:.1f} µs)",
            ]
        else:
            lines.append("- profiler kernel summary: n/a")
        log("")
        for ln in lines:
            log(ln)
        with open(os.path.join(args.out, "torch-results.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    if not prof_ok:
        soft_fail = True
    log("done" + (" (profiler summary missing)" if soft_fail else ""))
    return 3 if soft_fail else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException as ex:  # noqa: BLE001 - report and exit non-zero
        import traceback
        traceback.print_exc()
        print(f"FAIL: {ex!r}", flush=True)
        sys.exit(1)
