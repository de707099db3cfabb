package dev.muster.core.scheduler;

import dev.muster.core.gang.QueueGate;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.time.Backoff;
import dev.muster.core.scoring.ScoringPolicy;
import java.time.Duration;

/**
 * Settings of the scheduling core.
 *
 * @param policy          how non-slot nodes are ranked (binpack or spread)
 * @param gangDeadline    default time a reservation waits for its members' binds
 * @param backoff         delay before an expired gang is planned again
 * @param admissionHold   how long the bind of a gang member that cannot be admitted yet (gang backing off,
 *                        not fitting now, PodGroup not seen yet) is held while muster retries; then it fails,
 *                        and kube-scheduler retries the pod (a failed bind is always requeued)
 * @param schedulerName   {@code spec.schedulerName} of the pods muster schedules as gangs; pods of other schedulers are
 *                        only accounted for (see {@link dev.muster.core.model.GangMembership#servedBy})
 * @param topologyLevels  node label keys of the topology levels, widest first, that gangs' topology constraints name
 *                        ({@link TopologyLevels#NONE}: no levels; a required constraint then cannot be met)
 * @param setAsideAfter   how long a gang must have waited before room is set aside for it as the gang next in line
 *                        (until then, whoever fits first takes free room: short waits stay short for everyone)
 * @param pickNode        true: a single pod's filter passes only the node {@code policy} ranks best (unless the pod
 *                        has soft preferences that kube-scheduler's own score plugins weigh), so kube-scheduler,
 *                        left with one feasible node, skips scoring; false: every node that fits passes and
 *                        kube-scheduler's score plugins choose among them
 * @param preemption      what preemption and queue reclaim may do ({@link PreemptionSettings#DEFAULT}: both on)
 * @param queueGate       whether and how Muster lifts its queue-admission gate ({@link QueueGate#OFF}: it lifts nothing)
 */
public record SchedulerConfig(ScoringPolicy policy, Duration gangDeadline, Backoff backoff, Duration admissionHold, String schedulerName,
                              TopologyLevels topologyLevels, Duration setAsideAfter, boolean pickNode, PreemptionSettings preemption,
                              QueueGate queueGate) {
    public static final Duration DEFAULT_SET_ASIDE_AFTER = Duration.ofSeconds(30);

    public SchedulerConfig {
        topologyLevels = topologyLevels == null ? TopologyLevels.NONE : topologyLevels;
        setAsideAfter = setAsideAfter == null ? DEFAULT_SET_ASIDE_AFTER : setAsideAfter;
        preemption = preemption == null ? PreemptionSettings.DEFAULT : preemption;
        queueGate = queueGate == null ? QueueGate.OFF : queueGate;
    }

    public SchedulerConfig(ScoringPolicy policy, Duration gangDeadline, Backoff backoff, Duration admissionHold, String schedulerName,
                           TopologyLevels topologyLevels, Duration setAsideAfter, boolean pickNode, PreemptionSettings preemption) {
        this(policy, gangDeadline, backoff, admissionHold, schedulerName, topologyLevels, setAsideAfter, pickNode, preemption, QueueGate.OFF);
    }

    public SchedulerConfig(ScoringPolicy policy, Duration gangDeadline, Backoff backoff, Duration admissionHold, String schedulerName,
                           TopologyLevels topologyLevels, Duration setAsideAfter, boolean pickNode) {
        this(policy, gangDeadline, backoff, admissionHold, schedulerName, topologyLevels, setAsideAfter, pickNode, PreemptionSettings.DEFAULT);
    }

    public SchedulerConfig(ScoringPolicy policy, Duration gangDeadline, Backoff backoff, Duration admissionHold, String schedulerName) {
        this(policy, gangDeadline, backoff, admissionHold, schedulerName, TopologyLevels.NONE, DEFAULT_SET_ASIDE_AFTER, true);
    }

    public static final String DEFAULT_SCHEDULER_NAME = "muster";
    public static final SchedulerConfig DEFAULT = new SchedulerConfig(ScoringPolicy.BINPACK, Duration.ofSeconds(60), Backoff.DEFAULT,
            Duration.ofSeconds(5), DEFAULT_SCHEDULER_NAME);

    public SchedulerConfig withSchedulerName(String name) {
        return new SchedulerConfig(policy, gangDeadline, backoff, admissionHold, name, topologyLevels, setAsideAfter, pickNode, preemption, queueGate);
    }

    public SchedulerConfig withPolicy(ScoringPolicy p) {
        return new SchedulerConfig(p, gangDeadline, backoff, admissionHold, schedulerName, topologyLevels, setAsideAfter, pickNode, preemption, queueGate);
    }

    public SchedulerConfig withGangDeadline(Duration d) {
        return new SchedulerConfig(policy, d, backoff, admissionHold, schedulerName, topologyLevels, setAsideAfter, pickNode, preemption, queueGate);
    }

    public SchedulerConfig withBackoff(Backoff b) {
        return new SchedulerConfig(policy, gangDeadline, b, admissionHold, schedulerName, topologyLevels, setAsideAfter, pickNode, preemption, queueGate);
    }

    public SchedulerConfig withTopologyLevels(TopologyLevels levels) {
        return new SchedulerConfig(policy, gangDeadline, backoff, admissionHold, schedulerName, levels, setAsideAfter, pickNode, preemption, queueGate);
    }

    public SchedulerConfig withAdmissionHold(Duration h) {
        return new SchedulerConfig(policy, gangDeadline, backoff, h, schedulerName, topologyLevels, setAsideAfter, pickNode, preemption, queueGate);
    }

    public SchedulerConfig withSetAsideAfter(Duration d) {
        return new SchedulerConfig(policy, gangDeadline, backoff, admissionHold, schedulerName, topologyLevels, d, pickNode, preemption, queueGate);
    }

    public SchedulerConfig withPreemption(PreemptionSettings p) {
        return new SchedulerConfig(policy, gangDeadline, backoff, admissionHold, schedulerName, topologyLevels, setAsideAfter, pickNode, p, queueGate);
    }

    public SchedulerConfig withPickNode(boolean pick) {
        return new SchedulerConfig(policy, gangDeadline, backoff, admissionHold, schedulerName, topologyLevels, setAsideAfter, pick, preemption, queueGate);
    }

    public SchedulerConfig withQueueGate(QueueGate gate) {
        return new SchedulerConfig(policy, gangDeadline, backoff, admissionHold, schedulerName, topologyLevels, setAsideAfter, pickNode, preemption, gate);
    }
}
