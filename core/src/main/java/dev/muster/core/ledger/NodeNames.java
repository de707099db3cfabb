package dev.muster.core.ledger;

/**
 * One String instance and one dense id per node name, for the whole process: the informer's Nodes (the ledger's keys),
 * the ledger's {@linkplain Ledger#candidate index by id} and every decoded filter request share them.
 * kube-scheduler sends the same few thousand node names with every call; decoding each into a new String and then
 * finding the ledger's entry through a hash map was the largest part of the extender's filter (three dependent cache
 * misses per candidate, on caches the API server and kube-scheduler had just used). Here the decoder finds a name's
 * id straight from the parser's character buffer ({@link #find}), allocating nothing, and the ledger reads the entry
 * for that id from an array.
 *
 * <p>Ids count from 0 in the order names are first {@linkplain #id registered}, are never reused and never change, so
 * an id found at any time names the same node forever. Only the cluster's own names are registered (the ledger's
 * entries: Nodes, and the nodes pods are bound to); a request's names are only {@linkplain #find looked up}, so a
 * caller sending arbitrary names grows nothing. Bounded: at most {@link #MAX_NAMES} names; beyond that a new name gets
 * no id ({@code -1}) and is a String of its own, which every user handles by looking the name up by value.
 *
 * <p>Thread-safety: lookups take no lock; they read the current table (a volatile reference to an open-addressing
 * array of ids and an array of names by id, whose entries are only ever set, never changed, under {@code this}'s
 * lock). A lookup that races with an insert may miss and then takes the lock to look again. Strings are immutable
 * (final fields), so a name read without the lock is always a complete String.
 */
public final class NodeNames {
    /** Most names given an id. */
    public static final int MAX_NAMES = 1 << 17;
    /** "No id": the name is not registered (or the table was full when it was). */
    public static final int NONE = -1;
    private static final NodeNames SHARED = new NodeNames(MAX_NAMES);

    /** {@code slots}: open addressing, each entry an id + 1 (0 = empty); {@code names}: the names by id. */
    private record Table(int[] slots, String[] names) {}

    private final int max;
    private volatile Table table = new Table(new int[1024], new String[512]);
    private int size; // guarded by this

    NodeNames(int max) {
        this.max = max;
    }

    /** The process-wide table: the decoder, the informer and the ledger must share one for ids and identity to hold. */
    public static NodeNames shared() {
        return SHARED;
    }

    /** The canonical instance of {@code name}, registering it if there is room. */
    public String canonical(String name) {
        int id = id(name);
        return id == NONE ? name : nameOf(id);
    }

    /** The id of {@code name}, registering it if there is room; {@link #NONE} when the table is full. */
    public int id(String name) {
        int id = find(name);
        return id != NONE ? id : insert(name, name.hashCode());
    }

    /** The id of {@code name}, or {@link #NONE}; registers nothing. */
    public int find(String name) {
        int h = name.hashCode();
        Table t = table;
        for (int i = h & (t.slots.length - 1); ; i = (i + 1) & (t.slots.length - 1)) {
            int slot = t.slots[i];
            if (slot == 0) {
                return NONE;
            }
            String s = t.names[slot - 1];
            if (s != null && s.hashCode() == h && (s == name || s.equals(name))) {
                return slot - 1;
            }
        }
    }

    /** The id of the name with the characters {@code chars[offset, offset + length)}, or {@link #NONE}; registers nothing. */
    public int find(char[] chars, int offset, int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            h = 31 * h + chars[offset + i]; // String.hashCode's formula, so a String's cached hash can be compared
        }
        Table t = table;
        for (int i = h & (t.slots.length - 1); ; i = (i + 1) & (t.slots.length - 1)) {
            int slot = t.slots[i];
            if (slot == 0) {
                return NONE; // not registered (or registered just now by another thread: a miss costs a map lookup)
            }
            String s = t.names[slot - 1];
            if (s != null && s.hashCode() == h && sameChars(s, chars, offset, length)) {
                return slot - 1;
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

    private synchronized int insert(String name, int h) {
        Table t = table;
        int i = h & (t.slots.length - 1);
        for (int slot = t.slots[i]; slot != 0; slot = t.slots[i]) {
            String s = t.names[slot - 1];
            if (s.hashCode() == h && s.equals(name)) {
                return slot - 1; // another thread inserted it meanwhile
            }
            i = (i + 1) & (t.slots.length - 1);
        }
        if (size >= max) {
            return NONE;
        }
        int id = size;
        if (2 * (size + 1) > t.slots.length || id >= t.names.length) {
            t = grown(t);
            i = h & (t.slots.length - 1);
            while (t.slots[i] != 0) {
                i = (i + 1) & (t.slots.length - 1);
            }
        }
        t.names[id] = name; // before its slot, so a reader that finds the slot finds the name (or reads it under the lock)
        t.slots[i] = id + 1;
        size++;
        table = t; // publishes a grown table; for an in-place insert, the volatile write orders it before later reads
        return id;
    }

    private static Table grown(Table old) {
        int[] slots = new int[old.slots.length * 2];
        String[] names = java.util.Arrays.copyOf(old.names, slots.length / 2);
        for (int slot : old.slots) {
            if (slot != 0) {
                int i = names[slot - 1].hashCode() & (slots.length - 1);
                while (slots[i] != 0) {
                    i = (i + 1) & (slots.length - 1);
                }
                slots[i] = slot;
            }
        }
        return new Table(slots, names);
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
