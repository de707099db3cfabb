package dev.muster.core.resources;

/**
 * Interns resource names ({@code cpu}, {@code memory}, {@code nvidia.com/gpu}, ...) to small dense
 * indexes so that {@link Resources} can be a plain {@code long[]}.
 *
 * <p>This class is thread-safe. The four standard resources have fixed indexes; extended resources are
 * appended on first sight and never removed, at most {@link #MAX_EXTENDED} of them: a name seen after that is counted
 * under {@link #UNKNOWN} (and logged once), so pods that name ever new resources cannot grow the table — nor the
 * width of every resource vector built from it — for ever. The one table is a {@link NameTable} (its javadoc says how
 * it is guarded).
 */
public final class ResourceNames {
    /**
     * The extended resource that marks a gang member for kube-scheduler: its bind extender lists it in
     * {@code managedResources} ({@code ignoredByScheduler}), so kube-scheduler binds through Muster exactly the pods
     * that request it and binds every other pod itself. The chart's MutatingAdmissionPolicy adds it (quantity 0: only
     * the name matters) to the first container of every pod that declares a gang. Muster never counts it as a resource.
     */
    public static final String GANG_MARKER = "muster.dev/gang";
    public static final String CPU = "cpu";
    public static final String MEMORY = "memory";
    public static final String EPHEMERAL_STORAGE = "ephemeral-storage";
    public static final String PODS = "pods";

    public static final int CPU_INDEX = 0;
    public static final int MEMORY_INDEX = 1;
    public static final int EPHEMERAL_STORAGE_INDEX = 2;
    public static final int PODS_INDEX = 3;
    /** The standard resources take the indexes below this; extended resources (a GPU) the ones from it. */
    public static final int STANDARD_COUNT = 4;

    /**
     * Where amounts of resources that no node or cluster object ever named are counted when they come from
     * request input ({@link ResourceList.Names#KNOWN_ONLY}): no node offers it, so such a request fits nowhere,
     * and a stream of made-up names cannot grow this registry.
     */
    public static final String UNKNOWN = "resources-no-node-offers";

    /**
     * How many extended resource names are given their own index (a cluster offers a handful: GPUs, hugepages, RDMA);
     * further names share {@link #UNKNOWN}'s.
     */
    public static final int MAX_EXTENDED = 64;

    private static final NameTable TABLE = new NameTable(MAX_EXTENDED,
            message -> System.getLogger(ResourceNames.class.getName()).log(System.Logger.Level.WARNING, message));

    private ResourceNames() {}

    /** The index of {@code name}, assigning a new one if the name was never seen. */
    public static int indexOf(String name) {
        return TABLE.indexOf(name);
    }

    /** The index of {@code name}, or -1 if no quantity of that resource was ever seen. */
    public static int lookup(String name) {
        return TABLE.lookup(name);
    }

    /** The index of a known name, or of {@link #UNKNOWN} for a name never seen (registering UNKNOWN once). */
    public static int knownOrUnknown(String name) {
        return TABLE.knownOrUnknown(name);
    }

    public static String nameOf(int index) {
        return TABLE.nameOf(index);
    }

    public static int count() {
        return TABLE.count();
    }
}
