package org.packetizer.core.check;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.TargetObject;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Runs a scalar and a packet function for another instruction set under qemu-user, for {@link
 * DifferentialCheck}: the two functions and their trampolines are compiled to an object for the
 * target ({@link TargetObject}), linked by the cross GCC with a launcher the bundled clang compiled for
 * the target ({@code emulated-launcher.c}), and the launcher runs under qemu for as long as this
 * object is open, serving one call per request: the argument memory, every buffer of the run (with its
 * canaries) in, the result, every buffer and the log of the call's {@code record(int)} calls out. The check then compares exactly as it does for JIT
 * runs on the host.
 */
final class QemuExecutor implements AutoCloseable {
  /** Launcher objects per target (compiled once per process). */
  private static final Map<String, Path> LAUNCHERS = new ConcurrentHashMap<>();

  private final CrossTarget target;
  private final Path dir;
  private final Process process;
  private final OutputStream toLauncher;
  private final InputStream fromLauncher;
  private final List<TargetObject.Callable> callables;
  private final StringBuilder stderr = new StringBuilder();
  private final Thread stderrReader;

  private QemuExecutor(CrossTarget target, Path dir, Process process, List<TargetObject.Callable> callables) {
    this.target = target;
    this.dir = dir;
    this.process = process;
    this.toLauncher = new BufferedOutputStream(process.getOutputStream(), 1 << 16);
    this.fromLauncher = new BufferedInputStream(process.getInputStream(), 1 << 16);
    this.callables = callables;
    this.stderrReader = Thread.ofVirtual().start(() -> {
      try (InputStream in = process.getErrorStream()) {
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) > 0) {
          synchronized (stderr) {
            if (stderr.length() < 8192) stderr.append(new String(buf, 0, n, StandardCharsets.UTF_8));
          }
        }
      } catch (IOException ignored) {
        // the process ended
      }
    });
  }

  /** Compiles {@code scalar} and {@code packet} of {@code module} for {@code target} and starts the launcher. */
  static QemuExecutor start(CrossTarget target, LlvmModule module, String scalar, String packet) {
    target.missing().ifPresent(m -> {
      throw new UnsupportedOperationException("cannot run " + target.name() + " code here: missing " + m
          + " (bin/install-test-deps.sh installs them)");
    });
    Path dir = null;
    try {
      dir = Files.createTempDirectory("packetizer-qemu-");
      Path object = dir.resolve("functions.o");
      List<TargetObject.Callable> callables;
      try (TargetMachine tm = target.spec().targetMachine()) {
        callables = TargetObject.emit(module, List.of(scalar, packet), tm, object);
      }
      Path launcher = launcherObject(target);
      Path exe = dir.resolve("launcher");
      List<String> link = List.of(target.gcc(), "-o", exe.toString(), launcher.toString(), object.toString(), "-lm");
      ProcessResult r = BundledClang.locate().run(link, dir);
      if (r.exitCode() != 0) {
        throw new IllegalStateException("cannot link the " + target.name() + " launcher: " + String.join(" ", link) + ": " + r.stderr());
      }
      ProcessBuilder pb = new ProcessBuilder(target.qemuPath().toString(), "-cpu", target.qemuCpu(), exe.toString());
      pb.environment().put("QEMU_LD_PREFIX", target.sysroot().toString());
      Process p = pb.start();
      return new QemuExecutor(target, dir, p, callables);
    } catch (IOException e) {
      deleteQuietly(dir);
      throw new IllegalStateException("cannot start the " + target.name() + " launcher: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      deleteQuietly(dir);
      throw e;
    }
  }

  private static Path launcherObject(CrossTarget target) {
    String key = String.join(" ", target.clangTarget());
    return LAUNCHERS.computeIfAbsent(key, k -> {
      try {
        Path d = Files.createTempDirectory("packetizer-launcher-");
        d.toFile().deleteOnExit();
        Path src = d.resolve("emulated-launcher.c");
        try (InputStream in = QemuExecutor.class.getResourceAsStream("emulated-launcher.c")) {
          if (in == null) throw new IllegalStateException("resource emulated-launcher.c is missing");
          Files.write(src, in.readAllBytes());
        }
        Path obj = d.resolve("launcher.o");
        List<String> cmd = new ArrayList<>(List.of("clang"));
        cmd.addAll(target.clangTarget());
        cmd.addAll(List.of("-O1", "-fno-builtin", "-w", "-c", src.toString(), "-o", obj.toString()));
        ProcessResult r = BundledClang.locate().run(cmd, d);
        if (r.exitCode() != 0) throw new IllegalStateException("the bundled clang cannot compile the launcher: " + r.stderr());
        src.toFile().deleteOnExit();
        obj.toFile().deleteOnExit();
        return obj;
      } catch (IOException e) {
        throw new IllegalStateException("cannot compile the launcher: " + e.getMessage(), e);
      }
    });
  }

  CrossTarget target() { return target; }

  /** The scalar (0) or packet (1) function's call shape. */
  TargetObject.Callable callable(int fn) { return callables.get(fn); }

  /**
   * Calls function {@code fn} (0: scalar, 1: packet) under qemu with the argument memory {@code args}
   * and the current contents of {@code memory}; writes the result to {@code result} and the buffers'
   * new contents back.
   */
  synchronized Records invoke(int fn, MemorySegment args, MemorySegment result, List<GuardedMemory> memory) {
    TargetObject.Callable c = callables.get(fn);
    try {
      writeInt(1);
      writeInt(fn);
      writeLong(c.argsSize());
      toLauncher.write(args.asSlice(0, c.argsSize()).toArray(ValueLayout.JAVA_BYTE));
      writeLong(c.resultSize());
      writeInt(memory.size());
      for (GuardedMemory m : memory) {
        MemorySegment area = m.area();
        writeLong(area.address());
        writeLong(area.byteSize());
        toLauncher.write(area.toArray(ValueLayout.JAVA_BYTE));
      }
      toLauncher.flush();
      int status = readInt();
      if (status != 0) throw new IllegalStateException("launcher status " + status);
      byte[] res = fromLauncher.readNBytes((int) c.resultSize());
      if (res.length != c.resultSize()) throw new EOFException();
      if (c.resultSize() > 0) MemorySegment.copy(MemorySegment.ofArray(res), 0, result, 0, c.resultSize());
      for (GuardedMemory m : memory) {
        MemorySegment area = m.area();
        byte[] b = fromLauncher.readNBytes((int) area.byteSize());
        if (b.length != area.byteSize()) throw new EOFException();
        area.copyFrom(MemorySegment.ofArray(b));
      }
      int n = readInt();
      int lost = readInt();
      int[] values = new int[n];
      for (int i = 0; i < n; i++) values[i] = readInt();
      return new Records(values, lost);
    } catch (IOException e) {
      throw crashed(c.name());
    }
  }

  /**
   * The calls of {@code record(int)} one call made under qemu, in order (the launcher's definition logs
   * them); {@code lost}: calls beyond its log's capacity.
   */
  record Records(int[] values, int lost) { }

  private RuntimeException crashed(String fn) {
    String how;
    try {
      if (process.waitFor(5, TimeUnit.SECONDS)) {
        int code = process.exitValue();
        how = code > 128 ? "was killed by signal " + (code - 128) + signalName(code - 128) : "exited with status " + code;
      } else {
        how = "stopped answering";
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      how = "was interrupted";
    }
    try {
      stderrReader.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String err;
    synchronized (stderr) {
      err = stderr.toString().strip();
    }
    return new EmulatedCrashException("@" + fn + " crashed under " + target.qemu() + " -cpu " + target.qemuCpu()
        + " (" + target.name() + ", " + target.qemuDescription() + "): the launcher " + how + (err.isEmpty() ? "" : ": " + err));
  }

  private static String signalName(int sig) {
    return switch (sig) {
      case 4 -> " (SIGILL: an instruction the emulated CPU does not have)";
      case 6 -> " (SIGABRT)";
      case 7 -> " (SIGBUS)";
      case 8 -> " (SIGFPE)";
      case 11 -> " (SIGSEGV: an access outside the buffers, e.g. into a guard page)";
      default -> "";
    };
  }

  private void writeInt(int v) throws IOException {
    for (int i = 0; i < 4; i++) toLauncher.write(v >>> (8 * i));
  }

  private void writeLong(long v) throws IOException {
    for (int i = 0; i < 8; i++) toLauncher.write((int) (v >>> (8 * i)));
  }

  private int readInt() throws IOException {
    byte[] b = fromLauncher.readNBytes(4);
    if (b.length != 4) throw new EOFException();
    return (b[0] & 0xff) | (b[1] & 0xff) << 8 | (b[2] & 0xff) << 16 | (b[3] & 0xff) << 24;
  }

  @Override
  public void close() {
    try {
      toLauncher.close();
    } catch (IOException ignored) {
      // the launcher may have died
    }
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    deleteQuietly(dir);
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) return;
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort
    }
  }
}
