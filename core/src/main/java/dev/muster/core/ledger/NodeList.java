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

    private final byte[] source; // with spans: where every name's bytes are; null when some name has none
    private final long[] spans; // start << 32 | length in source, per name

    private NodeList(String[] names, int[] ids, int size, byte[] source, long[] spans) {
        this.names = names;
        this.ids = ids;
        this.size = size;
        this.source = source;
        this.spans = spans;
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

    /**
     * The array that holds every name as plain ASCII bytes (no character JSON would escape), when the decoder found
     * them so ({@link Builder#addAscii}); null otherwise. An encoder answering with these names copies them from here
     * (the request body, still in the caches) instead of reading each name's String. Must not be modified.
     */
    public byte[] asciiSource() {
        return source;
    }

    /** With {@link #asciiSource()}: where the name at {@code index} starts in it. */
    public int asciiStart(int index) {
        return (int) (spans[java.util.Objects.checkIndex(index, size)] >>> 32);
    }

    /** With {@link #asciiSource()}: the length in bytes (= characters) of the name at {@code index}. */
    public int asciiLength(int index) {
        return (int) spans[java.util.Objects.checkIndex(index, size)];
    }

    /** Collects names in order; not thread-safe, used by one decoder at a time. */
    public static final class Builder {
        private String[] names;
        private int[] ids;
        private int size;
        private byte[] source; // the one array every name so far was added from by addAscii
        private long[] spans; // null once a name came without its bytes (or from another array)

        /** A builder with room for {@code capacity} names before it grows; the list keeps its arrays as they are. */
        public Builder(int capacity) {
            names = new String[Math.max(1, capacity)];
            ids = new int[names.length];
        }

        /** Adds the registered name with id {@code id}. */
        public Builder add(int id) {
            spans = null;
            return add(null, id);
        }

        /** Adds a name the shared table does not know. */
        public Builder add(String name) {
            spans = null;
            return add(name, NodeNames.NONE);
        }

        /**
         * Adds the name whose plain ASCII bytes (no character JSON would escape) are {@code source[start, start +
         * length)}: registered as {@code id}, or, with {@link NodeNames#NONE}, unknown and built from those bytes. While
         * every name comes this way from one array, the list keeps where they are ({@link NodeList#asciiSource()}).
         */
        public Builder addAscii(int id, byte[] source, int start, int length) {
            if (size == 0) {
                this.source = source;
                this.spans = new long[names.length];
            } else if (source != this.source) {
                spans = null;
            }
            if (spans != null) {
                if (size == spans.length) {
                    spans = java.util.Arrays.copyOf(spans, size * 2);
                }
                spans[size] = (long) start << 32 | length;
            }
            return add(id != NodeNames.NONE ? null : new String(source, start, length, java.nio.charset.StandardCharsets.ISO_8859_1), id);
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
            NodeList l = new NodeList(names, ids, size, spans == null ? null : source, spans);
            names = null; // the list owns the arrays now
            ids = null;
            spans = null;
            source = null;
            return l;
        }
    }
}
