package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The batch progress bar: drawn only when enabled (stderr is a terminal) and only after a moment. */
class ProgressTest {
  @Test
  void drawsAfterAMomentKeepsMessagesAboveAndClearsAtTheEnd() throws InterruptedException {
    StringWriter text = new StringWriter();
    try (Progress p = new Progress(new PrintWriter(text), 3, true)) {
      p.started("a.bc");
      p.completed("a.bc");
      p.print("a.bc: done\n"); // quick: before the bar appears
      assertFalse(text.toString().contains("["), "no bar for a quick start: " + text);
      p.started("b.bc");
      Thread.sleep(Progress.DELAY_MS + 4 * Progress.PERIOD_MS);
      assertTrue(text.toString().contains("\r\u001b[K[########................] 1/3 inputs  b.bc"), text.toString());
      p.started("c.bc");
      p.completed("c.bc"); // finished before b.bc: counted at once, printed after b.bc
      Thread.sleep(3 * Progress.PERIOD_MS);
      assertTrue(text.toString().contains("[################........] 2/3 inputs  b.bc"), text.toString());
      p.completed("b.bc");
      p.print("b.bc: done\n");
      p.print("c.bc: done\n");
    }
    String s = text.toString();
    assertTrue(s.contains("\r\u001b[Kb.bc: done\n"), "messages replace the bar line: " + s);
    assertTrue(s.indexOf("b.bc: done") < s.indexOf("c.bc: done"));
    assertEquals(1, s.split("1/3 inputs  b.bc", -1).length - 1, "an unchanged bar is not redrawn: " + s);
    assertTrue(s.endsWith("\r\u001b[K"), "the bar is cleared at the end: " + s);
  }

  @Test
  void disabledMeansMessagesOnly() throws InterruptedException {
    StringWriter text = new StringWriter();
    try (Progress p = new Progress(new PrintWriter(text), 2, false)) {
      p.started("a.bc");
      Thread.sleep(Progress.DELAY_MS + 2 * Progress.PERIOD_MS);
      p.completed("a.bc");
      p.print("a.bc: done\n");
    }
    assertEquals("a.bc: done\n", text.toString());
  }

  @Test
  void testStreamsAreNotTerminals() {
    assertFalse(Terminal.isTerminal(Terminal.STDERR), "surefire's stderr is a pipe");
  }
}
