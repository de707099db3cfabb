package dev.muster.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * When a test on a shared real cluster fails, prints the last lines of the extender's and the controller's logs
 * (the cluster's data folder, with every log, is deleted at the end of the run unless {@code -Dmuster.e2e.keep=true}),
 * so a failure seen once in CI can be read afterwards.
 */
final class DiagnoseOnFailure implements TestWatcher {
    static final int LINES = 60;

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        E2eCluster c = context.getTestInstance().orElse(null) instanceof RealClusterTest t ? t.c : null;
        if (c == null) {
            return;
        }
        System.out.printf("e2e: %s failed; last %d lines of the extender's log:%n%s%n", context.getDisplayName(), LINES,
                c.extender.logTail(LINES));
        System.out.printf("e2e: last %d lines of the controller's log:%n%s%n", LINES, c.controller.logTail(LINES));
        System.out.printf("e2e: the extender's muster metrics:%n%s%n", musterMetrics(c.extender));
        System.out.printf("e2e: the controller's muster metrics:%n%s%n", musterMetrics(c.controller));
    }

    /** The process's own metrics (not the JVM's), or why they could not be read. */
    private static String musterMetrics(MusterProcess p) {
        try {
            StringBuilder out = new StringBuilder();
            for (String line : p.metrics().split("\n")) {
                if (line.startsWith("muster_")) {
                    out.append(line).append('\n');
                }
            }
            return out.toString();
        } catch (RuntimeException e) {
            return "(not readable: " + e + ")";
        }
    }
}
