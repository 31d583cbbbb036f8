; One function: the command packetizes it without -f.
source_filename = "single.ll"

define i32 @absdiff(i32 %a, i32 %b) {
entry:
  %lt = icmp slt i32 %a, %b
  br i1 %lt, label %neg, label %pos
neg:
  %d1 = sub i32 %b, %a
  br label %out
pos:
  %d2 = sub i32 %a, %b
  br label %out
out:
  %d = phi i32 [ %d1, %neg ], [ %d2, %pos ]
  ret i32 %d
}
