package dev.muster.core.model;

import java.util.Objects;

/** Identifies a PodGroup (a gang): namespace and name. */
public record GangKey(String namespace, String name) implements Comparable<GangKey> {
    public GangKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public int compareTo(GangKey o) {
        int c = namespace.compareTo(o.namespace);
        return c != 0 ? c : name.compareTo(o.name);
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
