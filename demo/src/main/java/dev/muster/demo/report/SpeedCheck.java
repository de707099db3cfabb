package dev.muster.demo.report;

import java.util.Locale;
import java.util.Optional;

/**
 * Whether the machine kept up with the speed-up. Scheduling runs in real time and the workload in simulated time, so
 * every real delay is stretched by the speed: a pod that waits 3 s (real) in the kube-scheduler stand-in's queue waits
 * 2 minutes of simulated time at 40×. Two measures say how far the machine fell behind: how long pods waited for their
 * first scheduling try (real, times the speed), and how late the simulated-time tasks (arrivals, starts, finishes,
 * samples) ran behind the simulated clock. Either beyond {@link #BEHIND_NANOS} simulated earns a warning. Pure.
 */
final class SpeedCheck {
    /** Half the pods waiting this long (simulated) for their first try, or 1 in 100 tasks this late, is falling behind. */
    static final long BEHIND_NANOS = 30_000_000_000L;

    private SpeedCheck() {}

    /** The median first-try wait, in simulated nanoseconds. */
    static long firstTryP50Sim(RunResult r) {
        return (long) (Percentiles.of(r.driver().firstTryNanos(), 50) * r.scenario().settings().speed());
    }

    /** The 99th percentile of how late simulated-time tasks ran, in simulated nanoseconds. */
    static long lateP99Sim(RunResult r) {
        return Percentiles.of(r.timerLateness(), 99);
    }

    /** The report's row: both measures. */
    static String row(RunResult r) {
        double speed = r.scenario().settings().speed();
        long first = Percentiles.of(r.driver().firstTryNanos(), 50);
        return "first scheduling try p50 " + Fmt.millis(first) + " real = " + Fmt.sim(firstTryP50Sim(r)) + " sim at " + trim(speed)
                + "x; simulated-time tasks late p99 " + Fmt.sim(lateP99Sim(r)) + " (sim)";
    }

    /** A warning when the machine fell behind, with a speed that would likely keep up; empty when it kept up. */
    static Optional<String> warning(RunResult r) {
        return warning(r.scenario().settings().speed(), r.driver().firstTryNanos(), r.timerLateness());
    }

    /**
     * @param firstTryNanos per pod, real nanoseconds from entering the scheduling queue to its first try
     * @param latenessSim   per simulated-time task, how late it ran (simulated nanoseconds)
     */
    static Optional<String> warning(double speed, long[] firstTryNanos, long[] latenessSim) {
        long firstTry = Percentiles.of(firstTryNanos, 50);
        long firstSim = (long) (firstTry * speed);
        long late = Percentiles.of(latenessSim, 99);
        long worst = Math.max(firstSim, late);
        if (worst <= BEHIND_NANOS) {
            return Optional.empty();
        }
        double suggested = Math.max(1, Math.floor(speed * (BEHIND_NANOS / 3.0) / worst));
        return Optional.of("WARNING: at " + trim(speed) + "x this machine fell behind the simulated clock (first scheduling try p50 "
                + Fmt.millis(firstTry) + " real = " + Fmt.sim(firstSim) + " sim; simulated-time tasks late p99 " + Fmt.sim(late)
                + "): waits in this report are stretched by as much. Try --speed " + trim(suggested) + ".");
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
    }
}
