; packetizer fuzz regression
; found: FuzzMain --mode stress --seed 2026 --first 73 --cases 1 (llvm-stress -seed=2026006151 -size=70)
; expect: clean
; bug: with kinds uuuuuv at W=16 and no scalar clean-up, INTERNAL "value %Cmp24 used as uniform but it
;   is varying": `select i1 %Cmp24, float %FC, float %FC` (both arms the same uniform value) is uniform
;   by the divergence analysis, and the emitter cloned it as a uniform instruction, which needs the
;   varying condition as a scalar. Fixed in PacketEmitter (a select with equal arms is that value).
;   Reduced: select-same-arms.ll.
; ModuleID = '/tmp/autogen.bc'
source_filename = "/tmp/autogen.bc"

define void @autogen_SD2026006151(ptr %0, ptr %1, ptr %2, i32 %3, i64 %4, i8 %5) {
BB:
  %A4 = alloca i64, align 8
  %A3 = alloca float, align 4
  %A2 = alloca i8, align 1
  %A1 = alloca i64, align 8
  %A = alloca i1, align 1
  %L = load <8 x float>, ptr %2, align 32
  store i64 311513, ptr %0, align 4
  %E = extractelement <4 x i16> zeroinitializer, i32 435205
  %Shuff = shufflevector <1 x i8> zeroinitializer, <1 x i8> zeroinitializer, <1 x i32> <i32 1>
  %I = insertelement <4 x i16> zeroinitializer, i16 0, i32 435205
  %B = add i8 -1, %5
  %Se = sext i8 %B to i64
  %Sl = select i1 true, i32 %3, i32 435205
  %Cmp = fcmp oeq double 0x955F407ECE5DAEFC, 0xB423E44237211CC0
  br label %CF49

CF49:                                             ; preds = %BB
  %L5 = load i16, ptr %0, align 2
  store <2 x i8> zeroinitializer, ptr %0, align 2
  %E6 = extractelement <2 x i16> zeroinitializer, i32 14957
  %Shuff7 = shufflevector <4 x i16> zeroinitializer, <4 x i16> zeroinitializer, <4 x i32> <i32 6, i32 0, i32 2, i32 4>
  %I8 = insertelement <4 x i16> zeroinitializer, i16 13577, i32 %3
  %B9 = mul i32 435205, 435205
  %Sl10 = select i1 true, i64 303189, i64 %4
  %Cmp11 = icmp ule i1 true, %Cmp
  br label %CF48

CF48:                                             ; preds = %CF48, %CF51, %CF49
  %L12 = load <4 x float>, ptr %0, align 16
  store float 0x42D4338800000000, ptr %A, align 4
  %E13 = extractelement <16 x i16> zeroinitializer, i32 14957
  %Shuff14 = shufflevector <1 x i8> zeroinitializer, <1 x i8> zeroinitializer, <1 x i32> poison
  %I15 = insertelement <4 x i16> zeroinitializer, i16 17265, i32 435205
  %FC = sitofp i1 true to float
  %Sl16 = select i1 true, i16 %L5, i16 -23223
  %Cmp17 = icmp slt <4 x i8> zeroinitializer, zeroinitializer
  %L18 = load <8 x i64>, ptr %0, align 64
  store i16 %Sl16, ptr %0, align 2
  %E19 = extractelement <16 x i16> zeroinitializer, i32 %B9
  %Shuff20 = shufflevector <16 x i16> zeroinitializer, <16 x i16> zeroinitializer, <16 x i32> <i32 31, i32 1, i32 3, i32 5, i32 7, i32 poison, i32 11, i32 13, i32 15, i32 poison, i32 poison, i32 21, i32 23, i32 25, i32 27, i32 29>
  %I21 = insertelement <2 x i16> zeroinitializer, i16 0, i32 26937
  %B22 = sub <8 x i64> %L18, %L18
  %Tr = trunc i16 %E13 to i8
  %Sl23 = select i1 true, i8 %5, i8 69
  %Cmp24 = icmp uge i8 %5, %Tr
  br i1 %Cmp24, label %CF48, label %CF51

CF51:                                             ; preds = %CF48
  %L25 = load <16 x i64>, ptr %0, align 128
  store double 0xA2F7AC1617F55694, ptr %0, align 8
  %E26 = extractelement <2 x i16> zeroinitializer, i32 435205
  %Shuff27 = shufflevector <4 x i8> zeroinitializer, <4 x i8> zeroinitializer, <4 x i32> <i32 3, i32 5, i32 7, i32 1>
  %I28 = insertelement <4 x i16> zeroinitializer, i16 17265, i32 %3
  %FC29 = sitofp i8 89 to double
  %Sl30 = select i1 %Cmp24, float %FC, float %FC
  %Cmp31 = icmp slt <4 x i16> %Shuff7, zeroinitializer
  %L32 = load <4 x i1>, ptr %0, align 1
  store double %FC29, ptr %0, align 8
  %E33 = extractelement <4 x i16> zeroinitializer, i32 435205
  %Shuff34 = shufflevector <4 x i16> zeroinitializer, <4 x i16> %I, <4 x i32> <i32 7, i32 1, i32 3, i32 5>
  %I35 = insertelement <4 x i16> %Shuff7, i16 %E6, i32 %B9
  %B36 = and <4 x i16> %I28, %Shuff34
  %FC37 = uitofp i8 89 to float
  %Sl38 = select <8 x i1> <i1 true, i1 false, i1 true, i1 false, i1 true, i1 false, i1 true, i1 false>, <8 x float> %L, <8 x float> %L
  %Cmp39 = icmp ne i1 true, %Cmp24
  br i1 %Cmp39, label %CF48, label %CF50

CF50:                                             ; preds = %CF51
  %L40 = load <2 x i32>, ptr %0, align 8
  store i64 303189, ptr %0, align 4
  %E41 = extractelement <16 x i64> %L25, i32 %Sl
  %Shuff42 = shufflevector <8 x i64> %B22, <8 x i64> %L18, <8 x i32> <i32 13, i32 15, i32 1, i32 3, i32 5, i32 poison, i32 9, i32 11>
  %I43 = insertelement <4 x i16> zeroinitializer, i16 0, i32 %3
  %B44 = udiv <4 x i16> %I28, zeroinitializer
  %FC45 = sitofp <2 x i8> zeroinitializer to <2 x float>
  %Sl46 = select i1 %Cmp39, <8 x i64> %Shuff42, <8 x i64> %L18
  %Cmp47 = icmp sgt i16 0, %E26
  br label %CF

CF:                                               ; preds = %CF50
  store i64 %E41, ptr %0, align 4
  store i8 %Tr, ptr %0, align 1
  store i1 %Cmp39, ptr %0, align 1
  store i16 %L5, ptr %0, align 2
  store double %FC29, ptr %A3, align 8
  ret void
}
