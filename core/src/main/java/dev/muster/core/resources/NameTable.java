package dev.muster.core.resources;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The table behind {@link ResourceNames}: resource name → dense index, the four standard resources first, then at most
 * {@code maxExtended} extended names in the order first seen; a further new name is given {@link ResourceNames#UNKNOWN}'s
 * index, and {@code warn} is told once, naming the first such name and the limit. No name ever loses or changes its index.
 *
 * <p>Thread-safe: writers synchronize on this table; readers use the concurrent {@code index} map and the
 * {@code volatile} array, which is replaced whole.
 */
final class NameTable {
    private final int maxExtended;
    private final Consumer<String> warn;
    private final Map<String, Integer> index = new ConcurrentHashMap<>();
    private boolean toldFull; // guarded by this
    private volatile String[] names = {ResourceNames.CPU, ResourceNames.MEMORY, ResourceNames.EPHEMERAL_STORAGE, ResourceNames.PODS};

    NameTable(int maxExtended, Consumer<String> warn) {
        this.maxExtended = maxExtended;
        this.warn = warn;
        for (int i = 0; i < names.length; i++) {
            index.put(names[i], i);
        }
    }

    int indexOf(String name) {
        Integer known = name == null ? null : index.get(name);
        return known != null ? known : register(name);
    }

    int lookup(String name) {
        Integer known = index.get(name);
        return known == null ? -1 : known;
    }

    int knownOrUnknown(String name) {
        Integer known = index.get(name);
        return known != null ? known : indexOf(ResourceNames.UNKNOWN);
    }

    String nameOf(int i) {
        return names[i];
    }

    int count() {
        return names.length;
    }

    private synchronized int register(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("resource name must not be empty");
        }
        Integer known = index.get(name);
        if (known != null) {
            return known;
        }
        if (names.length >= ResourceNames.STANDARD_COUNT + maxExtended && !ResourceNames.UNKNOWN.equals(name)) {
            if (!toldFull) {
                toldFull = true;
                warn.accept("more than " + maxExtended + " extended resource names seen; " + name + " and later new names are counted as "
                        + ResourceNames.UNKNOWN + " (no node offers them)");
            }
            return register(ResourceNames.UNKNOWN);
        }
        String[] grown = Arrays.copyOf(names, names.length + 1);
        grown[names.length] = name;
        names = grown;
        index.put(name, names.length - 1);
        return names.length - 1;
    }
}
