package dev.muster.server.http.wire;

/**
 * One String instance per node name, shared by the informer's Nodes (the ledger's keys) and every decoded filter
 * request. kube-scheduler sends the same few thousand node names with every call; decoding each into a new String
 * (allocate, inflate, hash) and then comparing it char by char with the ledger's key was a visible part of the
 * extender's CPU. Here a name is looked up straight from the parser's character buffer: a hit allocates nothing, and
 * its String is the ledger's own key, so the ledger's map lookup succeeds on identity with a cached hash.
 *
 * <p>Bounded: at most {@link #MAX_NAMES} names are kept (node names of a cluster, including some that were deleted);
 * beyond that, unknown names are returned as new Strings and not remembered, so a caller sending arbitrary names
 * cannot grow it.
 *
 * <p>Thread-safety: lookups take no lock; they read the current table (a volatile reference to an open-addressing
 * array whose entries are only ever set, never changed, under {@code this}'s lock). A lookup that races with an
 * insert may miss and then takes the lock to look again. Strings are immutable (final fields), so an entry read
 * without the lock is always a complete String.
 */
public final class NodeNames {
    /** Most names remembered. */
    public static final int MAX_NAMES = 1 << 17;
    private static final NodeNames SHARED = new NodeNames(MAX_NAMES);

    private final int max;
    private volatile String[] table = new String[1024];
    private int size; // guarded by this

    NodeNames(int max) {
        this.max = max;
    }

    /** The process-wide table: the extender's decoder and its informer must share one for the identity to hold. */
    public static NodeNames shared() {
        return SHARED;
    }

    /** The canonical instance of {@code name}, remembered if there is room. */
    public String canonical(String name) {
        String[] t = table;
        int h = name.hashCode();
        for (int i = h & (t.length - 1); ; i = (i + 1) & (t.length - 1)) {
            String s = t[i];
            if (s == null) {
                break;
            }
            if (s.hashCode() == h && s.equals(name)) {
                return s;
            }
        }
        return insert(name, h);
    }

    /** The canonical String with the characters {@code chars[offset, offset + length)}. */
    public String canonical(char[] chars, int offset, int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            h = 31 * h + chars[offset + i]; // String.hashCode's formula, so a String's cached hash can be compared
        }
        String[] t = table;
        for (int i = h & (t.length - 1); ; i = (i + 1) & (t.length - 1)) {
            String s = t[i];
            if (s == null) {
                break;
            }
            if (s.hashCode() == h && sameChars(s, chars, offset, length)) {
                return s;
            }
        }
        return insert(new String(chars, offset, length), h);
    }

    /** Names remembered now. */
    public synchronized int size() {
        return size;
    }

    private synchronized String insert(String name, int h) {
        String[] t = table;
        int i = h & (t.length - 1);
        for (String s = t[i]; s != null; s = t[i]) {
            if (s.hashCode() == h && s.equals(name)) {
                return s; // another thread inserted it meanwhile
            }
            i = (i + 1) & (t.length - 1);
        }
        if (size >= max) {
            return name;
        }
        if (2 * (size + 1) > t.length) {
            t = grown(t);
            i = h & (t.length - 1);
            while (t[i] != null) {
                i = (i + 1) & (t.length - 1);
            }
        }
        t[i] = name;
        size++;
        table = t; // publishes a grown table; for an in-place insert, the volatile write orders it before later reads
        return name;
    }

    private static String[] grown(String[] old) {
        String[] t = new String[old.length * 2];
        for (String s : old) {
            if (s != null) {
                int i = s.hashCode() & (t.length - 1);
                while (t[i] != null) {
                    i = (i + 1) & (t.length - 1);
                }
                t[i] = s;
            }
        }
        return t;
    }

    private static boolean sameChars(String s, char[] chars, int offset, int length) {
        if (s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (s.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }
}
