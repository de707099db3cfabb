package dev.muster.demo.report;

import java.util.List;
import java.util.Locale;

/** Inline SVG charts (no scripts, no external resources): line charts over simulated time, and bar charts. Stateless. */
final class Svg {
    private static final int WIDTH = 760;
    private static final int HEIGHT = 260;
    private static final int LEFT = 64;
    private static final int RIGHT = 16;
    private static final int TOP = 30;
    private static final int BOTTOM = 34;

    /** A line: x in simulated seconds, y in the chart's unit. */
    record Series(String name, String color, boolean dashed, double opacity, double[] xs, double[] ys) {}

    private Svg() {}

    static String lineChart(String title, String yUnit, double yMax, double xMaxSeconds, List<Series> series) {
        double ymax = niceCeiling(yMax <= 0 ? 1 : yMax);
        double xmax = xMaxSeconds <= 0 ? 1 : xMaxSeconds;
        StringBuilder sb = open(title);
        axes(sb, xmax, ymax, yUnit);
        for (Series s : series) {
            if (s.xs().length == 0) {
                continue;
            }
            sb.append("<polyline fill=\"none\" stroke=\"").append(s.color()).append("\" stroke-width=\"").append(s.dashed() ? "1.5" : "2")
                    .append("\" stroke-opacity=\"").append(num(s.opacity())).append('"');
            if (s.dashed()) {
                sb.append(" stroke-dasharray=\"6 4\"");
            }
            sb.append(" points=\"");
            for (int i = 0; i < s.xs().length; i++) {
                sb.append(num(x(s.xs()[i], xmax))).append(',').append(num(y(Math.min(s.ys()[i], ymax), ymax))).append(' ');
            }
            sb.append("\"><title>").append(esc(s.name())).append("</title></polyline>\n");
        }
        legend(sb, series);
        return sb.append("</svg>\n").toString();
    }

    static String barChart(String title, String yUnit, List<String> labels, long[] values, String color) {
        long max = 1;
        for (long v : values) {
            max = Math.max(max, v);
        }
        double ymax = niceCeiling(max * 1.1);
        StringBuilder sb = open(title);
        yAxis(sb, ymax, yUnit);
        int plotW = WIDTH - LEFT - RIGHT;
        double slot = plotW / (double) Math.max(1, labels.size());
        for (int i = 0; i < labels.size(); i++) {
            double x0 = LEFT + i * slot + slot * 0.15;
            double h = (HEIGHT - TOP - BOTTOM) * values[i] / ymax;
            sb.append("<rect x=\"").append(num(x0)).append("\" y=\"").append(num(HEIGHT - BOTTOM - h)).append("\" width=\"").append(num(slot * 0.7))
                    .append("\" height=\"").append(num(h)).append("\" fill=\"").append(color).append("\"><title>").append(esc(labels.get(i)))
                    .append(": ").append(values[i]).append("</title></rect>\n");
            sb.append("<text x=\"").append(num(x0 + slot * 0.35)).append("\" y=\"").append(HEIGHT - BOTTOM + 16)
                    .append("\" text-anchor=\"middle\" class=\"tick\">").append(esc(labels.get(i))).append("</text>\n");
            if (values[i] > 0) {
                sb.append("<text x=\"").append(num(x0 + slot * 0.35)).append("\" y=\"").append(num(HEIGHT - BOTTOM - h - 4))
                        .append("\" text-anchor=\"middle\" class=\"tick\">").append(values[i]).append("</text>\n");
            }
        }
        return sb.append("</svg>\n").toString();
    }

    private static StringBuilder open(String title) {
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
                .append("\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT).append("\" role=\"img\">\n");
        sb.append("<text x=\"").append(LEFT).append("\" y=\"18\" class=\"title\">").append(esc(title)).append("</text>\n");
        return sb;
    }

    private static void axes(StringBuilder sb, double xmax, double ymax, String yUnit) {
        yAxis(sb, ymax, yUnit);
        double step = niceStep(xmax / 60.0 / 8) * 60; // about 8 ticks, in whole minutes where possible
        if (xmax < 600) {
            step = Math.max(10, niceStep(xmax / 8));
        }
        for (double t = 0; t <= xmax + 1e-9; t += step) {
            double px = x(t, xmax);
            sb.append("<line x1=\"").append(num(px)).append("\" x2=\"").append(num(px)).append("\" y1=\"").append(HEIGHT - BOTTOM)
                    .append("\" y2=\"").append(HEIGHT - BOTTOM + 4).append("\" class=\"axis\"/>\n");
            sb.append("<text x=\"").append(num(px)).append("\" y=\"").append(HEIGHT - BOTTOM + 16).append("\" text-anchor=\"middle\" class=\"tick\">")
                    .append(Fmt.clock((long) (t * 1e9)).replaceFirst("^0:", "")).append("</text>\n");
        }
        sb.append("<text x=\"").append(WIDTH - RIGHT).append("\" y=\"").append(HEIGHT - 4)
                .append("\" text-anchor=\"end\" class=\"tick\">simulated time</text>\n");
    }

    private static void yAxis(StringBuilder sb, double ymax, String yUnit) {
        sb.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(LEFT).append("\" y1=\"").append(TOP).append("\" y2=\"")
                .append(HEIGHT - BOTTOM).append("\" class=\"axis\"/>\n");
        sb.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT).append("\" y1=\"").append(HEIGHT - BOTTOM)
                .append("\" y2=\"").append(HEIGHT - BOTTOM).append("\" class=\"axis\"/>\n");
        for (int i = 0; i <= 4; i++) {
            double v = ymax * i / 4;
            double py = y(v, ymax);
            sb.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT).append("\" y1=\"").append(num(py)).append("\" y2=\"")
                    .append(num(py)).append("\" class=\"grid\"/>\n");
            sb.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(num(py + 4)).append("\" text-anchor=\"end\" class=\"tick\">")
                    .append(label(v)).append(yUnit).append("</text>\n");
        }
    }

    private static void legend(StringBuilder sb, List<Series> series) {
        double lx = LEFT + 8;
        for (Series s : series) {
            if (s.name().isEmpty()) {
                continue;
            }
            double ly = TOP + 4;
            sb.append("<line x1=\"").append(num(lx)).append("\" x2=\"").append(num(lx + 18)).append("\" y1=\"").append(num(ly)).append("\" y2=\"")
                    .append(num(ly)).append("\" stroke=\"").append(s.color()).append("\" stroke-width=\"2\" stroke-opacity=\"")
                    .append(num(s.opacity())).append('"').append(s.dashed() ? " stroke-dasharray=\"6 4\"" : "").append("/>\n");
            sb.append("<text x=\"").append(num(lx + 22)).append("\" y=\"").append(num(ly + 4)).append("\" class=\"legend\">").append(esc(s.name()))
                    .append("</text>\n");
            lx += 30 + s.name().length() * 6.2;
        }
    }

    private static double x(double seconds, double xmax) {
        return LEFT + (WIDTH - LEFT - RIGHT) * seconds / xmax;
    }

    private static double y(double v, double ymax) {
        return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * v / ymax;
    }

    /** 1, 2, 2.5 or 5 times a power of ten, at least {@code v}. */
    static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v - 1e-9) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static double niceStep(double v) {
        return v <= 0 ? 1 : niceCeiling(v);
    }

    private static String label(double v) {
        if (v >= 10_000) {
            return String.format(Locale.ROOT, "%.0fk", v / 1000);
        }
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
