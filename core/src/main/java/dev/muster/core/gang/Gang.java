package dev.muster.core.gang;

import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.Refusal;
import dev.muster.core.stream.AllocationEvent.GangChanged;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One gang's bookkeeping: its PodGroup spec (null until the PodGroup is seen), the member pods that exist
 * (pending or bound, not finished), how many hold resources, its state and its backoff. Its capacity (the
 * reservation) lives in the ledger; its members' binds in {@link PodBinds}.
 *
 * <p>State changes only through the transitions below; each returns the event it causes (null when nothing
 * changed or the PodGroup is unknown) for the caller to journal. Mutable and confined to the scheduling
 * core's lock ({@link Books}).
 *
 * <p>Words: the barrier <em>opens</em> when minMember members are bound or waiting together; from then on
 * the gang <em>runs</em> (further members bind like single pods) until it <em>finishes</em> (no member holds
 * resources any more). Capacity is <em>released</em> only in the ledger.
 */
public final class Gang {
    private final GangKey key;
    private final long arrival; // order in which the core first heard of the gang: older gangs go first
    private PodGroupSpec spec;
    private final Map<String, Pod> members = new LinkedHashMap<>();
    private int bound; // members holding resources (bound, or assumed by us)
    private int succeededInRun; // members of this run that were bound and have succeeded since
    private boolean running; // the barrier opened: minMember were bound or waiting together
    private int runsStarted; // how many times it started running since the core first heard of it
    private GangState state = GangState.WAITING;
    private Refusal why = Refusal.NONE;
    private int failures;
    private int version; // changes whenever members, their binding or the spec change (caches of derived values check it)
    private long lastBoundNanos = Long.MIN_VALUE; // when a member last started holding resources (the core's clock)
    private int priorityVersion = -1; // the version priority was computed at
    private int priority;
    /** The waiting line's view of the gang (owned by {@link WaitingLine}; valid while its version is the gang's). */
    final LinePlace place = new LinePlace();

    /** What {@link WaitingLine} derived from the gang, and when. */
    static final class LinePlace {
        int version = -1;
        int priority;
        Resources need = Resources.ZERO;
        GangKey toldBehind;  // the gang it was last told it waits behind, or null
        long pass;           // the last AdmissionPass that visited it
        long since = Long.MIN_VALUE; // when it was first seen waiting in this wait (MIN_VALUE: not waiting)
    }
    private long notBeforeNanos = Long.MIN_VALUE;

    /** @param arrival the gang's place in arrival order (smaller = older) */
    public Gang(GangKey key, long arrival) {
        this.key = key;
        this.arrival = arrival;
    }

    // ---- reads -----------------------------------------------------------------------------------------

    public GangKey key() {
        return key;
    }

    public PodGroupSpec spec() {
        return spec;
    }

    /** The gang's place in arrival order (smaller = older). */
    public long arrival() {
        return arrival;
    }

    public String queue() {
        return spec == null ? PodGroupSpec.DEFAULT_QUEUE : spec.queue();
    }

    public int minMember() {
        return spec == null ? 0 : spec.minMember();
    }

    public Collection<Pod> members() {
        return Collections.unmodifiableCollection(members.values());
    }

    public int memberCount() {
        return members.size();
    }

    /** The tasks with fewer pods than their minTaskMember, e.g. {@code task ps (0/1 pods exist)}; empty when none. */
    public String tasksShort() {
        if (spec == null || spec.minTaskMember().isEmpty()) {
            return "";
        }
        Map<String, Integer> byTask = new java.util.HashMap<>();
        for (Pod m : members.values()) {
            byTask.merge(m.task(), 1, Integer::sum);
        }
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Integer> t : new java.util.TreeMap<>(spec.minTaskMember()).entrySet()) {
            int have = byTask.getOrDefault(t.getKey(), 0);
            if (have < t.getValue()) {
                out.add("task " + t.getKey() + " (" + have + "/" + t.getValue() + " pods exist)");
            }
        }
        return String.join(", ", out);
    }

    /** Whether some member exists that is not bound yet (the gang has something to wait for). */
    public boolean hasPendingMember() {
        for (Pod m : members.values()) {
            if (!m.isBound()) {
                return true;
            }
        }
        return false;
    }

    public int bound() {
        return bound;
    }

    /**
     * Members placed in this run: those holding resources plus those that were bound and have succeeded since (a job's
     * fast task may complete before the last member's Binding answers; the gang still started whole). Volcano counts
     * succeeded tasks as ready too; a failed one is not.
     */
    public int placed() {
        return bound + succeededInRun;
    }

    /**
     * The highest {@code spec.priority} among its members (kube-scheduler's own order is by pod priority too); computed
     * again only when the members changed.
     */
    public int priority() {
        if (priorityVersion != version) {
            int p = Integer.MIN_VALUE;
            for (Pod m : members.values()) {
                p = Math.max(p, m.priority());
            }
            priority = members.isEmpty() ? 0 : p;
            priorityVersion = version;
        }
        return priority;
    }

    /** When a member last started holding resources, on the core's clock ({@code Long.MIN_VALUE}: never). */
    public long lastBoundNanos() {
        return lastBoundNanos;
    }

    /**
     * Whether the running gang may lose {@code taken} of its bound members to a preemption: its spec's disruption mode
     * decides ({@link dev.muster.core.model.DisruptionMode#mayLose}); a gang whose PodGroup is unknown may lose any.
     */
    public boolean mayLose(int taken) {
        return spec == null || spec.preemption().disruption().mayLose(taken, bound, spec.minMember());
    }

    /** The barrier opened and no run has finished since. */
    public boolean running() {
        return running;
    }

    /** How many times it started running since the core first heard of it (a run that ended counts too). */
    public int runsStarted() {
        return runsStarted;
    }

    public GangState state() {
        return state;
    }

    public Refusal why() {
        return why;
    }

    public String reason() {
        return why.text();
    }

    public int failures() {
        return failures;
    }

    /** While this is in the future (and failures > 0) the gang is backing off. */
    public long notBeforeNanos() {
        return notBeforeNanos;
    }

    public boolean backingOff(long now) {
        return failures > 0 && now - notBeforeNanos < 0;
    }

    /** No spec and no members (its binds are {@link PodBinds}'; {@link Books#forgetIfDone} asks both). */
    public boolean isEmpty() {
        return spec == null && members.isEmpty();
    }

    // ---- members -------------------------------------------------------------------------------------------

    public void putMember(Pod p) {
        members.put(p.uid(), p);
        version++;
    }

    public void removeMember(String uid) {
        if (members.remove(uid) != null) {
            version++;
        }
    }

    /** Changes whenever the members, how many are bound, or the spec change: values derived from them may be cached by it. */
    public int version() {
        return version;
    }

    /** A member that held resources in this run has succeeded (call before its resources are given back). */
    public void memberSucceeded() {
        if (running) {
            succeededInRun++;
        }
    }

    /** A member now holds resources ({@code +1}) or no longer does ({@code -1}), at {@code now}. */
    public void boundChanged(int delta, long now) {
        bound += delta;
        version++;
        if (delta > 0) {
            lastBoundNanos = now;
        }
    }

    // ---- transitions -----------------------------------------------------------------------------------

    /** The PodGroup was seen (again); returns the gang's first event when it was unknown. */
    public GangChanged podGroupSeen(PodGroupSpec s) {
        boolean isNew = spec == null;
        spec = s;
        version++;
        return isNew ? event() : null;
    }

    /** The PodGroup is gone: the gang forgets its spec and run, and reports DELETED once. */
    public GangChanged podGroupDeleted() {
        if (spec == null) {
            return null;
        }
        GangChanged deleted = new GangChanged(key, queue(), GangState.DELETED, Refusal.note("podgroup deleted"));
        spec = null;
        version++;
        running(false);
        state = GangState.WAITING;
        why = Refusal.NONE;
        return deleted;
    }

    /** Moves to {@code s} for {@code reason}; returns the event when state or reason changed. */
    public GangChanged to(GangState s, Refusal reason) {
        Refusal r = reason == null ? Refusal.NONE : reason;
        if (s == state && r.equals(why)) {
            return null;
        }
        state = s;
        why = r;
        return event();
    }

    /** The barrier opens for {@code together} members: the gang runs, its failures are forgotten. */
    public GangChanged open(int together) {
        running(true);
        failures = 0;
        notBeforeNanos = Long.MIN_VALUE;
        // BOUND is reported when minMember are bound (allocated), not when the Bindings are sent: Kubernetes has
        // no multi-pod binding, and a member deleted right now fails its Binding while the others succeed
        return to(GangState.RESERVED, Refusal.note(together + " members binding together"));
    }

    /** Seen running without our barrier (e.g. rebuilt after a restart): minMember members already hold resources. */
    public GangChanged runs() {
        running(true);
        return to(GangState.BOUND, Refusal.note(bound + " members bound"));
    }

    /** No member holds resources any more: the run is over and a new one assembles anew. */
    public GangChanged finished() {
        running(false);
        return to(GangState.WAITING, Refusal.NONE);
    }

    /** The reservation's deadline passed: EXPIRED, then BACKED_OFF until {@code notBefore}. */
    public List<GangChanged> expired(Refusal reason, long notBefore) {
        failures++;
        notBeforeNanos = notBefore;
        List<GangChanged> out = new ArrayList<>(2);
        GangChanged e = to(GangState.EXPIRED, reason);
        if (e != null) {
            out.add(e);
        }
        GangChanged b = to(GangState.BACKED_OFF, reason);
        if (b != null) {
            out.add(b);
        }
        return out;
    }

    /** A run starts or ends: what was counted for the previous run is forgotten. */
    private void running(boolean starts) {
        if (starts && !running) {
            runsStarted++;
        }
        running = starts;
        succeededInRun = 0;
    }

    private GangChanged event() {
        return spec == null ? null : new GangChanged(key, queue(), state, why);
    }
}
