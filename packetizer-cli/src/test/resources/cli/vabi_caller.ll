; --vector-abi: a scalar function with a divergent loop and a loop that calls it. Publishing the
; packet function under the vector function ABI annotates the call with the variant's name.
source_filename = "vabi_caller.ll"
target triple = "x86_64-pc-linux-gnu"

define i32 @steps(i32 %n) #0 {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %s = phi i32 [ 0, %entry ], [ %s1, %h ]
  %s1 = add i32 %s, %i
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %h, label %x
x:
  ret i32 %s1
}

define void @all_steps(ptr %in, ptr %out, i64 %len) #0 {
entry:
  %empty = icmp eq i64 %len, 0
  br i1 %empty, label %done, label %body
body:
  %k = phi i64 [ 0, %entry ], [ %k1, %body ]
  %pi = getelementptr inbounds i32, ptr %in, i64 %k
  %v = load i32, ptr %pi, align 4
  %r = call i32 @steps(i32 %v)
  %po = getelementptr inbounds i32, ptr %out, i64 %k
  store i32 %r, ptr %po, align 4
  %k1 = add nuw i64 %k, 1
  %more = icmp ult i64 %k1, %len
  br i1 %more, label %body, label %done
done:
  ret void
}

attributes #0 = { nounwind "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" }
