package dev.muster.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** CPU seconds of another process (or its threads) so far, read from Linux's {@code /proc}. */
final class ProcCpu {
    private static final double CLK_TCK = 100;

    private ProcCpu() {}

    /** User + system CPU seconds of process {@code pid}. */
    static double total(long pid) throws IOException {
        long[] t = times(Path.of("/proc/" + pid + "/stat"));
        return (t[0] + t[1]) / CLK_TCK;
    }

    /** System (kernel) CPU seconds of process {@code pid}: syscalls, context switches, page faults. */
    static double system(long pid) throws IOException {
        return times(Path.of("/proc/" + pid + "/stat"))[1] / CLK_TCK;
    }

    /**
     * CPU seconds of process {@code pid} by thread group: the thread names of {@code /proc/PID/task/TID/comm} (15
     * characters) with their digits replaced by N, so "C2 CompilerThread0" and "C1 CompilerThread1" add up, and virtual
     * threads count under their carriers ("ForkJoinPool-N-worker-N"). A thread that ended since an earlier reading is
     * missing from the later one; its CPU then shows only in {@link #total}.
     */
    static Map<String, Double> byThread(long pid) throws IOException {
        Map<String, Double> out = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "N");
                    long[] t = times(task.resolve("stat"));
                    out.merge(name, (t[0] + t[1]) / CLK_TCK, Double::sum);
                } catch (NoSuchFileException gone) {
                    // the thread ended while we read
                }
            }
        }
        return out;
    }

    /** utime and stime in clock ticks (fields 14 and 15 of a stat file; the name in parentheses may hold spaces). */
    private static long[] times(Path stat) throws IOException {
        String s = Files.readString(stat);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    }
}
