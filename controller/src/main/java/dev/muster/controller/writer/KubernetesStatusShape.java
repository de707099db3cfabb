package dev.muster.controller.writer;

import dev.muster.core.status.PodGroupCondition;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The status of Kubernetes' own PodGroup ({@code scheduling.k8s.io}) as each served version defines it. Both write
 * {@code status.conditions} only (the merge patch leaves {@code resourceClaimStatuses}, which the resource claim
 * controller writes, alone); they differ in the condition and in whether it can go back:
 * <pre>
 * v1alpha2 (1.36): {"conditions":[{"type":"PodGroupScheduled","status":"True","reason":"Scheduled",...}]}
 *     True once the gang is bound (Volcano's Scheduled=True); False/Unschedulable with Muster's reason as the message
 *     while it is refused (Volcano's Unschedulable=True), also after it ran; no condition before either.
 * v1beta1 (1.37): {"conditions":[{"type":"PodGroupInitiallyScheduled","status":"True","reason":"Scheduled",...}]}
 *     False/Unschedulable with Muster's reason as the message while the gang waits refused; True from the first time
 *     minCount members were bound together ({@link PodGroupStatus#initiallyScheduled}, with that time), and then for
 *     good: the type defines True as terminal, so a later loss of members never turns it back to False.
 * </pre>
 * A gang a preemption took members from also has {@code DisruptionTarget} (as a pod evicted by a scheduler has):
 * <pre>
 * {"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler","message":"preempted by ml/train-big (priority 1000) ..."}
 * </pre>
 * True from the decision until its evicted members are gone and it holds its minimum again, then False with reason
 * {@code GangWhole} (Muster's {@link PodGroupCondition#PREEMPTED}).
 * {@link #parse} reads each condition type back (a restarted controller keeps what the object shows; a
 * {@code DisruptionTarget} another scheduler wrote is kept the same way rather than erased by Muster's next write). Stateless.
 */
enum KubernetesStatusShape {
    V1ALPHA2("v1alpha2", "PodGroupScheduled", false),
    V1BETA1("v1beta1", "PodGroupInitiallyScheduled", true);

    static final String REASON_SCHEDULED = "Scheduled";
    static final String REASON_UNSCHEDULABLE = "Unschedulable";
    static final String DISRUPTION_TARGET = "DisruptionTarget";
    static final String REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler";

    private final String version;
    final String conditionType;
    private final boolean terminalOnceTrue;

    KubernetesStatusShape(String version, String conditionType, boolean terminalOnceTrue) {
        this.version = version;
        this.conditionType = conditionType;
        this.terminalOnceTrue = terminalOnceTrue;
    }

    /** The shape of {@code version}: v1beta1's for {@code v1beta1}, else v1alpha2's (also before discovery has told). */
    static KubernetesStatusShape of(String version) {
        return V1BETA1.version.equals(version) ? V1BETA1 : V1ALPHA2;
    }

    /** The {@code status} object. */
    Map<String, Object> status(PodGroupStatus s) {
        PodGroupCondition scheduled = terminalOnceTrue ? s.initiallyScheduled() : StatusJson.trueCondition(s, PodGroupCondition.SCHEDULED);
        PodGroupCondition refused = StatusJson.trueCondition(s, PodGroupCondition.UNSCHEDULABLE);
        List<Map<String, Object>> conditions = new ArrayList<>(2);
        if (scheduled != null || refused != null) {
            PodGroupCondition c = scheduled != null ? scheduled : refused;
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("type", conditionType);
            cm.put("status", scheduled != null ? PodGroupCondition.TRUE : PodGroupCondition.FALSE);
            cm.put("reason", scheduled != null ? REASON_SCHEDULED : REASON_UNSCHEDULABLE);
            cm.put("message", c.message());
            if (c.lastTransitionTime() != null) {
                cm.put("lastTransitionTime", c.lastTransitionTime().toString());
            }
            conditions.add(cm);
        }
        PodGroupCondition preempted = s.condition(PodGroupCondition.PREEMPTED);
        if (preempted != null) {
            boolean active = PodGroupCondition.TRUE.equals(preempted.status());
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("type", DISRUPTION_TARGET);
            cm.put("status", preempted.status());
            cm.put("reason", active ? REASON_PREEMPTION_BY_SCHEDULER : PodGroupCondition.GANG_WHOLE);
            cm.put("message", preempted.message());
            if (preempted.lastTransitionTime() != null) {
                cm.put("lastTransitionTime", preempted.lastTransitionTime().toString());
            }
            conditions.add(cm);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("conditions", conditions);
        return m;
    }

    /**
     * A status object of either version read back: {@code PodGroupScheduled} or {@code PodGroupInitiallyScheduled}
     * True → a Scheduled condition (and, as the gang was scheduled once, {@link PodGroupStatus#initiallyScheduled});
     * False → an Unschedulable one; {@code DisruptionTarget} → a {@link PodGroupCondition#PREEMPTED} one. Other
     * conditions are not Muster's and are not read.
     * @throws java.time.format.DateTimeParseException for a transition time that is not one
     */
    static PodGroupStatus parse(Map<?, ?> m) {
        List<PodGroupCondition> conditions = new ArrayList<>();
        PodGroupCondition initially = null;
        if (m.get("conditions") instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> c && (V1ALPHA2.conditionType.equals(c.get("type")) || V1BETA1.conditionType.equals(c.get("type")))) {
                    boolean scheduled = PodGroupCondition.TRUE.equals(c.get("status"));
                    Object t = c.get("lastTransitionTime");
                    PodGroupCondition read = new PodGroupCondition(scheduled ? PodGroupCondition.SCHEDULED : PodGroupCondition.UNSCHEDULABLE,
                            PodGroupCondition.TRUE, StatusJson.text(c.get("reason")), StatusJson.text(c.get("message")), t == null ? null : Instant.parse(t.toString()));
                    conditions.add(read);
                    if (scheduled) {
                        initially = read;
                    }
                } else if (o instanceof Map<?, ?> c && DISRUPTION_TARGET.equals(c.get("type")) && c.get("status") != null) {
                    boolean active = PodGroupCondition.TRUE.equals(c.get("status"));
                    Object t = c.get("lastTransitionTime");
                    conditions.add(new PodGroupCondition(PodGroupCondition.PREEMPTED, c.get("status").toString(),
                            active ? PodGroupCondition.PRIORITY_PREEMPTION : PodGroupCondition.GANG_WHOLE, StatusJson.text(c.get("message")),
                            t == null ? null : Instant.parse(t.toString())));
                }
            }
        }
        return new PodGroupStatus(PodGroupPhase.PENDING, conditions, 0, 0, 0, 0, "", initially);
    }
}
