package dev.muster.core.ledger;

import java.util.Arrays;

/**
 * One String instance and one dense id per node name, for the whole process: the informer's Nodes (the ledger's keys),
 * the ledger's {@linkplain Ledger#candidate index by id} and every decoded filter request share them.
 * kube-scheduler sends the same few thousand node names with every call; decoding each into a new String and then
 * finding the ledger's entry through a hash map was the largest part of the extender's filter (three dependent cache
 * misses per candidate, on caches the API server and kube-scheduler had just used). Here the decoder finds a name's
 * id straight from the parser's character buffer ({@link #find}), allocating nothing and touching no String: the
 * table keeps each name's hash beside its id and all names' characters in one array, so a lookup reads two arrays
 * and the name's few characters; the ledger then reads the entry for that id from an array.
 *
 * <p>Ids count from 0 in the order names are first {@linkplain #id registered}, are never reused and never change, so
 * an id found at any time names the same node forever. Only the cluster's own names are registered (the ledger's
 * entries: Nodes, and the nodes pods are bound to); a request's names are only {@linkplain #find looked up}, so a
 * caller sending arbitrary names grows nothing. Bounded: at most {@link #MAX_NAMES} names; beyond that a new name gets
 * no id ({@link #NONE}) and is a String of its own, which every user handles by looking the name up by value.
 *
 * <p>Thread-safety: lookups take no lock; they read the current table (a volatile reference to arrays whose entries
 * are only ever set, never changed, under {@code this}'s lock; when one must grow, all are copied and the copies
 * published through the volatile reference, and the old arrays are never written again). A name's characters, end and String are written before its slot, but a
 * lookup racing with the insert may still see the slot before them: it then finds no match and reports a miss, which
 * every caller tolerates ({@link #id} takes the lock and looks again; a decoded name without an id is looked up by
 * value). Strings are immutable (final fields), so a name read without the lock is always a complete String.
 */
public final class NodeNames {
    /** Most names given an id. */
    public static final int MAX_NAMES = 1 << 17;
    /** "No id": the name is not registered (or the table was full when it was). */
    public static final int NONE = -1;
    private static final NodeNames SHARED = new NodeNames(MAX_NAMES);

    /**
     * {@code slots}: open addressing, each entry the name's hash in the high half and its id + 1 in the low half (0 =
     * empty); by id: {@code names}, and {@code ends[id + 1]}, where its characters end in {@code text} ({@code ends[0]}
     * is 0, so they start at {@code ends[id]}).
     */
    private record Table(long[] slots, String[] names, int[] ends, char[] text) {}

    private final int max;
    private volatile Table table = new Table(new long[1024], new String[512], new int[513], new char[512 * 16]);
    private int size; // guarded by this

    NodeNames(int max) {
        this.max = max;
    }

    /** The process-wide table: the decoder, the informer and the ledger must share one for ids and identity to hold. */
    public static NodeNames shared() {
        return SHARED;
    }

    /** The id of {@code name}, registering it if there is room; {@link #NONE} when the table is full. */
    public int id(String name) {
        int id = find(name);
        return id != NONE ? id : insert(name);
    }

    /** The id of {@code name}, or {@link #NONE}; registers nothing. */
    public int find(String name) {
        int h = name.hashCode();
        Table t = table;
        int mask = t.slots.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            long slot = t.slots[i];
            if (slot == 0) {
                return NONE;
            }
            if ((int) (slot >>> 32) == h) {
                String s = t.names[(int) slot - 1];
                if (s != null && (s == name || s.equals(name))) {
                    return (int) slot - 1;
                }
            }
        }
    }

    /** The id of the name with the characters {@code chars[offset, offset + length)}, or {@link #NONE}; registers nothing. */
    public int find(char[] chars, int offset, int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            h = 31 * h + chars[offset + i]; // String.hashCode's formula, so a name's String hashes the same
        }
        Table t = table;
        int mask = t.slots.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            long slot = t.slots[i];
            if (slot == 0) {
                return NONE; // not registered (or registered just now by another thread: a miss costs a map lookup)
            }
            if ((int) (slot >>> 32) == h && sameChars(t, (int) slot - 1, chars, offset, length)) {
                return (int) slot - 1;
            }
        }
    }

    /** The name with id {@code id} (an id this table gave). */
    public String nameOf(int id) {
        String s = table.names[id];
        if (s == null) { // registered by another thread, seen before its name: read it under the lock
            synchronized (this) {
                s = table.names[id];
            }
        }
        return s;
    }

    /** Names registered now. */
    public synchronized int size() {
        return size;
    }

    private synchronized int insert(String name) {
        int found = find(name); // under the lock every entry is complete: another thread may have inserted it meanwhile
        if (found != NONE || size >= max) {
            return found;
        }
        int id = size;
        Table t = room(table, name.length());
        int h = name.hashCode();
        int mask = t.slots.length - 1;
        int i = h & mask;
        while (t.slots[i] != 0) {
            i = (i + 1) & mask;
        }
        int start = t.ends[id];
        name.getChars(0, name.length(), t.text, start);
        t.ends[id + 1] = start + name.length();
        t.names[id] = name;
        t.slots[i] = ((long) h << 32) | (id + 1L); // last: a reader that finds the slot finds the rest (or misses)
        size++;
        table = t; // publishes a grown table; for an in-place insert, the volatile write orders it before later reads
        return id;
    }

    /**
     * {@code t}, or a grown copy, with room for one more name of {@code length} characters. A copy copies every array:
     * the old table's arrays are then never written again, so a reader still holding it sees ends that fit its text.
     */
    private Table room(Table t, int length) {
        boolean slotsFull = 2 * (size + 1) > t.slots.length;
        boolean namesFull = size + 1 > t.names.length;
        int need = t.ends[size] + length;
        if (!slotsFull && !namesFull && need <= t.text.length) {
            return t;
        }
        int names = namesFull ? t.names.length * 2 : t.names.length;
        int text = need > t.text.length ? Math.max(need, t.text.length * 2) : t.text.length;
        return new Table(slotsFull ? rehashed(t, t.slots.length * 2) : t.slots.clone(), Arrays.copyOf(t.names, names),
                Arrays.copyOf(t.ends, names + 1), Arrays.copyOf(t.text, text));
    }

    private static long[] rehashed(Table t, int length) {
        long[] slots = new long[length];
        for (long slot : t.slots) {
            if (slot != 0) {
                int i = (int) (slot >>> 32) & (length - 1);
                while (slots[i] != 0) {
                    i = (i + 1) & (length - 1);
                }
                slots[i] = slot;
            }
        }
        return slots;
    }

    private static boolean sameChars(Table t, int id, char[] chars, int offset, int length) {
        int start = t.ends[id];
        if (t.ends[id + 1] - start != length) {
            return false;
        }
        char[] text = t.text;
        for (int i = 0; i < length; i++) {
            if (text[start + i] != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }
}
