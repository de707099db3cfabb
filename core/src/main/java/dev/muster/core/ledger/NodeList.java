package dev.muster.core.ledger;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * An immutable list of node names that also carries each name's {@linkplain NodeNames id}, so the ledger finds a
 * candidate's entry by index ({@link Ledger#candidate}) instead of hashing its name. Built by the request decoder
 * from the names it found ({@link Builder#add(int)}), or from any list of names ({@link #of}).
 */
public final class NodeList extends AbstractList<String> implements RandomAccess {
    private final String[] names; // null where the name has an id: its String is the shared table's, read when asked for
    private final int[] ids; // NodeNames.shared() ids, NodeNames.NONE for a name it does not know
    private final int size;

    private NodeList(String[] names, int[] ids, int size) {
        this.names = names;
        this.ids = ids;
        this.size = size;
    }

    /** {@code names} with the ids the shared table has for them now; registers nothing. */
    public static NodeList of(List<String> names) {
        if (names instanceof NodeList l) {
            return l;
        }
        Builder b = new Builder(names.size());
        for (String n : names) {
            int id = NodeNames.shared().find(n);
            if (id == NodeNames.NONE) {
                b.add(n);
            } else {
                b.add(id);
            }
        }
        return b.build();
    }

    @Override
    public String get(int index) {
        String name = names[java.util.Objects.checkIndex(index, size)];
        return name != null ? name : NodeNames.shared().nameOf(ids[index]);
    }

    /** The id of the name at {@code index}, or {@link NodeNames#NONE}. */
    public int id(int index) {
        return ids[java.util.Objects.checkIndex(index, size)];
    }

    @Override
    public int size() {
        return size;
    }

    /** Collects names in order; not thread-safe, used by one decoder at a time. */
    public static final class Builder {
        private String[] names;
        private int[] ids;
        private int size;

        /** A builder with room for {@code capacity} names before it grows; the list keeps its arrays as they are. */
        public Builder(int capacity) {
            names = new String[Math.max(1, capacity)];
            ids = new int[names.length];
        }

        /** Adds the registered name with id {@code id}. */
        public Builder add(int id) {
            return add(null, id);
        }

        /** Adds a name the shared table does not know. */
        public Builder add(String name) {
            return add(name, NodeNames.NONE);
        }

        private Builder add(String name, int id) {
            if (size == names.length) {
                names = java.util.Arrays.copyOf(names, size * 2);
                ids = java.util.Arrays.copyOf(ids, size * 2);
            }
            names[size] = name;
            ids[size++] = id;
            return this;
        }

        public NodeList build() {
            NodeList l = new NodeList(names, ids, size);
            names = null; // the list owns the arrays now
            ids = null;
            return l;
        }
    }
}
