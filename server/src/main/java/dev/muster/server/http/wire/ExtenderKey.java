package dev.muster.server.http.wire;

/**
 * The capitalised keys of kube-scheduler's extender structs ({@code k8s.io/kube-scheduler/extender/v1}).
 * kube-scheduler encodes them with Go's field names and Go's decoder matches keys case-insensitively,
 * so {@link #match} prefers an exact match and then accepts any case. Each reader passes the keys of
 * the struct it reads; a key that matches none of them is unknown and skipped, as Go does.
 *
 * <p>The ordinal doubles as the bit for duplicate-key detection ({@link #bit()}).
 */
enum ExtenderKey {
    POD("Pod"),
    NODES("Nodes"),
    NODE_NAMES("NodeNames"),
    POD_NAME("PodName"),
    POD_NAMESPACE("PodNamespace"),
    POD_UID("PodUID"),
    NODE("Node"),
    NODE_NAME_TO_VICTIMS("NodeNameToVictims"),
    NODE_NAME_TO_META_VICTIMS("NodeNameToMetaVictims"),
    PODS("Pods"),
    NUM_PDB_VIOLATIONS("NumPDBViolations"),
    UID("UID");

    static final ExtenderKey[] EXTENDER_ARGS = {POD, NODES, NODE_NAMES};
    static final ExtenderKey[] BINDING_ARGS = {POD_NAME, POD_NAMESPACE, POD_UID, NODE};
    static final ExtenderKey[] PREEMPTION_ARGS = {POD, NODE_NAME_TO_VICTIMS, NODE_NAME_TO_META_VICTIMS};
    static final ExtenderKey[] VICTIMS = {PODS, NUM_PDB_VIOLATIONS};
    static final ExtenderKey[] META_POD = {UID};

    private final String wire;

    ExtenderKey(String wire) {
        this.wire = wire;
    }

    /** The key as kube-scheduler writes it. */
    String wire() {
        return wire;
    }

    int bit() {
        return 1 << ordinal();
    }

    /** The key among {@code candidates} that {@code name} denotes, or null if it is none of them. */
    static ExtenderKey match(String name, ExtenderKey[] candidates) {
        for (ExtenderKey k : candidates) {
            if (k.wire.equals(name)) {
                return k;
            }
        }
        for (ExtenderKey k : candidates) {
            if (k.wire.equalsIgnoreCase(name)) {
                return k;
            }
        }
        return null;
    }
}
