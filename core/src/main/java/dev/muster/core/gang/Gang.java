package dev.muster.core.gang;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.stream.GangState;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One gang's bookkeeping: its PodGroup spec (null until the PodGroup is seen), the member pods that exist
 * (pending or bound, not finished), how many hold resources, the binds waiting at its barrier (each on a
 * claimed slot), the binds held before admission (no slot yet), its state
 * and its backoff. Mutable and confined to {@link dev.muster.core.scheduler.GangScheduler}'s lock; its
 * capacity (the reservation) lives in the ledger.
 */
public final class Gang {
    private final GangKey key;
    private PodGroupSpec spec;
    private final Map<String, Pod> members = new LinkedHashMap<>();
    private final Map<String, BindWaiter> waiters = new LinkedHashMap<>();
    private final Map<String, HeldBind> held = new LinkedHashMap<>();
    private int bound; // members holding resources (bound, or assumed by us)
    private boolean released; // the barrier opened: minMember were bound or waiting together
    private GangState state = GangState.WAITING;
    private String reason = "";
    private int failures;
    private long notBeforeNanos = Long.MIN_VALUE;

    public Gang(GangKey key) {
        this.key = key;
    }

    public GangKey key() {
        return key;
    }

    public PodGroupSpec spec() {
        return spec;
    }

    public void spec(PodGroupSpec s) {
        spec = s;
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

    public void putMember(Pod p) {
        members.put(p.uid(), p);
    }

    public void removeMember(String uid) {
        members.remove(uid);
    }

    public Map<String, BindWaiter> waiters() {
        return waiters;
    }

    /** Binds of members that could not be admitted yet, by pod uid: no slot, held until admitted or timed out. */
    public Map<String, HeldBind> held() {
        return held;
    }

    public int bound() {
        return bound;
    }

    public void boundChanged(int delta) {
        bound += delta;
    }

    public boolean released() {
        return released;
    }

    public void released(boolean r) {
        released = r;
    }

    public GangState state() {
        return state;
    }

    public String reason() {
        return reason;
    }

    /** Sets state and reason; returns true when either changed (an event is due). */
    public boolean setState(GangState s, String r) {
        String newReason = r == null ? "" : r;
        if (s == state && newReason.equals(reason)) {
            return false;
        }
        state = s;
        reason = newReason;
        return true;
    }

    public int failures() {
        return failures;
    }

    public void failed(long notBefore) {
        failures++;
        notBeforeNanos = notBefore;
    }

    public void succeeded() {
        failures = 0;
        notBeforeNanos = Long.MIN_VALUE;
    }

    public long notBeforeNanos() {
        return notBeforeNanos;
    }

    /** Nothing left to track: no spec, no members, no waiters. */
    public boolean isEmpty() {
        return spec == null && members.isEmpty() && waiters.isEmpty() && held.isEmpty();
    }
}
