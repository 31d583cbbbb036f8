# A loop over n structs of F floats, W structs per iteration, summing K fields: one span load and K
# shuffles ("span"), K gathers ("gather"), or ("rows", K >= 4) one 4-float row per struct and chunk of
# four fields transposed in 128-bit blocks, as MemoryWidener.transposedRows emits it.
# Usage: span_vs_gather.py W F K span|gather|rows > k.ll
import sys
# a loop over n structs of F floats; lane group of W structs per iteration; sums K fields
W,F,K,var=int(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3]),sys.argv[4]
o=[]
o.append(f"define void @run(ptr %p, i64 %n, ptr %out) {{\nentry:\n  br label %loop\nloop:\n  %i = phi i64 [0, %entry], [%inext, %loop]\n  %acc = phi <{W} x float> [zeroinitializer, %entry], [%accn, %loop]")
o.append(f"  %off = mul i64 %i, {F}\n  %base = getelementptr float, ptr %p, i64 %off")
if var=="span":
    nn=(W-1)*F+K
    o.append(f"  %s = load <{nn} x float>, ptr %base, align 4")
    for j in range(K):
        idx=", ".join(f"i32 {k*F+j}" for k in range(W))
        o.append(f"  %v{j} = shufflevector <{nn} x float> %s, <{nn} x float> poison, <{W} x i32> <{idx}>")
elif var=="rows":
    # one 4-element row per lane and chunk of 4 fields (the last chunk ends at field K-1), transposed
    # in 128-bit blocks: rows m, m+4, ... concatenated, then unpack-low/high and the two-pair shuffles
    assert K >= 4 and W % 4 == 0
    starts=list(range(0, K-3, 4))
    if K % 4: starts.append(K-4)
    def cat(vs, n):
        while len(vs) > 1:
            nv=[]
            for a in range(0, len(vs), 2):
                o.append(f"  %c{cat.n} = shufflevector <{n} x float> {vs[a]}, <{n} x float> {vs[a+1]}, <{2*n} x i32> <" + ", ".join(f"i32 {x}" for x in range(2*n)) + ">")
                nv.append(f"%c{cat.n}"); cat.n+=1
            vs=nv; n*=2
        return vs[0]
    cat.n=0
    done=set()
    for cs in starts:
        rows=[]
        for k in range(W):
            o.append(f"  %ra{cs}_{k} = getelementptr float, ptr %base, i64 {k*F+cs}")
            o.append(f"  %r{cs}_{k} = load <4 x float>, ptr %ra{cs}_{k}, align 4")
            rows.append(f"%r{cs}_{k}")
        X=[cat([rows[m+4*b] for b in range(W//4)], 4) for m in range(4)]
        def sh(a, c, pat, name):
            idx=", ".join(f"i32 {x}" for b in range(W//4) for x in pat(b))
            o.append(f"  {name} = shufflevector <{W} x float> {a}, <{W} x float> {c}, <{W} x i32> <{idx}>")
        sh(X[0], X[1], lambda b: [4*b, W+4*b, 4*b+1, W+4*b+1], f"%t0_{cs}")
        sh(X[0], X[1], lambda b: [4*b+2, W+4*b+2, 4*b+3, W+4*b+3], f"%t1_{cs}")
        sh(X[2], X[3], lambda b: [4*b, W+4*b, 4*b+1, W+4*b+1], f"%t2_{cs}")
        sh(X[2], X[3], lambda b: [4*b+2, W+4*b+2, 4*b+3, W+4*b+3], f"%t3_{cs}")
        for j in range(4):
            f=cs+j
            if f in done: continue
            done.add(f)
            a,c=(f"%t0_{cs}",f"%t2_{cs}") if j<2 else (f"%t1_{cs}",f"%t3_{cs}")
            lo=(j%2)*2
            sh(a, c, lambda b: [4*b+lo, 4*b+lo+1, W+4*b+lo, W+4*b+lo+1], f"%v{f}")
else:
    steps=", ".join(f"i32 {k*F}" for k in range(W))
    o.append(f"  %g = getelementptr float, ptr %base, <{W} x i32> <{steps}>")
    for j in range(K):
        o.append(f"  %a{j} = getelementptr float, <{W} x ptr> %g, i64 {j}")
        o.append(f"  %v{j} = call <{W} x float> @llvm.masked.gather.v{W}f32.v{W}p0(<{W} x ptr> %a{j}, i32 4, <{W} x i1> splat (i1 true), <{W} x float> poison)")
acc="%acc"
for j in range(K):
    o.append(f"  %r{j} = fadd <{W} x float> {acc}, %v{j}"); acc=f"%r{j}"
o.append(f"  %accn = fadd <{W} x float> {acc}, zeroinitializer\n  %inext = add i64 %i, {W}\n  %c = icmp ult i64 %inext, %n\n  br i1 %c, label %loop, label %exit\nexit:\n  store <{W} x float> %accn, ptr %out, align 4\n  ret void\n}}")
o.append(f"declare <{W} x float> @llvm.masked.gather.v{W}f32.v{W}p0(<{W} x ptr>, i32, <{W} x i1>, <{W} x float>)")
print("\n".join(o))
