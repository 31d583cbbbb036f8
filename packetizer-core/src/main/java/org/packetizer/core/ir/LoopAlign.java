package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/**
 * Loop alignment as IR metadata ({@code !llvm.loop} with {@code !{!"llvm.loop.align", i32 N}}, which
 * LLVM's block placement honours per loop since LLVM 17): a hot loop's first instruction starts on an
 * N-byte boundary whatever precedes it in the function or the module, so that its speed stops
 * depending on where it lands (issue 16: binomial's 41-byte inner loop ran about 30 % slower when it
 * straddled a 64-byte line). Per loop and in the IR, so it survives inlining and needs no process-wide
 * LLVM option.
 */
public final class LoopAlign {
  private LoopAlign() {}

  /**
   * Sets {@code llvm.loop.align} = {@code bytes} on the latch branch of every innermost loop of {@code
   * f} whose latch carries no {@code !llvm.loop} yet. Returns the number of loops marked.
   */
  public static int alignInnermostLoops(Function f, int bytes) {
    if (bytes <= 0 || Integer.bitCount(bytes) != 1) throw new IllegalArgumentException("loop alignment " + bytes);
    List<Block> latches = innermostLatches(f);
    int kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(f.ref())), "llvm.loop", 9);
    List<Value> todo = new ArrayList<>();
    for (Block latch : latches) {
      Value br = latch.terminator();
      if (br == null || br.opcode() != Opcode.BR) continue;
      LLVMValueRef old = LLVMGetMetadata(br.ref(), kind);
      if (old != null && !old.isNull()) continue;
      todo.add(br);
    }
    if (todo.isEmpty()) return 0;
    // (the C API makes no self-referential node: one distinct loop ID per loop, parsed in f's context;
    // metadata belongs to the context, so the IDs outlive the scratch module)
    StringBuilder ir = new StringBuilder("define void @ids() {\ne:\n  br label %l0\n");
    for (int i = 0; i < todo.size(); i++) {
      ir.append("l").append(i).append(":\n  br label %l").append(i + 1 < todo.size() ? i + 1 : i)
          .append(", !llvm.loop !").append(i).append('\n');
    }
    ir.append("}\n");
    int a = todo.size();
    for (int i = 0; i < a; i++) ir.append('!').append(i).append(" = distinct !{!").append(i).append(", !").append(a).append("}\n");
    ir.append('!').append(a).append(" = !{!\"llvm.loop.align\", i32 ").append(bytes).append("}\n");
    LlvmContext ctx = LlvmContext.borrowed(LLVMGetTypeContext(LLVMTypeOf(f.ref())));
    try (LlvmModule scratch = ctx.parseIr(ir.toString(), "loop-align")) {
      List<Block> blocks = scratch.function("ids").orElseThrow().blocks();
      for (int i = 0; i < todo.size(); i++) {
        LLVMValueRef id = LLVMGetMetadata(blocks.get(i + 1).terminator().ref(), kind);
        LLVMSetMetadata(todo.get(i).ref(), kind, id);
      }
    }
    return todo.size();
  }

  /**
   * The mark of a loop over the lanes on a rarely taken path (e.g. the byte window's page-end path,
   * {@code MemoryWidener}): such a loop is not aligned, and a loop around it still counts as innermost,
   * so that the hot loop keeps its alignment (the loop over the lanes is not what runs). The mark is
   * loop metadata on the loop's back edge ({@link #markColdLaneLoop}: {@code !llvm.loop !{self,
   * !{!"packetizer.cold.lanes"}}}), which LLVM's passes keep with the loop, not a block name: the
   * packetizer's values and blocks have no names unless asked ({@code PacketizerOptions.valueNames}).
   * A top-level packetization removes the marks at its end ({@link #unmarkColdLaneLoops}), so the
   * published IR carries none.
   */
  public static final String COLD_LANE_LOOP = "packetizer.cold.lanes";

  /** Cold-lane marks made on this thread (a packetization removes marks only when it made some). */
  private static final ThreadLocal<long[]> MARKS = ThreadLocal.withInitial(() -> new long[1]);

  /** How many cold-lane marks this thread has made so far. */
  public static long marksMade() { return MARKS.get()[0]; }

  /**
   * Marks the loop whose back edge is the branch {@code latchBranch} as a loop over the lanes on a rare
   * path ({@link #COLD_LANE_LOOP}).
   */
  public static void markColdLaneLoop(Value latchBranch) {
    if (latchBranch.opcode() != Opcode.BR) throw new IllegalArgumentException("not a branch: " + latchBranch.print());
    org.bytedeco.llvm.LLVM.LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(latchBranch.ref()));
    int kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
    String ir = "define void @ids() {\ne:\n  br label %l\nl:\n  br label %l, !llvm.loop !0\n}\n"
        + "!0 = distinct !{!0, !1}\n!1 = !{!\"" + COLD_LANE_LOOP + "\"}\n";
    try (LlvmModule scratch = LlvmContext.borrowed(c).parseIr(ir, "cold-lanes")) {
      LLVMValueRef id = LLVMGetMetadata(scratch.function("ids").orElseThrow().blocks().get(1).terminator().ref(), kind);
      LLVMSetMetadata(latchBranch.ref(), kind, id);
    }
    MARKS.get()[0]++;
  }

  /** Whether the loop ID {@code id} (an {@code !llvm.loop} node) holds the cold-lane mark. */
  private static boolean holdsMark(LLVMValueRef id) {
    int n = LLVMGetMDNodeNumOperands(id);
    if (n < 2) return false;
    org.bytedeco.javacpp.PointerPointer<LLVMValueRef> ops = new org.bytedeco.javacpp.PointerPointer<>(n);
    try {
      LLVMGetMDNodeOperands(id, ops);
      for (int i = 1; i < n; i++) {
        LLVMValueRef op = ops.get(LLVMValueRef.class, i);
        if (op == null || op.isNull() || LLVMIsAMDNode(op) == null || LLVMIsAMDNode(op).isNull()) continue;
        if (LLVMGetMDNodeNumOperands(op) != 1) continue;
        org.bytedeco.javacpp.PointerPointer<LLVMValueRef> first = new org.bytedeco.javacpp.PointerPointer<>(1);
        try {
          LLVMGetMDNodeOperands(op, first);
          LLVMValueRef str = first.get(LLVMValueRef.class, 0);
          if (str == null || str.isNull() || LLVMIsAMDString(str) == null || LLVMIsAMDString(str).isNull()) continue;
          int[] len = new int[1];
          org.bytedeco.javacpp.BytePointer bp = LLVMGetMDString(str, len);
          if (bp == null || bp.isNull() || len[0] != COLD_LANE_LOOP.length()) continue;
          byte[] bytes = new byte[len[0]];
          bp.get(bytes);
          if (COLD_LANE_LOOP.equals(new String(bytes, java.nio.charset.StandardCharsets.UTF_8))) return true;
        } finally {
          first.close();
        }
      }
      return false;
    } finally {
      ops.close();
    }
  }

  /** Whether one of a loop's latches carries the cold-lane mark. */
  static boolean isColdLaneLoop(List<Block> latches, int kind) {
    for (Block latch : latches) {
      Value br = latch.terminator();
      if (br == null) continue;
      LLVMValueRef id = LLVMGetMetadata(br.ref(), kind);
      if (id != null && !id.isNull() && holdsMark(id)) return true;
    }
    return false;
  }

  /**
   * Removes the cold-lane marks ({@link #markColdLaneLoop}) from {@code f}'s branches: loop IDs that hold
   * nothing else. Returns how many.
   */
  public static int unmarkColdLaneLoops(Function f) {
    if (f.isDeclaration()) return 0;
    int kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(f.ref())), "llvm.loop", 9);
    int n = 0;
    for (Block b : f.blocks()) {
      Value br = b.terminator();
      if (br == null || br.opcode() != Opcode.BR) continue;
      LLVMValueRef id = LLVMGetMetadata(br.ref(), kind);
      if (id == null || id.isNull() || LLVMGetMDNodeNumOperands(id) != 2 || !holdsMark(id)) continue;
      LLVMSetMetadata(br.ref(), kind, null);
      n++;
    }
    return n;
  }

  /**
   * The latches of the innermost loops of {@code f}: sources of back edges (to a block on the depth-first
   * search stack; the packet functions' control flow is reducible) whose loop body holds no other
   * loop's header, loops over the lanes on a rarely taken path ({@link #COLD_LANE_LOOP}) not counted
   * (and not returned).
   */
  /** Whether {@code f} has a loop (an innermost loop's latch). */
  public static boolean hasLoop(Function f) { return !innermostLatches(f).isEmpty(); }

  static List<Block> innermostLatches(Function f) {
    List<Block> blocks = f.blocks();
    if (blocks.isEmpty()) return List.of();
    Map<Block, List<Block>> preds = new HashMap<>();
    Map<Block, List<Block>> succs = new HashMap<>();
    for (Block b : blocks) {
      List<Block> s = b.successors();
      succs.put(b, s);
      for (Block t : s) preds.computeIfAbsent(t, k -> new ArrayList<>()).add(b);
    }
    // iterative depth-first search: back edges latch -> header
    Map<Block, List<Block>> latchesOf = new java.util.LinkedHashMap<>();
    Set<Block> onStack = new HashSet<>();
    Set<Block> seen = new HashSet<>();
    ArrayDeque<Object[]> stack = new ArrayDeque<>();
    Block entry = blocks.get(0);
    stack.push(new Object[] {entry, 0});
    seen.add(entry);
    onStack.add(entry);
    while (!stack.isEmpty()) {
      Object[] top = stack.peek();
      Block b = (Block) top[0];
      int i = (Integer) top[1];
      List<Block> s = succs.get(b);
      if (i < s.size()) {
        top[1] = i + 1;
        Block t = s.get(i);
        if (onStack.contains(t)) {
          latchesOf.computeIfAbsent(t, k -> new ArrayList<>()).add(b);
        } else if (seen.add(t)) {
          onStack.add(t);
          stack.push(new Object[] {t, 0});
        }
      } else {
        stack.pop();
        onStack.remove(b);
      }
    }
    List<Block> out = new ArrayList<>();
    int kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(f.ref())), "llvm.loop", 9);
    Set<Block> cold = new HashSet<>();
    for (var e : latchesOf.entrySet()) if (isColdLaneLoop(e.getValue(), kind)) cold.add(e.getKey());
    for (var e : latchesOf.entrySet()) {
      Block header = e.getKey();
      // the loop body: the header and every block that reaches a latch without passing the header
      Set<Block> body = new HashSet<>();
      body.add(header);
      ArrayDeque<Block> work = new ArrayDeque<>(e.getValue());
      while (!work.isEmpty()) {
        Block b = work.pop();
        if (!body.add(b)) continue;
        for (Block p : preds.getOrDefault(b, List.of())) if (!body.contains(p)) work.push(p);
      }
      if (cold.contains(header)) continue;
      // innermost: no other (not cold) loop's header in the body; walked over the body, which the
      // search above has paid for already (asking every header of the function instead was quadratic
      // in the number of loops: 3 % of a 5k-instruction nested-loop function's packetization)
      boolean innermost = true;
      for (Block other : body) {
        if (!other.equals(header) && latchesOf.containsKey(other) && !cold.contains(other)) {
          innermost = false;
          break;
        }
      }
      if (innermost) out.addAll(e.getValue());
    }
    return out;
  }
}
