#!/usr/bin/env python3
"""Runs the test kernels natively under the sanitizers to check the rules every kernel must keep.

For each manifest entry (or the families/names given) this generates a C driver that calls the
kernel on random inputs from its manifest ranges (plus the range ends and the manifest samples), in
packets of 16 lanes: scalar parameters follow their kinds (varying: a value per lane; uniform: one
value per packet; linear: base + lane * step), pointer parameters get buffers laid out as the
manifest says (soa/varying: one buffer per lane; uniform: one shared buffer; linear: one array with
lane k at base + k * step bytes), initialised as declared. Each packet runs twice, lanes in order
and in reverse, from the same initial memory. The script reports

  * undefined behaviour (UBSan: signed overflow, bad shifts, division by zero, out-of-range
    float-to-int conversions) and out-of-bounds or wild memory accesses (ASan);
  * lanes that are not independent (results, memory or record() calls that change with the order in
    which the lanes run);
  * with --coverage: branches of the C source that no input took (gcov), a hint that a kernel's
    ranges or samples do not make its branches go both ways.

Needs python3 and gcc with libubsan/libasan (and gcov for --coverage). Not part of the build: run it
after writing or changing a kernel, e.g.

    testdata-bitcode/tools/check_kernels.py                 # all kernels
    testdata-bitcode/tools/check_kernels.py memory if01     # a family and one kernel
    testdata-bitcode/tools/check_kernels.py --coverage loop
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LANES = 16
HERE = os.path.dirname(os.path.abspath(__file__))
MAIN = os.path.join(HERE, "..", "src", "main")
SCALARS = {"float": ("float", 4), "double": ("double", 8), "i8": ("int8_t", 1), "i16": ("int16_t", 2),
           "i32": ("int32_t", 4), "i64": ("int64_t", 8), "ptr": ("void *", 8)}


# ---- LLVM type text -> byte layout -------------------------------------------------------------

def parse_llvm_type(text):
    """'{ float, [4 x i32] }' -> ('struct', [('scalar', 'float'), ('array', 4, ('scalar', 'i32'))])"""
    tokens = re.findall(r"\[|\]|\{|\}|,|\bx\b|[A-Za-z0-9_.]+", text)
    pos = 0

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def parse():
        t = take()
        if t == "[":
            n = int(take())
            if take() != "x":
                raise ValueError("bad array type: " + text)
            elem = parse()
            if take() != "]":
                raise ValueError("bad array type: " + text)
            return ("array", n, elem)
        if t == "{":
            members = [parse()]
            while tokens[pos] == ",":
                take()
                members.append(parse())
            if take() != "}":
                raise ValueError("bad struct type: " + text)
            return ("struct", members)
        if t not in SCALARS:
            raise ValueError("unsupported type %s in %s" % (t, text))
        return ("scalar", t)

    result = parse()
    if pos != len(tokens):
        raise ValueError("trailing text in type: " + text)
    return result


def layout(t):
    """(size, alignment, [(offset, scalar type name)]) with the x86-64 C layout."""
    if t[0] == "scalar":
        size = SCALARS[t[1]][1]
        return size, size, [(0, t[1])]
    if t[0] == "array":
        size, align, leaves = layout(t[2])
        return size * t[1], align, [(o + i * size, s) for i in range(t[1]) for o, s in leaves]
    offset, align, leaves = 0, 1, []
    for member in t[1]:
        size, a, sub = layout(member)
        offset = (offset + a - 1) // a * a
        leaves += [(o + offset, s) for o, s in sub]
        offset += size
        align = max(align, a)
    return (offset + align - 1) // align * align, align, leaves


# ---- driver generation ---------------------------------------------------------------------------

def c_param_type(p):
    t = p["type"]
    if t.startswith("i") and p.get("range") and p["range"][0] >= 0 and t != "i64":
        return "u" + SCALARS[t][0]  # unsigned C types for non-negative ranges (uint8_t, ...)
    if t == "i64" and p.get("range") and p["range"][0] >= 0:
        return "uint64_t"
    return SCALARS[t][0]


def c_literal(ct, v):
    if "int" in ct:
        return "(%s)%dLL" % (ct, int(v)) if int(v) >= -(2 ** 63) + 1 else "(%s)INT64_MIN" % ct
    return "(%s)%r" % (ct, float(v))


def draw(ct, p):
    lo, hi = p["range"]
    if p["type"].startswith("i"):
        return "(%s)rand_int(%dLL, %dLL)" % (ct, lo, hi)
    return "(%s)(%r + %r * rand01())" % (ct, float(lo), float(hi - lo))


def generate(kernels, trials):
    out = ["""#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static uint64_t rng;
static double rand01(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (double)(rng >> 11) * 0x1p-53; }
static int64_t rand_int(int64_t lo, int64_t hi) {
  int64_t r = lo + (int64_t)(rand01() * ((double)hi - (double)lo + 1.0));
  return r > hi ? hi : r;
}
static int current_lane, failures;
static int record_log[%(L)d][256], record_count[%(L)d];
void record(int v) { if (record_count[current_lane] < 256) record_log[current_lane][record_count[current_lane]] = v; record_count[current_lane]++; }
""" % {"L": LANES}]
    for k in kernels:
        ret = k["returns"]["type"]
        rct = "void" if ret == "void" else SCALARS[ret][0]
        out.append("extern %s %s(%s);\n" % (rct, k["function"], ", ".join(c_param_type(p) for p in k["params"]) or "void"))
    for n, k in enumerate(kernels):
        out.append(generate_one(n, k, trials))
    out.append("int main(void) {\n")
    for n, k in enumerate(kernels):
        out.append("  run_%d();\n" % n)
    out.append('  printf("%d kernels checked, %%d problems\\n", failures);\n  return failures != 0;\n}\n' % len(kernels))
    return "".join(out)


def generate_one(n, k, trials):
    params, name = k["params"], k["name"]
    ret = k["returns"]["type"]
    rct = None if ret == "void" else SCALARS[ret][0]
    w = []
    w.append("static void run_%d(void) {\n  for (int trial = 0; trial < %d; ++trial) {\n" % (n, trials))
    for i, p in enumerate(params):
        if p["type"] == "ptr":
            continue
        ct = c_param_type(p)
        lo, hi = p["range"]
        w.append("    %s v%d[%d];\n" % (ct, i, LANES))
        if p["kind"] == "linear":
            w.append("    { %s base = %s; for (int l = 0; l < %d; ++l) v%d[l] = (%s)(base + l * %d); }\n"
                     % (ct, draw(ct, p), LANES, i, ct, p["step"]))
        elif p["kind"] == "uniform":
            w.append("    { %s u = %s; if (trial == 1) u = %s; if (trial == 2) u = %s; for (int l = 0; l < %d; ++l) v%d[l] = u; }\n"
                     % (ct, draw(ct, p), c_literal(ct, lo), c_literal(ct, hi), LANES, i))
        else:
            w.append("    for (int l = 0; l < %d; ++l) v%d[l] = %s;\n" % (LANES, i, draw(ct, p)))
            w.append("    if (trial == 1) { v%d[0] = %s; v%d[1] = %s; }\n" % (i, c_literal(ct, lo), i, c_literal(ct, hi)))
    samples = k.get("samples") or []
    if samples:
        w.append("    if (trial == 3) {\n")
        for lane in range(LANES):
            s = samples[lane % len(samples)]
            for i, p in enumerate(params):
                if p["type"] == "ptr":
                    continue
                ct = c_param_type(p)
                if p["kind"] == "linear":
                    w.append("      v%d[%d] = (%s)(%s + %d);\n" % (i, lane, ct, c_literal(ct, samples[0][i]), lane * p["step"]))
                elif p["kind"] == "uniform":
                    w.append("      v%d[%d] = %s;\n" % (i, lane, c_literal(ct, samples[0][i])))
                else:
                    w.append("      v%d[%d] = %s;\n" % (i, lane, c_literal(ct, s[i])))
        w.append("    }\n")
    memory = []
    for i, p in enumerate(params):
        if p["type"] != "ptr":
            continue
        size, _, leaves = layout(parse_llvm_type(p["pointee"]))
        buffers = LANES if p["kind"] in ("soa", "varying") else 1
        nbytes = size * p["count"]
        memory.append((i, p, size, leaves, buffers, nbytes))
        w.append("    unsigned char *m%d[%d], *first%d[%d];\n" % (i, buffers, i, buffers))
        w.append("    for (int b = 0; b < %d; ++b) { m%d[b] = malloc(%d); first%d[b] = malloc(%d); }\n"
                 % (buffers, i, nbytes, i, nbytes))
    w.append("    uint64_t seed = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)trial * 7919ULL + %dULL);\n" % n)
    if rct:
        w.append("    %s res[2][%d];\n" % (rct, LANES))
    w.append("    int rec_first[%d][256], rec_first_n[%d];\n" % (LANES, LANES))
    for order in (0, 1):
        w.append("    rng = seed;\n")
        for i, p, size, leaves, buffers, nbytes in memory:
            w.append("    for (int b = 0; b < %d; ++b) {\n      unsigned char *q = m%d[b];\n      memset(q, 0, %d);\n"
                     % (buffers, i, nbytes))
            init = p["init"]
            if init != "zero":
                kind = "random" if "random" in init else "iota"
                a, c = init[kind]
                w.append("      for (int e = 0; e < %d; ++e) {\n" % p["count"])
                for li, (off, st) in enumerate(leaves):
                    ct = SCALARS[st][0]
                    if st == "ptr":
                        continue
                    if kind == "iota":
                        val = "(%s)(%r + %r * (double)(e * %d + %d))" % (ct, float(a), float(c), len(leaves), li)
                    elif st in ("float", "double"):
                        val = "(%s)(%r + %r * rand01())" % (ct, float(a), float(c - a))
                    else:
                        val = "(%s)rand_int(%dLL, %dLL)" % (ct, int(a), int(c))
                    w.append("        { %s t = %s; memcpy(q + e * %d + %d, &t, sizeof t); }\n" % (ct, val, size, off))
                w.append("      }\n")
            w.append("    }\n")
        w.append("    memset(record_count, 0, sizeof record_count);\n")
        w.append("    for (int step = 0; step < %d; ++step) {\n      int l = %s;\n      current_lane = l;\n"
                 % (LANES, "step" if order == 0 else "%d - step" % (LANES - 1)))
        args = []
        for i, p in enumerate(params):
            if p["type"] != "ptr":
                args.append("v%d[l]" % i)
            elif p["kind"] in ("soa", "varying"):
                args.append("(void *)m%d[l]" % i)
            elif p["kind"] == "uniform":
                args.append("(void *)m%d[0]" % i)
            else:
                args.append("(void *)(m%d[0] + l * %d)" % (i, p["step"]))
        call = "%s(%s)" % (k["function"], ", ".join(args))
        w.append("      %s;\n    }\n" % (("res[%d][l] = " % order + call) if rct else call))
        if order == 0:
            for i, p, size, leaves, buffers, nbytes in memory:
                w.append("    for (int b = 0; b < %d; ++b) memcpy(first%d[b], m%d[b], %d);\n" % (buffers, i, i, nbytes))
            w.append("    memcpy(rec_first_n, record_count, sizeof rec_first_n);\n"
                     "    memcpy(rec_first, record_log, sizeof rec_first);\n")
    if rct:
        w.append('    if (memcmp(res[0], res[1], sizeof res[0])) { printf("%s: results depend on the lane order (trial %%d)\\n", trial); failures++; }\n' % name)
    for i, p, size, leaves, buffers, nbytes in memory:
        w.append('    for (int b = 0; b < %d; ++b) if (memcmp(first%d[b], m%d[b], %d)) { printf("%s: memory of %s depends on the lane order (trial %%d)\\n", trial); failures++; break; }\n'
                 % (buffers, i, i, nbytes, name, p["name"]))
        w.append("    for (int b = 0; b < %d; ++b) { free(m%d[b]); free(first%d[b]); }\n" % (buffers, i, i))
    w.append('    if (memcmp(rec_first_n, record_count, sizeof rec_first_n) || memcmp(rec_first, record_log, sizeof rec_first)) { printf("%s: record() calls depend on the lane order (trial %%d)\\n", trial); failures++; }\n' % name)
    w.append("  }\n}\n")
    return "".join(w)


# ---- build and run -------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("select", nargs="*", help="families or kernel names (default: all)")
    ap.add_argument("--trials", type=int, default=200, help="packets per kernel (default 200)")
    ap.add_argument("--coverage", action="store_true", help="report branches no input took (gcc --coverage, no sanitizers)")
    ap.add_argument("--keep", help="build in this folder and keep it")
    args = ap.parse_args()

    manifest = json.load(open(os.path.join(MAIN, "manifest", "manifest.json")))
    kernels = [k for k in manifest["kernels"]
               if not args.select or k["name"] in args.select or k["family"] in args.select]
    if not kernels:
        sys.exit("no kernel matches " + " ".join(args.select))
    build = args.keep or tempfile.mkdtemp(prefix="check-kernels-")
    os.makedirs(build, exist_ok=True)
    csrc = os.path.join(MAIN, "c")
    with open(os.path.join(build, "driver.c"), "w") as f:
        f.write(generate(kernels, args.trials))

    flags = ["-O0", "--coverage"] if args.coverage else \
        ["-O1", "-g", "-fsanitize=undefined,address,float-cast-overflow", "-fno-sanitize-recover=all"]
    objects, sources = [], sorted({k["file"] for k in kernels})
    for rel in sources:
        name = rel[:-2].replace("/", "_")
        obj = os.path.join(build, name + ".o")
        # compile a copy next to the objects so that gcov finds everything in one folder
        copy = os.path.join(build, name + ".c")
        with open(os.path.join(csrc, rel)) as s, open(copy, "w") as d:
            d.write(s.read().replace('#include "../kernel.h"', '#include "%s"' % os.path.join(csrc, "kernel.h")))
        subprocess.run(["gcc", "-std=gnu11", "-w"] + flags + ["-c", copy, "-o", obj], cwd=build, check=True)
        objects.append(obj)
    exe = os.path.join(build, "driver")
    subprocess.run(["gcc", "-w"] + flags + [os.path.join(build, "driver.c")] + objects + ["-lm", "-o", exe], cwd=build, check=True)
    run = subprocess.run([exe], cwd=build, timeout=1800)
    status = run.returncode
    if args.coverage:
        for rel in sources:
            name = rel[:-2].replace("/", "_")
            subprocess.run(["gcov", "-b", name + ".c"], cwd=build, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            line = ""
            for text in open(os.path.join(build, name + ".c.gcov")):
                if re.match(r"\s*[-#0-9]+\*?:", text):
                    line = text.rstrip()
                elif re.search(r"taken 0%|never executed", text):
                    print("%s: %s  <- %s" % (rel, line.strip(), text.strip()))
    if not args.keep:
        subprocess.run(["rm", "-rf", build])
    sys.exit(status)


if __name__ == "__main__":
    main()
