package dev.muster.demo.report;

import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.demo.scenario.PodShape;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How the reports write numbers, times and resources. Stateless. */
final class Fmt {
    private Fmt() {}

    /** Simulated nanoseconds as {@code 1h02m}, {@code 4m12s}, {@code 37s}, {@code 1.2s}; "-" for negative. */
    static String sim(long nanos) {
        if (nanos < 0) {
            return "-";
        }
        return duration(Duration.ofNanos(nanos));
    }

    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms < 10_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long s = d.toSeconds();
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return (s / 60) + "m" + (s % 60 == 0 ? "" : String.format(Locale.ROOT, "%02d", s % 60) + "s");
        }
        return (s / 3600) + "h" + String.format(Locale.ROOT, "%02d", (s % 3600) / 60) + "m";
    }

    static String clock(long simNanos) {
        long s = Math.max(0, simNanos) / 1_000_000_000L;
        return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s % 3600) / 60, s % 60);
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }

    static String millis(long nanos) {
        if (nanos < 0) {
            return "-";
        }
        return nanos < 10_000_000 ? String.format(Locale.ROOT, "%.2f ms", nanos / 1e6) : String.format(Locale.ROOT, "%.0f ms", nanos / 1e6);
    }

    /** The resources people look at in this demo: cpu, memory, GPUs. */
    static final List<String> SHOWN = List.of(ResourceNames.CPU, ResourceNames.MEMORY, PodShape.GPU);

    static String shortName(String resource) {
        return switch (resource) {
            case ResourceNames.MEMORY -> "mem";
            case PodShape.GPU -> "gpu";
            default -> resource;
        };
    }

    /** e.g. {@code 1200 cpu, 4800Gi mem, 64 gpu} over {@code names}; "0" when all are zero. */
    static String resources(Resources r, List<String> names) {
        List<String> parts = new ArrayList<>();
        for (String n : names) {
            long v = r == null ? 0 : r.get(n);
            parts.add(amount(n, v) + " " + shortName(n));
        }
        return String.join(", ", parts);
    }

    /**
     * An amount as people read it: whole cpus (or tenths), memory in whole Gi — Gi is the largest unit, as in the CLI and
     * in the scheduler's own messages, so 12Ti reads {@code 12288Gi} everywhere.
     */
    static String amount(String resource, long v) {
        if (ResourceNames.MEMORY.equals(resource)) {
            return String.format(Locale.ROOT, "%.0fGi", v / (double) (1L << 30));
        }
        if (ResourceNames.CPU.equals(resource)) {
            return v % 1000 == 0 ? Long.toString(v / 1000) : String.format(Locale.ROOT, "%.1f", v / 1000.0);
        }
        return Quantities.format(resource, v);
    }

    /** Fraction used of allocatable for {@code resource}; 0 when there is none. */
    static double fraction(Resources used, Resources of, String resource) {
        long total = of.get(resource);
        return total <= 0 ? 0 : used.get(resource) / (double) total;
    }

    static String padRight(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    static String padLeft(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }
}
