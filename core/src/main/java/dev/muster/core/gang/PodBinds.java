package dev.muster.core.gang;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The one owner of every pod's bind: which stage it is in, the future its caller waits on, and every way out. No
 * other class keeps a pod's bind state; the room it stands on is the ledger's (a {@link dev.muster.core.ledger.Slot}
 * earmarked or claimed for it, a {@link dev.muster.core.ledger.PodRecord} once bound), changed only by the parts that
 * drive these transitions.
 *
 * <pre>
 *  filtered ──steered to a slot──▶ earmarked (the slot's state, in the ledger)
 *     │                               │ bind verb
 *     │            ┌──────────────────┴───────────────────┐
 *     │            ▼ gang reserved: slot claimed           ▼ gang not admitted, or no slot claimable yet
 *     │        WAITING (at the barrier) ◀──admitted──── HELD (no slot, until its hold ends)
 *     │            │ barrier opens (minMember bound or waiting);  a member of a gang that runs, or a single pod,
 *     │            ▼                                              goes straight to BINDING
 *     │        BINDING (Binding POST under way) ──answered ok──▶ BOUND (assumed record) ──informer shows it──▶ confirmed (entry gone)
 *     │            └── answered with an error, or the pod is gone ──▶ lost (room released, gang settled)
 *     └─ single pod kube-scheduler binds itself, left one node ──▶ EXPECTED (assumed record)
 *                       ──informer shows it──▶ confirmed │ filtered again, bind verb after all, or not shown within its time ──▶ forgotten
 *
 *  ways out of WAITING and HELD, each failing the caller's future with a reason: deadline passed, pod deleted or
 *  finished, slot taken by pods Muster did not place, leadership lost, cancelled by the caller, the pod filtered again
 *  (kube-scheduler gave that request up), replaced by a newer bind of the same pod, hold ended (HELD only).
 * </pre>
 *
 * Only EXPECTED expires: kube-scheduler was expected to bind the pod and may never have. A BOUND record stays until
 * the cluster shows the pod (or its deletion): the Binding succeeded, so the pod runs there even when the informer
 * is slow, as kube-scheduler's cache keeps a bound pod once its binding finished.
 *
 * <p>Futures are completed through the {@link Outbox}, never under the core's lock. Everything handed out is a copy
 * ({@link Bind}). Confined to the core's lock ({@link Books}).
 */
public final class PodBinds {
    /** Where a pod's bind is (see the class comment). */
    public enum Stage { WAITING, HELD, BINDING, BOUND, EXPECTED }

    /** One pod's bind, as it leaves this class: an immutable copy. {@code untilNanos}: when a hold or expectation ends. */
    public record Bind(PodId pod, GangKey gang, String node, Stage stage, long untilNanos) {}

    private static final class Entry {
        final PodId pod;
        final GangKey gang;
        final String node;
        final CompletableFuture<BindResult> caller; // null for BOUND and EXPECTED (nobody waits)
        Stage stage;
        final long until;

        Entry(PodId pod, GangKey gang, String node, CompletableFuture<BindResult> caller, Stage stage, long until) {
            this.pod = pod;
            this.gang = gang;
            this.node = node;
            this.caller = caller;
            this.stage = stage;
            this.until = until;
        }

        Bind copy() {
            return new Bind(pod, gang, node, stage, until);
        }
    }

    private final Outbox outbox;
    private final Map<String, Entry> byUid = new HashMap<>();
    // WAITING and HELD entries of each gang, in arrival order (a gang's barrier and its held binds are read per gang)
    private final Map<GangKey, Map<String, Entry>> waitingByGang = new HashMap<>();
    private final Map<GangKey, Map<String, Entry>> heldByGang = new HashMap<>();
    private final EnumMap<Stage, Integer> counts = new EnumMap<>(Stage.class);

    public PodBinds(Outbox outbox) {
        this.outbox = outbox;
        for (Stage s : Stage.values()) {
            counts.put(s, 0);
        }
    }

    // ---- reads ---------------------------------------------------------------------------------------------

    /** The pod's bind, or null when it has none (never filtered to a bind, or confirmed, or gone). */
    public Bind of(String uid) {
        Entry e = byUid.get(uid);
        return e == null ? null : e.copy();
    }

    public Stage stageOf(String uid) {
        Entry e = byUid.get(uid);
        return e == null ? null : e.stage;
    }

    /** Whether the pod's Binding POST is under way. */
    public boolean inFlight(String uid) {
        return stageOf(uid) == Stage.BINDING;
    }

    /** The gang's binds in {@code stage} (WAITING or HELD), in arrival order: copies. */
    public List<Bind> of(GangKey gang, Stage stage) {
        Map<String, Entry> m = perGang(stage).get(gang);
        List<Bind> out = new ArrayList<>(m == null ? 0 : m.size());
        if (m != null) {
            for (Entry e : m.values()) {
                out.add(e.copy());
            }
        }
        return out;
    }

    /** How many of the gang's binds are in {@code stage} (WAITING or HELD). */
    public int count(GangKey gang, Stage stage) {
        Map<String, Entry> m = perGang(stage).get(gang);
        return m == null ? 0 : m.size();
    }

    /** The future the pod's caller waits on, or null (for the Binding of a member the barrier just took out). */
    CompletableFuture<BindResult> callerOf(String uid) {
        Entry e = byUid.get(uid);
        return e == null ? null : e.caller;
    }

    /** Whether the pod's bind waits at the barrier or is held. */
    public boolean waitingOrHeld(String uid) {
        Stage s = stageOf(uid);
        return s == Stage.WAITING || s == Stage.HELD;
    }

    /** Whether any bind of the gang waits or is held (the gang's bookkeeping must stay). */
    public boolean anyFor(GangKey gang) {
        return waitingByGang.containsKey(gang) || heldByGang.containsKey(gang);
    }

    /** The gangs with held binds: a copy. */
    public List<GangKey> gangsHolding() {
        return new ArrayList<>(heldByGang.keySet());
    }

    /** How many binds are in each stage now (the gauges read this). */
    public Map<Stage, Integer> counts() {
        return Map.copyOf(counts);
    }

    // ---- into WAITING, HELD, BINDING, EXPECTED ------------------------------------------------------------

    /** The member waits at its gang's barrier on its claimed slot; an earlier waiting or held bind of the pod is replaced. */
    public void await(GangKey gang, PodId pod, String node, CompletableFuture<BindResult> caller) {
        replace(pod.uid());
        put(new Entry(pod, gang, node, caller, Stage.WAITING, Long.MAX_VALUE));
    }

    /** The member's bind is held until {@code untilNanos} (no slot); an earlier waiting or held bind of the pod is replaced. */
    public void hold(GangKey gang, PodId pod, String node, CompletableFuture<BindResult> caller, long untilNanos) {
        replace(pod.uid());
        put(new Entry(pod, gang, node, caller, Stage.HELD, untilNanos));
    }

    /**
     * The pod's Binding POST goes out now. A waiting or held entry of the pod moves on with its caller; otherwise
     * {@code caller} (a single pod's, or a held member taken on by a running gang) is recorded.
     */
    public void binding(GangKey gang, PodId pod, String node, CompletableFuture<BindResult> caller) {
        Entry old = byUid.get(pod.uid());
        if (old != null) {
            remove(old);
            if (old.caller != null && old.caller != caller) {
                outbox.complete(old.caller, BindResult.failed("replaced by a newer bind of the same pod"));
            }
        }
        put(new Entry(pod, gang, node, caller, Stage.BINDING, Long.MAX_VALUE));
    }

    /** kube-scheduler is expected to bind the single pod itself, by {@code untilNanos}. */
    public void expect(PodId pod, String node, long untilNanos) {
        replace(pod.uid());
        put(new Entry(pod, null, node, null, Stage.EXPECTED, untilNanos));
    }

    // ---- out of WAITING and HELD ---------------------------------------------------------------------------

    /**
     * The pod's waiting or held bind fails with {@code reason} (deleted, slot taken, cancelled, leadership lost...).
     * Returns the stage it left (WAITING: its slot is the caller's to vacate), or null when it had none.
     */
    public Stage fail(String uid, String reason) {
        Entry e = byUid.get(uid);
        if (e == null || (e.stage != Stage.WAITING && e.stage != Stage.HELD)) {
            return null;
        }
        remove(e);
        outbox.complete(e.caller, BindResult.failed(reason));
        return e.stage;
    }

    /** The pod's waiting bind learns its outcome from the cluster (it was shown bound); true when there was one. */
    public boolean answer(String uid, BindResult result) {
        Entry e = byUid.get(uid);
        if (e == null || e.stage != Stage.WAITING) {
            return false;
        }
        remove(e);
        outbox.complete(e.caller, result);
        return true;
    }

    /** Fails the gang's binds in {@code stage} whose hold ends by {@code until} (all: Long.MAX_VALUE); returns them. */
    public List<Bind> failAll(GangKey gang, Stage stage, String reason, long until) {
        Map<String, Entry> m = perGang(stage).get(gang);
        List<Bind> out = new ArrayList<>();
        if (m == null) {
            return out;
        }
        for (Entry e : new ArrayList<>(m.values())) {
            if (until - e.until >= 0) {
                remove(e);
                outbox.complete(e.caller, BindResult.failed(reason));
                out.add(e.copy());
            }
        }
        return out;
    }

    /** Fails every waiting and held bind of every gang (leadership lost); returns them. */
    public List<Bind> failEverything(String reason) {
        List<Bind> out = new ArrayList<>();
        for (Entry e : new ArrayList<>(byUid.values())) {
            if (e.stage == Stage.WAITING || e.stage == Stage.HELD) {
                remove(e);
                outbox.complete(e.caller, BindResult.failed(reason));
                out.add(e.copy());
            }
        }
        return out;
    }

    /**
     * Takes the gang's waiting binds out to be bound (the barrier opened): each moves to BINDING; returns them with
     * their callers, in arrival order.
     */
    public List<Bind> open(GangKey gang) {
        List<Bind> out = of(gang, Stage.WAITING);
        for (Bind b : out) {
            Entry e = byUid.get(b.pod().uid());
            remove(e);
            put(new Entry(e.pod, e.gang, e.node, e.caller, Stage.BINDING, Long.MAX_VALUE));
        }
        return out;
    }

    /** The held bind is taken on (its gang was admitted): removed here, its caller handed back to take the normal path. */
    public CompletableFuture<BindResult> takeHeld(String uid) {
        Entry e = byUid.get(uid);
        if (e == null || e.stage != Stage.HELD) {
            return null;
        }
        remove(e);
        return e.caller;
    }

    // ---- out of BINDING, BOUND and EXPECTED -----------------------------------------------------------------

    /**
     * The pod's Binding was answered: its caller learns {@code result}. {@code assumed}: Muster now holds an assumed
     * record for it (BOUND until the cluster shows it); otherwise the entry is gone. Nothing happens when the pod is
     * not BINDING (its entry was replaced meanwhile); returns whether it was.
     */
    public boolean answered(String uid, BindResult result, boolean assumed) {
        Entry e = byUid.get(uid);
        if (e == null || e.stage != Stage.BINDING) {
            return false;
        }
        remove(e);
        if (e.caller != null) {
            outbox.complete(e.caller, result);
        }
        if (result.ok() && assumed) {
            put(new Entry(e.pod, e.gang, e.node, null, Stage.BOUND, Long.MAX_VALUE));
        }
        return true;
    }

    /** Forgets the pod's BOUND or EXPECTED entry (confirmed, gone, or given back); returns the stage it left, or null. */
    public Stage forget(String uid) {
        Entry e = byUid.get(uid);
        if (e == null || (e.stage != Stage.BOUND && e.stage != Stage.EXPECTED)) {
            return null;
        }
        remove(e);
        return e.stage;
    }

    /**
     * Ends what time ends: EXPECTED entries past their time are removed and returned (their assumed records are the
     * caller's to give back); BOUND and EXPECTED entries whose record {@code settled} (confirmed by the cluster, or
     * gone) are removed quietly.
     */
    public List<Bind> sweep(long now, Predicate<String> settled) {
        List<Bind> expired = new ArrayList<>();
        for (Iterator<Entry> it = new ArrayList<>(byUid.values()).iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.stage != Stage.BOUND && e.stage != Stage.EXPECTED) {
                continue;
            }
            if (settled.test(e.pod.uid())) {
                remove(e);
            } else if (e.stage == Stage.EXPECTED && now - e.until >= 0) {
                remove(e);
                expired.add(e.copy());
            }
        }
        return expired;
    }

    // ---- bookkeeping ---------------------------------------------------------------------------------------

    private void replace(String uid) {
        Entry old = byUid.get(uid);
        if (old == null) {
            return;
        }
        if (old.stage == Stage.BINDING) {
            throw new IllegalStateException("pod " + old.pod + " is being bound already");
        }
        remove(old);
        if (old.caller != null) {
            outbox.complete(old.caller, BindResult.failed("replaced by a newer bind of the same pod"));
        }
    }

    private void put(Entry e) {
        byUid.put(e.pod.uid(), e);
        counts.merge(e.stage, 1, Integer::sum);
        if ((e.stage == Stage.WAITING || e.stage == Stage.HELD) && e.gang != null) {
            perGang(e.stage).computeIfAbsent(e.gang, k -> new LinkedHashMap<>()).put(e.pod.uid(), e);
        }
    }

    private void remove(Entry e) {
        if (byUid.remove(e.pod.uid(), e)) {
            counts.merge(e.stage, -1, Integer::sum);
        }
        if ((e.stage == Stage.WAITING || e.stage == Stage.HELD) && e.gang != null) {
            Map<GangKey, Map<String, Entry>> index = perGang(e.stage);
            Map<String, Entry> m = index.get(e.gang);
            if (m != null) {
                m.remove(e.pod.uid());
                if (m.isEmpty()) {
                    index.remove(e.gang);
                }
            }
        }
    }

    private Map<GangKey, Map<String, Entry>> perGang(Stage stage) {
        return switch (stage) {
            case WAITING -> waitingByGang;
            case HELD -> heldByGang;
            default -> throw new IllegalArgumentException("binds are kept per gang only while WAITING or HELD, not " + stage);
        };
    }

    /** This object's own books checked: every entry indexed once, counts matching; empty when they balance. */
    List<String> checkInvariants() {
        List<String> problems = new ArrayList<>();
        EnumMap<Stage, Integer> seen = new EnumMap<>(Stage.class);
        for (Entry e : byUid.values()) {
            seen.merge(e.stage, 1, Integer::sum);
            if ((e.stage == Stage.WAITING || e.stage == Stage.HELD) && e.gang != null) {
                Map<String, Entry> m = perGang(e.stage).get(e.gang);
                if (m == null || m.get(e.pod.uid()) != e) {
                    problems.add("bind of " + e.pod + " is " + e.stage + " but not indexed under gang " + e.gang);
                }
            }
        }
        for (Stage s : Stage.values()) {
            if (seen.getOrDefault(s, 0).intValue() != counts.get(s).intValue()) {
                problems.add("binds counted " + counts.get(s) + " " + s + ", held " + seen.getOrDefault(s, 0));
            }
        }
        for (Stage s : List.of(Stage.WAITING, Stage.HELD)) {
            for (Map<String, Entry> m : perGang(s).values()) {
                for (Entry e : m.values()) {
                    if (byUid.get(e.pod.uid()) != e || e.stage != s) {
                        problems.add("bind of " + e.pod + " is indexed " + s + " but is " + e.stage);
                    }
                }
            }
        }
        return problems;
    }
}
