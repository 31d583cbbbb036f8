# A loop over n structs of F floats, W structs per iteration, summing K fields: one span load and K
# shuffles ("span") or K gathers ("gather"). Usage: span_vs_gather.py W F K span|gather > k.ll
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
