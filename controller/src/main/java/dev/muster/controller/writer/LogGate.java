package dev.muster.controller.writer;

/**
 * At most one log line per interval for a kind of failure: an API outage must not turn into one line per object.
 * Not thread-safe: its owner calls it under its own lock.
 */
final class LogGate {
    private final long intervalNanos;
    private boolean logged;
    private long last;
    private long suppressed;

    LogGate(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    /**
     * Whether the failure seen at {@code now} gets a line: -1 when not (it is counted), else how many were kept quiet
     * since the last line.
     */
    long pass(long now) {
        if (logged && now - last < intervalNanos) {
            suppressed++;
            return -1;
        }
        long quiet = suppressed;
        logged = true;
        last = now;
        suppressed = 0;
        return quiet;
    }

    /** The tail of a line after {@code quiet} failures were kept quiet ("" for none). */
    static String quietSince(long quiet) {
        return quiet == 0 ? "" : "; " + quiet + " more failures since the last report";
    }
}
