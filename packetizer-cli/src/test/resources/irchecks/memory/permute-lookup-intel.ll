; Byte-valued constant tables on an Intel AVX2 core (issue 16, twenty-first round): haswell W8, where every vpermd runs
; on the one shuffle port, so the 256- and 128-entry tables (8 and 4 vpermd and 7 and 3 blends per lookup) take the gather
; routes (here word gathers: the aligned 4-byte words holding the bytes), each with a remark naming the route not taken
; and why; the 64-entry table keeps its 2 vpermd and 1 blend. The AMD twin, permute-lookup-zen.ll, permutes all three.
; Fails with packetizer.permuteLookupEntries.intel=256 (the rule before: 14 vpermd, no gather; checked).
; RUN: packetize -f f -w 8 --params vv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x i32> %a, <8 x i32> %b)
; CHECK-NOT:   permd
; CHECK:       @llvm.x86.avx2.gather.d.d.256(<8 x i32> zeroinitializer, ptr nonnull @big,
; CHECK-NOT:   permd
; CHECK:       @llvm.x86.avx2.gather.d.d.256(<8 x i32> zeroinitializer, ptr nonnull @mid,
; CHECK-NOT:   gather
; CHECK:       call <8 x i32> @llvm.x86.avx2.permd(
; CHECK-NEXT:  call <8 x i32> @llvm.x86.avx2.permd(
; CHECK-NOT:   permd
; CHECK-NOT:   gather
; CHECK:       ret <8 x i32>
; SHAPES:      table lookup in constant @big (256 x i8, values 0..255): not as 8 dword permutes in registers (AVX2 vpermd, 4 entries per dword, a variable shift, 7 blends on index bits): the target (haswell) is an Intel core, where every vpermd takes the one shuffle port
; SHAPES:      table lookup in constant @mid (128 x i8, values 0..255): not as 4 dword permutes in registers (AVX2 vpermd, 4 entries per dword, a variable shift, 3 blends on index bits): the target (haswell) is an Intel core
; SHAPES:      table lookup in constant @small (64 x i8, values 0..255) became 2 dword permutes in registers (AVX2 vpermd, 4 entries per dword, a variable shift, 1 blend on index bits): no memory access
@big = internal unnamed_addr constant [256 x i8] c"\4D\F1\5A\0D\0F\1E\31\FD\41\45\B5\FB\49\50\2D\64\93\CD\9E\D5\DE\DB\40\A1\E5\4B\A4\56\46\CF\2A\02\0C\18\4F\76\E1\0E\42\DC\7B\22\6C\E3\A7\C7\72\6A\C1\97\EE\FA\0B\F7\19\AB\88\3A\65\39\F8\91\F9\B3\5C\69\F0\84\6E\B2\F6\30\01\75\23\D4\5B\D1\82\AE\90\36\4C\C4\61\96\1B\F3\CC\43\53\9F\20\E0\BC\AD\D8\BF\B9\52\98\B6\BE\15\BB\D0\04\D6\D9\21\8B\A5\24\FC\07\86\D3\B4\34\67\9B\DA\47\14\B8\70\77\3F\60\A0\9A\EC\E6\AF\3D\9C\C2\A3\5F\E9\2C\10\EA\1A\3E\4E\58\55\59\2B\F2\1C\8E\A9\92\38\85\99\8C\E8\7D\ED\7E\28\17\06\44\C3\C6\51\62\80\73\5D\4A\DD\89\E7\C8\33\63\B7\F5\8F\F4\12\94\A8\AC\35\32\13\EF\78\09\AA\2F\26\7C\66\57\BA\8D\29\74\D2\1F\16\DF\27\05\EB\A6\1D\E2\7F\8A\FF\08\71\9D\68\C5\BD\6F\0A\B1\E4\3B\C0\CB\25\11\6D\95\5E\03\00\C9\3C\87\81\2E\83\CE\79\CA\37\D7\7A\48\A2\FE\B0\6B\54", align 16
@mid = internal unnamed_addr constant [128 x i8] c"\0B\07\22\6B\34\15\32\24\01\75\49\1B\60\2F\12\4D\51\62\1A\5C\0E\78\20\69\77\63\5F\11\7C\5D\3F\6D\6F\0C\14\58\00\21\45\73\13\72\44\48\7F\10\2B\2C\3B\2E\2A\79\30\4A\6A\65\46\67\5B\26\6C\17\70\16\3D\04\0A\1D\3E\6E\56\7D\1E\3A\36\55\4B\23\1F\05\37\06\03\1C\64\33\31\7E\7A\3C\38\5A\52\57\02\76\40\39\74\50\66\53\09\0D\35\54\28\71\2D\19\7B\68\4E\08\18\47\61\43\4F\59\25\27\42\29\5E\4C\41\0F", align 16
@small = internal unnamed_addr constant [64 x i8] c"\15\21\29\1F\1A\12\24\39\25\3F\3B\10\13\0F\08\28\22\05\14\35\2F\34\2E\09\03\23\2B\00\07\0E\3E\1C\36\3D\20\04\01\17\16\02\0D\0C\06\31\33\3A\30\0B\32\3C\2A\27\37\1B\38\1D\19\0A\18\2D\11\2C\26\1E", align 16

define i32 @f(i32 %a, i32 %b) {
entry:
  %i = and i32 %a, 255
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds [256 x i8], ptr @big, i64 0, i64 %x
  %e = load i8, ptr %p, align 1
  %ez = zext i8 %e to i32
  %j = and i32 %b, 127
  %y = zext nneg i32 %j to i64
  %q = getelementptr inbounds [128 x i8], ptr @mid, i64 0, i64 %y
  %m = load i8, ptr %q, align 1
  %mz = zext i8 %m to i32
  %s = add nuw nsw i32 %ez, %mz
  %k = and i32 %s, 63
  %z = zext nneg i32 %k to i64
  %t = getelementptr inbounds [64 x i8], ptr @small, i64 0, i64 %z
  %n = load i8, ptr %t, align 1
  %nz = zext i8 %n to i32
  %r = add nuw nsw i32 %s, %nz
  ret i32 %r
}
