package dev.muster.demo.scenario;

import java.time.Duration;

/**
 * How the demo runs a scenario. Times marked (sim) are scenario time, compressed by the speed; the others are
 * real time, because the extender, the controller and the scheduler driver run in real time.
 *
 * @param speed              simulated seconds per real second
 * @param gangDeadline       the extender's reservation deadline (real)
 * @param podStartup         from bind to Running (sim)
 * @param sampleEvery        how often the report samples utilisation and queue status (sim)
 * @param timeLimit          the run stops, unfinished, after this long (real)
 * @param podInitialBackoff  kube-scheduler's podInitialBackoffSeconds (real)
 * @param podMaxBackoff      kube-scheduler's podMaxBackoffSeconds (real)
 * @param unschedulableFlush how long a pod stays in the unschedulable pool without a cluster event before it is
 *                           retried anyway (kube-scheduler's podMaxInUnschedulablePodsDuration, 5 min there; shorter
 *                           here because a gang's backoff or another gang's expiry frees capacity without an event)
 * @param nodesToScore       at most this many feasible nodes are passed to the extender per pod (kube-scheduler's
 *                           percentageOfNodesToScore gives 100 for clusters of up to about 200 nodes)
 * @param flushInterval      the controller's {@code --flush-interval} (real)
 * @param preemption         the extender's {@code --preemption}: a gang may take room from lower priority in its queue
 * @param reclaim            the extender's {@code --reclaim}: a queue below its fair share may take room back
 * @param victimMinRuntime   the extender's {@code --victim-min-runtime} (sim: the extender is given it divided by the speed)
 */
public record Settings(double speed, Duration gangDeadline, Duration podStartup, Duration sampleEvery, Duration timeLimit,
                       Duration podInitialBackoff, Duration podMaxBackoff, Duration unschedulableFlush, int nodesToScore,
                       Duration flushInterval, boolean preemption, boolean reclaim, Duration victimMinRuntime) {
    /** As the chart installs the extender: preemption and reclaim on, victims run at least 5 minutes first. */
    public static final Settings DEFAULTS = new Settings(20, Duration.ofSeconds(60), Duration.ofSeconds(2), Duration.ofSeconds(15),
            Duration.ofMinutes(10), Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(30), 100, Duration.ofSeconds(1),
            true, true, Duration.ofMinutes(5));

    public Settings withSpeed(double s) {
        return new Settings(s, gangDeadline, podStartup, sampleEvery, timeLimit, podInitialBackoff, podMaxBackoff, unschedulableFlush,
                nodesToScore, flushInterval, preemption, reclaim, victimMinRuntime);
    }

    /** The real time the extender is given for {@link #victimMinRuntime} (simulated), at this speed. */
    public Duration victimMinRuntimeReal() {
        return Duration.ofNanos((long) (victimMinRuntime.toNanos() / speed));
    }
}
