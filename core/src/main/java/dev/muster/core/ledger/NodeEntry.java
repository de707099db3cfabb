package dev.muster.core.ledger;

import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.NodeMatcher;
import dev.muster.core.model.NodeTaint;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.List;
import java.util.Map;

/**
 * One node's accounting. Mutable, confined to the {@link Ledger}'s owner lock; outside code reads it
 * only while holding that lock, or through {@link NodeSnapshot}.
 *
 * <p>{@code used} is the sum of the requests of the pods recorded on the node (bound by anyone, or
 * assumed by us); {@code reserved} is the sum of the gang slots held on it. Both are recomputable from
 * the records, which is what {@link Ledger#checkInvariants()} does.
 */
public final class NodeEntry {
    private static final System.Logger LOG = System.getLogger(NodeEntry.class.getName());

    private final String name;
    private final int id; // NodeNames id, or NodeNames.NONE
    private Resources allocatable = Resources.ZERO;
    private boolean schedulable;
    private Map<String, String> labels = Map.of(); // all its labels (immutable; strings shared between nodes, Node#interned)
    private List<NodeTaint> taints = List.of(); // its NoSchedule and NoExecute taints (immutable)
    private boolean preferNoSchedule; // carries a PreferNoSchedule taint
    private boolean known; // false: only referenced by pods so far (seen before its Node object, or deleted)
    private Resources used = Resources.ZERO;
    private Resources reserved = Resources.ZERO;
    // exact running sums behind used and reserved: a release after a sum saturated gives the true sum back
    private final dev.muster.core.resources.ExactSum usedSum = new dev.muster.core.resources.ExactSum();
    private final dev.muster.core.resources.ExactSum reservedSum = new dev.muster.core.resources.ExactSum();
    // requests of pods being evicted for a preemptor whose slots already hold their room (their pods still count in used)
    private final dev.muster.core.resources.ExactSum leavingSum = new dev.muster.core.resources.ExactSum();
    private int pods;
    // derived from the fields above, recomputed on every change (filter reads them for thousands of nodes per pod)
    private Resources free = Resources.ZERO;
    private Resources inUse = Resources.ZERO;
    private boolean overcommitted;
    // the same numbers for the standard resources, so the filter's per-candidate fit and score read this object only
    // (not three vectors and their arrays): most requests ask for nothing else. The capacity ones (cpuCap, memoryCap,
    // offersExtended) change only with allocatable (capacityChanged), the others with every change (derive)
    private long freeCpu;
    private long freeMemory;
    private long freeStorage;
    private long freePods;
    private long cpuCap;
    private long memoryCap;
    private long cpuInUse;
    private long memoryInUse;
    private boolean offersExtended;

    NodeEntry(String name, int id) {
        this.name = name;
        this.id = id;
    }

    public String name() {
        return name;
    }

    /** The name's {@link NodeNames} id, or {@link NodeNames#NONE}. */
    int id() {
        return id;
    }

    public Resources allocatable() {
        return allocatable;
    }

    public Resources used() {
        return used;
    }

    public Resources reserved() {
        return reserved;
    }

    public int podCount() {
        return pods;
    }

    /** The node's labels; empty when none or not known. */
    public Map<String, String> labels() {
        return labels;
    }

    /** The node's {@code NoSchedule} and {@code NoExecute} taints. */
    public List<NodeTaint> taints() {
        return taints;
    }

    /**
     * Null when a pod with constraints {@code c} may go here as far as its node selector, required node affinity and
     * tolerations say ({@link NodeMatcher}), else why not. A node not known yet is judged with no labels and no taints.
     */
    public String whyExcludes(NodeConstraints c) {
        return NodeMatcher.whyNot(c, name, labels, taints);
    }

    /** Whether a pod with constraints {@code c} may go here ({@link #whyExcludes} is null). */
    public boolean admits(NodeConstraints c) {
        return NodeMatcher.admits(c, name, labels, taints);
    }

    /** The node carries a {@code PreferNoSchedule} taint: placements prefer other nodes. */
    public boolean preferNoSchedule() {
        return preferNoSchedule;
    }

    public boolean known() {
        return known;
    }

    public boolean schedulable() {
        return schedulable;
    }

    /** Observed use exceeds allocatable: a state, not an error. No new placements until it falls. */
    public boolean overcommitted() {
        return overcommitted;
    }

    /** Capacity neither used nor reserved; negative amounts where the node is over-full. */
    public Resources free() {
        return free;
    }

    /** used + reserved. */
    public Resources inUse() {
        return inUse;
    }

    /** Whether new pods (or slots) may be placed here at all now: seen, schedulable, not overcommitted. */
    public boolean takesPlacements() {
        return known && schedulable && !overcommitted;
    }

    /** Whether a new pod (or slot) with {@code request} may be placed here now. */
    public boolean accepts(Resources request) {
        return takesPlacements() && fits(request);
    }

    /** {@code request.fitsIn(free())}, from this entry's own fields when the request asks for standard resources only. */
    private boolean fits(Resources request) {
        if (request.width() > ResourceNames.STANDARD_COUNT) {
            return request.fitsIn(free);
        }
        return within(request, ResourceNames.CPU_INDEX, freeCpu) && within(request, ResourceNames.MEMORY_INDEX, freeMemory)
                && within(request, ResourceNames.EPHEMERAL_STORAGE_INDEX, freeStorage) && within(request, ResourceNames.PODS_INDEX, freePods);
    }

    /** As {@link Resources#fitsIn}, for one amount: only the request's own amounts are compared. */
    private static boolean within(Resources request, int index, long available) {
        return index >= request.width() || request.get(index) <= available;
    }

    /** How {@code policy} ranks placing {@code request} here (as {@code policy.score(allocatable(), inUse(), request)}). */
    public double score(ScoringPolicy policy, Resources request) {
        if (request.width() > ResourceNames.STANDARD_COUNT) {
            return policy.score(allocatable, inUse, request);
        }
        return policy.score(cpuCap, cpuInUse, memoryCap, memoryInUse, offersExtended, request);
    }

    /** Why {@code request} cannot be placed here now (after gang reservations), or null when it can. */
    public String whyNot(Resources request) {
        if (!known) {
            return "node " + name + " is not known to muster yet";
        }
        if (!schedulable) {
            return "node is unschedulable";
        }
        if (overcommitted) {
            return "node is overcommitted (pods use more than allocatable)";
        }
        if (request.fitsIn(free)) {
            return null;
        }
        return "insufficient " + String.join(", ", request.shortageAgainst(free).asMap().keySet()) + " (after gang reservations)";
    }

    /**
     * Reservations held here no longer fit beside what is used (allocatable shrank, or others took room). Pods being
     * evicted for a preemptor do not count: the preemptor's slots hold their room while they terminate.
     */
    public boolean reservationsBroken() {
        return !reserved.isZero() && !inUse.minus(leavingSum.value()).fitsIn(allocatable);
    }

    /** The requests of the pods here that are being evicted for a preemptor (still counted in {@link #used()}). */
    public Resources leaving() {
        return leavingSum.value();
    }

    void observe(Resources newAllocatable, boolean newSchedulable, Map<String, String> newLabels, List<NodeTaint> newTaints,
                 boolean newPreferNoSchedule) {
        this.allocatable = newAllocatable;
        this.labels = newLabels;
        this.taints = newTaints;
        this.schedulable = newSchedulable;
        this.preferNoSchedule = newPreferNoSchedule;
        this.known = true;
        capacityChanged();
    }

    void forget() {
        this.allocatable = Resources.ZERO;
        this.schedulable = false;
        this.labels = Map.of();
        this.taints = List.of();
        this.preferNoSchedule = false;
        this.known = false;
        capacityChanged();
    }

    /** allocatable changed: its standard numbers, then everything derived from it and from use. */
    private void capacityChanged() {
        cpuCap = allocatable.cpuMillis();
        memoryCap = allocatable.memoryBytes();
        offersExtended = ScoringPolicy.offersExtended(allocatable);
        derive();
    }

    void addUsed(Resources r) {
        usedSum.add(r);
        used = usedSum.value();
        pods++;
        derive();
    }

    void removeUsed(Resources r) {
        usedSum.subtract(r);
        used = usedSum.value();
        pods--;
        derive();
    }

    void addLeaving(Resources r) {
        leavingSum.add(r);
    }

    void removeLeaving(Resources r) {
        leavingSum.subtract(r);
    }

    void addReserved(Resources r) {
        reservedSum.add(r);
        reserved = reservedSum.value();
        derive();
    }

    void removeReserved(Resources r) {
        reservedSum.subtract(r);
        reserved = reservedSum.value();
        derive();
    }

    private void derive() {
        inUse = used.plus(reserved);
        free = allocatable.minus(inUse);
        freeCpu = free.cpuMillis();
        freeMemory = free.memoryBytes();
        freeStorage = free.get(ResourceNames.EPHEMERAL_STORAGE_INDEX);
        freePods = free.pods();
        cpuInUse = inUse.cpuMillis();
        memoryInUse = inUse.memoryBytes();
        boolean was = overcommitted;
        overcommitted = !used.fitsIn(allocatable);
        if (was != overcommitted && known) { // once per transition, never per request
            if (overcommitted) {
                LOG.log(System.Logger.Level.WARNING, "node {0} is overcommitted: its pods use {1} of allocatable {2}"
                        + " (short {3}); muster places nothing new there until use falls", name, used, allocatable,
                        used.shortageAgainst(allocatable));
            } else {
                LOG.log(System.Logger.Level.INFO, "node {0} is no longer overcommitted: its pods use {1} of allocatable {2}",
                        name, used, allocatable);
            }
        }
    }

    boolean isEmpty() {
        return pods == 0 && reserved.isZero();
    }

    NodeSnapshot snapshot() {
        return new NodeSnapshot(name, allocatable, used, reserved, pods, known, schedulable, overcommitted);
    }
}
