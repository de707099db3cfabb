package dev.muster.controller.writer;

import dev.muster.core.model.GangApi;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.PodGroupCondition;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.QueueStatus;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Status as Volcano's CRDs shape it, to and from generic JSON maps (the form client-java serialises and the
 * informers hand over).
 *
 * <pre>
 * Queue:    {"status":{"state":"Open","pending":1,"inqueue":0,"running":2,"unknown":0,"completed":5,
 *                      "allocated":{"cpu":"4","memory":"16Gi"}}}
 * PodGroup: {"status":{"phase":"Running","running":3,"succeeded":0,"failed":0,
 *                      "conditions":[{"type":"Scheduled","status":"True","reason":"GangBound",
 *                                     "message":"...","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}
 * </pre>
 * A gang a preemption took members from also has {@code {"type":"Preempted","status":"True","reason":"PriorityPreemption"
 * (or "QueueReclaim"),"message":"preempted by ml/train-big (priority 1000) ..."}}, False with reason {@code GangWhole} once
 * its evicted members are gone and it holds its minimum again (Volcano itself writes no condition on eviction, only an
 * {@code Evict} Event; {@code Preempted} follows its {@code Scheduled}/{@code Unschedulable} naming).
 * Every field is always written (a merge patch must reset a count to 0 explicitly); {@code conditions} is a
 * list, which a merge patch replaces whole; {@code allocated} is a map, which a merge patch merges, so
 * resources the previous status had and the new one lacks are written as {@code null} (deleted).
 *
 * <p>PodGroups of the other gang APIs get the same facts in their own shapes ({@link #patchBody(GangApi, String,
 * DesiredStatus, DesiredStatus)}):
 * <pre>
 * Kubernetes (scheduling.k8s.io):  {"status":{"conditions":[{"type":"PodGroupInitiallyScheduled","status":"True",
 *                                   "reason":"Scheduled","message":"...","lastTransitionTime":"..."}]}}
 *     the condition of the version served ({@link KubernetesStatusShape}: v1beta1's PodGroupInitiallyScheduled, True for
 *     good from the first time the gang was bound; v1alpha2's PodGroupScheduled); False/Unschedulable with Muster's
 *     reason as the message while it is refused; no condition before either.
 * scheduler-plugins (scheduling.x-k8s.io): {"status":{"phase":"Running","running":3,"succeeded":0,"failed":0,
 *                                   "scheduled":3,"occupiedBy":"ns/job-a","scheduleStartTime":"..."}}
 *     phase Pending (waiting or refused), Scheduling (bound, no member running yet), Running, Finished or Failed (completed,
 *     with failed members), Unknown; scheduled = members bound to a node or finished; occupiedBy = the owner references of
 *     a member pod as namespace/name, sorted, comma-separated (as scheduler-plugins' controller fills it; absent when the
 *     pods have no owner); scheduleStartTime = when Muster first decided about the gang (its first condition). The shape has
 *     no conditions: a preemption is told by Events only.
 * </pre>
 * {@link #parse(GangApi, Object)} reads each shape back (after a restart, an object whose status is already right is not
 * written again: the writer compares in the owner API's shape, {@code KubeStatusPatcher#same}).
 * Stateless.
 */
public final class StatusJson {
    private StatusJson() {}

    /** The merge-patch body {@code {"status":{...}}}. */
    public static Map<String, Object> patchBody(DesiredStatus desired, DesiredStatus previous) {
        Map<String, Object> status = switch (desired) {
            case QueueStatus q -> queue(q, previous instanceof QueueStatus p ? p : null);
            case PodGroupStatus pg -> podGroup(pg);
        };
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        return body;
    }

    /**
     * The merge-patch body for an object of {@code api} (Queues are Volcano's whatever {@code api} says).
     *
     * @param version the version served of {@code api} (it picks the Kubernetes PodGroup's shape), or null when unknown
     */
    public static Map<String, Object> patchBody(GangApi api, String version, DesiredStatus desired, DesiredStatus previous) {
        if (!(desired instanceof PodGroupStatus pg) || api == null || api == GangApi.VOLCANO) {
            return patchBody(desired, previous);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", api == GangApi.KUBERNETES ? KubernetesStatusShape.of(version).status(pg) : schedulerPluginsPodGroup(pg));
        return body;
    }

    static Map<String, Object> schedulerPluginsPodGroup(PodGroupStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("phase", schedulerPluginsPhase(s));
        m.put("running", s.running());
        m.put("succeeded", s.succeeded());
        m.put("failed", s.failed());
        if (s.scheduled() != NOT_HELD) {
            m.put("scheduled", s.scheduled());
        }
        m.put("occupiedBy", s.occupiedBy().isEmpty() ? null : s.occupiedBy());
        Instant start = null;
        for (PodGroupCondition c : s.conditions()) {
            if (c.type().equals(PodGroupCondition.PREEMPTED)) {
                continue; // a preemption is no scheduling decision; the shape has no conditions to tell it
            }
            if (c.lastTransitionTime() != null && (start == null || c.lastTransitionTime().isBefore(start))) {
                start = c.lastTransitionTime();
            }
        }
        m.put("scheduleStartTime", start == null ? null : start.toString());
        return m;
    }

    /** {@code scheduled} of a scheduler-plugins status read back from an object whose CRD does not hold that field. */
    static final int NOT_HELD = -1;

    /**
     * {@code desired} as an object of {@code api} would hold it, given what {@code known} (read back from it) shows the
     * object can hold: a scheduler-plugins CRD without {@code status.scheduled} holds no such count.
     */
    static DesiredStatus heldPart(GangApi api, DesiredStatus desired, DesiredStatus known) {
        if (api == GangApi.SCHEDULER_PLUGINS && desired instanceof PodGroupStatus d && known instanceof PodGroupStatus k && k.scheduled() == NOT_HELD) {
            return new PodGroupStatus(d.phase(), d.conditions(), d.running(), d.succeeded(), d.failed(), NOT_HELD, d.occupiedBy(), d.initiallyScheduled());
        }
        return desired;
    }

    /** scheduler-plugins' phase for Muster's facts. */
    static String schedulerPluginsPhase(PodGroupStatus s) {
        return switch (s.phase()) {
            case COMPLETED -> s.failed() > 0 ? "Failed" : "Finished";
            // Volcano's Running counts bound members; scheduler-plugins' counts members in phase Running
            case RUNNING -> s.running() > 0 ? "Running" : "Scheduling";
            case UNKNOWN -> "Unknown";
            case PENDING, INQUEUE -> trueCondition(s, PodGroupCondition.SCHEDULED) != null ? "Scheduling" : "Pending";
        };
    }

    static PodGroupCondition trueCondition(PodGroupStatus s, String type) {
        PodGroupCondition c = s.condition(type);
        return c != null && PodGroupCondition.TRUE.equals(c.status()) ? c : null;
    }

    static Map<String, Object> queue(QueueStatus s, QueueStatus previous) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", s.state().wire());
        m.put("pending", s.pending());
        m.put("inqueue", s.inqueue());
        m.put("running", s.running());
        m.put("unknown", s.unknown());
        m.put("completed", s.completed());
        Map<String, Object> allocated = new LinkedHashMap<>();
        s.allocated().asMap().forEach((name, amount) -> allocated.put(name, Quantities.format(name, amount)));
        if (previous != null) {
            for (String name : previous.allocated().asMap().keySet()) {
                allocated.putIfAbsent(name, null);
            }
        }
        m.put("allocated", allocated);
        return m;
    }

    static Map<String, Object> podGroup(PodGroupStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("phase", s.phase().wire());
        List<Map<String, Object>> conditions = new ArrayList<>(s.conditions().size());
        for (PodGroupCondition c : s.conditions()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("type", c.type());
            cm.put("status", c.status());
            cm.put("reason", c.reason());
            cm.put("message", c.message());
            if (c.lastTransitionTime() != null) {
                cm.put("lastTransitionTime", c.lastTransitionTime().toString());
            }
            conditions.add(cm);
        }
        m.put("conditions", conditions);
        m.put("running", s.running());
        m.put("succeeded", s.succeeded());
        m.put("failed", s.failed());
        return m;
    }

    /**
     * A Queue's observed {@code status} object, or null when there is none or it cannot be read (then the
     * writer simply does not know what the API holds, and writes).
     */
    public static QueueStatus parseQueue(Object status) {
        if (!(status instanceof Map<?, ?> m) || m.isEmpty()) {
            return null;
        }
        try {
            Object state = m.get("state");
            Resources.Builder allocated = Resources.builder();
            if (m.get("allocated") instanceof Map<?, ?> a) {
                for (Map.Entry<?, ?> e : a.entrySet()) {
                    if (e.getValue() != null) {
                        String name = String.valueOf(e.getKey());
                        allocated.set(name, Quantities.parse(name, String.valueOf(e.getValue())));
                    }
                }
            }
            return new QueueStatus(state == null ? QueueState.UNKNOWN : QueueState.parse(state.toString()), count(m, "pending"),
                    count(m, "inqueue"), count(m, "running"), count(m, "unknown"), count(m, "completed"), allocated.build());
        } catch (IllegalArgumentException e) { // includes InvalidQuantityException
            return null;
        }
    }

    /**
     * A PodGroup's observed {@code status} in the shape of {@code api}, or null when there is none or it cannot be read.
     * For Kubernetes (either version) and scheduler-plugins the result holds what that shape holds, so that
     * {@link #patchBody(GangApi, String, DesiredStatus, DesiredStatus)} of it gives the status back; what the shape does not hold is left at its zero, and
     * the conditions its phase implies carry its times, so that the fold keeps them. It is for telling whether a write
     * would change anything, and for seeding the fold on its first look at the object.
     */
    public static PodGroupStatus parse(GangApi api, Object status) {
        if (api == null || api == GangApi.VOLCANO) {
            return parsePodGroup(status);
        }
        if (!(status instanceof Map<?, ?> m) || m.isEmpty()) {
            return null;
        }
        try {
            return api == GangApi.KUBERNETES ? KubernetesStatusShape.parse(m) : parseSchedulerPlugins(m);
        } catch (DateTimeParseException | IllegalArgumentException | ClassCastException e) {
            return null;
        }
    }

    private static PodGroupStatus parseSchedulerPlugins(Map<?, ?> m) {
        Object phaseText = m.get("phase");
        int running = count(m, "running");
        int failed = count(m, "failed");
        PodGroupPhase phase = switch (phaseText == null ? "" : phaseText.toString()) {
            case "Finished", "Failed" -> PodGroupPhase.COMPLETED;
            case "Running", "Scheduling" -> PodGroupPhase.RUNNING;
            case "Unknown" -> PodGroupPhase.UNKNOWN;
            default -> PodGroupPhase.PENDING;
        };
        List<PodGroupCondition> conditions = new ArrayList<>();
        Object start = m.get("scheduleStartTime");
        if (start != null) {
            // the condition that phase implies, at scheduleStartTime (which the shape takes from the earliest condition)
            boolean pending = phase == PodGroupPhase.PENDING;
            conditions.add(new PodGroupCondition(pending ? PodGroupCondition.UNSCHEDULABLE : PodGroupCondition.SCHEDULED,
                    PodGroupCondition.TRUE, "", "", Instant.parse(start.toString())));
        }
        // a CRD without status.scheduled (scheduler-plugins' newer schemas dropped it) prunes it: -1, "not held here"
        int scheduled = m.get("scheduled") == null ? NOT_HELD : count(m, "scheduled");
        return new PodGroupStatus(phase, conditions, running, count(m, "succeeded"), failed, scheduled, text(m.get("occupiedBy")));
    }

    /** A Volcano PodGroup's observed {@code status} object, or null when there is none or it cannot be read. */
    public static PodGroupStatus parsePodGroup(Object status) {
        if (!(status instanceof Map<?, ?> m) || m.isEmpty()) {
            return null;
        }
        PodGroupPhase phase = PodGroupPhase.parse(m.get("phase") == null ? null : m.get("phase").toString());
        if (phase == null) {
            return null;
        }
        try {
            List<PodGroupCondition> conditions = new ArrayList<>();
            if (m.get("conditions") instanceof List<?> list) {
                for (Object o : list) {
                    if (o instanceof Map<?, ?> c && c.get("type") != null && c.get("status") != null) {
                        Object t = c.get("lastTransitionTime");
                        conditions.add(new PodGroupCondition(c.get("type").toString(), c.get("status").toString(),
                                text(c.get("reason")), text(c.get("message")), t == null ? null : Instant.parse(t.toString())));
                    }
                }
            }
            return new PodGroupStatus(phase, conditions, count(m, "running"), count(m, "succeeded"), count(m, "failed"));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            return null;
        }
    }

    static String text(Object o) {
        return o == null ? "" : o.toString();
    }

    private static int count(Map<?, ?> m, String field) {
        Object v = m.get(field);
        if (v == null) {
            return 0;
        }
        if (v instanceof Number n) {
            return n.intValue();
        }
        return Integer.parseInt(v.toString());
    }
}
