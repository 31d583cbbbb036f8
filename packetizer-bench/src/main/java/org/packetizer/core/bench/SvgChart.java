package org.packetizer.core.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A grouped bar chart of the packet loops' speed-ups over the scalar loop, one group per kernel (and
 * one for the geometric means), one bar per target; a black tick marks what the auto-vectorizer
 * reached on the same target, dashed lines the goals, a red cross a kernel and target not reported.
 * Plain SVG 1.1 text, no dependencies.
 */
final class SvgChart {
  private SvgChart() {}

  private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#e15759", "#76b7b2", "#edc948"};

  static String render(BenchReport report) {
    List<String> labels = report.targetLabels();
    Map<String, Map<String, double[]>> data = new LinkedHashMap<>(report.speedups());
    Map<String, double[]> geo = new LinkedHashMap<>();
    for (BenchReport.Geomean g : report.geomeans()) geo.put(g.target(), new double[] {g.speedupVsScalar(), g.autovecSpeedupVsScalar(), Double.NaN});
    for (BenchReport.DriverGeomean g : report.driverGeomeans()) {
      double[] v = geo.get(g.target());
      if (v != null) v[2] = g.autoSpeedupVsScalar();
    }
    boolean drivers = report.results().stream().anyMatch(KernelResult::hasDrivers);
    if (!geo.isEmpty()) data.put("geomean", geo);

    int bar = 14, gap = 18;
    int groupW = Math.max(1, labels.size()) * bar + gap;
    int left = 56, top = 64, plotH = 300, bottom = 96, right = 24;
    int width = left + Math.max(1, data.size()) * groupW + right;
    width = Math.max(width, 780);
    int height = top + plotH + bottom;

    double max = Math.max(BenchReport.GOAL_W8, 1);
    for (Map<String, double[]> row : data.values()) {
      for (double[] v : row.values()) max = Math.max(max, Math.max(Math.max(v[0], v[1]), Double.isNaN(v[2]) ? 0 : v[2]));
    }
    double yMax = niceCeil(max * 1.05);
    double step = yMax <= 8 ? 1 : yMax <= 20 ? 2 : yMax <= 50 ? 5 : 10;

    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n",
        width, height, width, height));
    sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>%n", left,
        esc("Packet loop speed-up over the scalar loop (clang -O3, no vectorizers), " + report.host().cpu())));

    // legend
    int lx = left;
    for (int i = 0; i < labels.size(); i++) {
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"30\" width=\"10\" height=\"10\" fill=\"%s\"/>", lx, color(i)));
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"39\">%s</text>%n", lx + 14, esc(labels.get(i))));
      lx += 14 + 7 * labels.get(i).length() + 16;
    }
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"35\" x2=\"%d\" y2=\"35\" stroke=\"black\" stroke-width=\"2\"/>", lx, lx + 12));
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"39\">auto-vectorizer (clang -O3)</text>%n", lx + 16));
    lx += 16 + 170;
    if (drivers) {
      sb.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"35\" r=\"3.5\" fill=\"white\" stroke=\"black\" stroke-width=\"1.5\"/>", lx + 4));
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"39\">array driver, --refill=auto</text>%n", lx + 12));
      lx += 12 + 170;
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"39\" fill=\"#c00\">\u00d7 not reported</text>%n", lx));

    // axes and grid
    for (double y = 0; y <= yMax + 1e-9; y += step) {
      double py = top + plotH - y / yMax * plotH;
      sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>", left, py, width - right, py));
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s\u00d7</text>%n", left - 6, py + 4, trim(y)));
    }
    double p1 = top + plotH - 1 / yMax * plotH;
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\"/>%n", left, p1, width - right, p1));
    int gi = 0;
    for (String label : labels) {
      double goal = label.equals(BenchReport.T4) ? BenchReport.GOAL_W4 : label.equals(BenchReport.T8) ? BenchReport.GOAL_W8 : -1;
      if (goal > 0) {
        double py = top + plotH - goal / yMax * plotH;
        sb.append(String.format(Locale.ROOT,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>", left, py,
            width - right, py, color(gi)));
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">goal %s %s\u00d7</text>%n",
            width - right, py - 3, color(gi), esc(label), trim(goal)));
      }
      gi++;
    }
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>", left, top, left, top + plotH));
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", left, top + plotH,
        width - right, top + plotH));

    // bars
    int g = 0;
    for (var e : data.entrySet()) {
      int gx = left + g * groupW + gap / 2;
      for (int i = 0; i < labels.size(); i++) {
        int x = gx + i * bar;
        double[] v = e.getValue().get(labels.get(i));
        if (v == null) {
          if (!e.getKey().equals("geomean")) {
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#c00\" font-size=\"12\">\u00d7</text>",
                x + bar / 2, top + plotH - 3));
          }
          continue;
        }
        double h = Math.min(v[0], yMax) / yMax * plotH;
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>",
            x, top + plotH - h, bar - 2, h, color(i), esc(e.getKey() + " " + labels.get(i) + ": " + fmt(v[0]) + "x vs scalar, autovec "
                + fmt(v[1]) + "x")));
        double pa = top + plotH - Math.min(v[1], yMax) / yMax * plotH;
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"2\"/>%n",
            x - 1, pa, x + bar - 1, pa));
        if (v.length > 2 && !Double.isNaN(v[2])) {
          double pd = top + plotH - Math.min(v[2], yMax) / yMax * plotH;
          sb.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"white\" stroke=\"black\" stroke-width=\"1.5\">"
              + "<title>%s</title></circle>%n", x + (bar - 2) / 2.0, pd, esc(e.getKey() + " " + labels.get(i) + ": array driver --refill=auto "
              + fmt(v[2]) + "x vs scalar")));
        }
      }
      int cx = gx + labels.size() * bar / 2;
      sb.append(String.format(Locale.ROOT,
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-40 %d %d)\"%s>%s</text>%n", cx, top + plotH + 14, cx,
          top + plotH + 14, e.getKey().equals("geomean") ? " font-weight=\"bold\"" : "", esc(e.getKey())));
      g++;
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%s</text>%n", left, height - 8,
        esc("geomean over family \"" + BenchReport.MEASURED_FAMILY + "\"; " + (report.options().coherent() ? "coherent" : "random")
            + " inputs; medians of thread CPU time, " + report.options().reps() + " runs per loop")));
    sb.append("</svg>\n");
    return sb.toString();
  }

  private static String color(int i) { return COLORS[i % COLORS.length]; }

  private static double niceCeil(double v) {
    if (v <= 8) return Math.ceil(v);
    if (v <= 20) return Math.ceil(v / 2) * 2;
    return Math.ceil(v / 5) * 5;
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
  }

  private static String fmt(double d) { return String.format(Locale.ROOT, "%.2f", d); }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

}
