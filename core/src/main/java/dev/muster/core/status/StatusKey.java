package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import java.util.Objects;

/** Names an object whose status the controller writes: a Queue (cluster-scoped) or a PodGroup (namespaced). */
public sealed interface StatusKey {

    /** A Volcano Queue, by name. */
    record Queue(String name) implements StatusKey {
        public Queue {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String toString() {
            return "queue " + name;
        }
    }

    /** A Volcano PodGroup, by namespace and name. */
    record PodGroup(GangKey gang) implements StatusKey {
        public PodGroup {
            Objects.requireNonNull(gang, "gang");
        }

        @Override
        public String toString() {
            return "podgroup " + gang;
        }
    }

    static StatusKey queue(String name) {
        return new Queue(name);
    }

    static StatusKey podGroup(GangKey gang) {
        return new PodGroup(gang);
    }
}
