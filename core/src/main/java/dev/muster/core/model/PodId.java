package dev.muster.core.model;

import java.util.Objects;

/** A pod's identity: the UID is the key; namespace and name are for messages and API calls. */
public record PodId(String uid, String namespace, String name) {
    public PodId {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
