package dev.muster.core.ledger;

import java.util.Arrays;

/**
 * One String instance and one dense id per node name, for the whole process: the informer's Nodes (the ledger's keys),
 * the ledger's {@linkplain Ledger#candidate index by id} and every decoded filter request share them.
 * kube-scheduler sends the same few thousand node names with every call; decoding each into a new String and then
 * finding the ledger's entry through a hash map was the largest part of the extender's filter (three dependent cache
 * misses per candidate, on caches the API server and kube-scheduler had just used). Here the decoder finds a name's
 * id straight from the request body's bytes ({@link #follower}, else {@link #findAsciiAfter}; a name with escapes or non-ASCII characters, rare, by its String),
 * allocating nothing and touching no String: the table keeps each name's hash beside its id and all names' characters
 * in one byte array, so a lookup reads two arrays and the name's few characters (or, when the name that followed last time
 * is the one, only its characters); the ledger then reads the entry for that id from an array.
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
     * is 0, so they start at {@code ends[id]}), one byte each: a character a JSON string carries as itself in one byte
     * (printable ASCII but {@code "} and {@code \}) as that byte, any other as 0, a byte no such string contains — so a
     * name with such a character is never found by bytes, only by its String; {@code follows[id]}: 1 + the id of the name that followed it in the
     * last list looked up with {@link #findAsciiAfter} (0: none yet), a hint only.
     */
    private record Table(long[] slots, String[] names, int[] ends, byte[] text, int[] follows) {}

    private final int max;
    private volatile Table table = new Table(new long[1024], new String[512], new int[513], new byte[512 * 16], new int[512]);
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

    /**
     * The id of the name whose characters are the bytes {@code bytes[offset, offset + length)}, each printable ASCII
     * other than {@code "} and {@code \} (a JSON string without escapes, as kube-scheduler sends a DNS name), or
     * {@link #NONE}; registers nothing.
     * (Decoders call {@link #findAsciiAfter}, which also remembers the name as a follower.)
     */
    int findAscii(byte[] bytes, int offset, int length) {
        return findAscii(table, bytes, offset, length);
    }

    private static int findAscii(Table t, byte[] bytes, int offset, int length) {
        int h = hash(bytes, offset, length);
        int mask = t.slots.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            long slot = t.slots[i];
            if (slot == 0) {
                return NONE;
            }
            if ((int) (slot >>> 32) == h && sameAscii(t, (int) slot - 1, bytes, offset, length)) {
                return (int) slot - 1;
            }
        }
    }

    /**
     * {@link #findAscii} for the name after the one with id {@code previous} in a list ({@link #NONE} for the first),
     * remembered as {@code previous}'s follower: kube-scheduler sends its candidates in nearly the same order on every
     * call (its node tree's order, each parallel filter chunk in sequence), so a decoder tries {@link #follower} first —
     * one read of that name's characters instead of the hash table's slot, the name's end and then its characters, three
     * reads spread over memory that the API server and kube-scheduler evicted from the caches since the last call — and
     * comes here when it was not that name.
     *
     * <p>The followers are a hint any decoding thread reads and writes without a lock: a lost or stale one only costs
     * this lookup, and a follower is taken only once its characters match (a name registered concurrently and not yet
     * visible has no characters yet, and no name looked up is empty of them, so it cannot match).
     */
    public int findAsciiAfter(int previous, byte[] bytes, int offset, int length) {
        Table t = table;
        int id = findAscii(t, bytes, offset, length);
        if (previous >= 0 && previous < t.follows.length && id != NONE) {
            t.follows[previous] = id + 1;
        }
        return id;
    }

    /**
     * The id of the name that followed {@code previous} in the last list (as {@link #findAsciiAfter} remembered it) if its
     * characters stand in {@code bytes} from {@code offset} and a {@code "} follows them before {@code limit}; else
     * {@link #NONE}. For a decoder scanning a JSON string whose end it does not know yet: one pass over the guess's
     * characters both finds where the string ends and that it is this name, without the scan for the closing quote and
     * the escapes that a lookup by {@link #findAsciiAfter} needs first. The bytes compared are printable ASCII without
     * {@code "} or {@code \} (a stored 0 — a name's other characters, or characters another thread has not yet
     * published — matches nothing), so a match is a complete JSON string without escapes. Lock-free, like the followers.
     */
    public int follower(int previous, byte[] bytes, int offset, int limit) {
        Table t = table;
        int[] follows = t.follows;
        if (previous < 0 || previous >= follows.length) {
            return NONE;
        }
        int guess = follows[previous] - 1;
        if (guess < 0 || guess >= follows.length) {
            return NONE;
        }
        int length = t.ends[guess + 1] - t.ends[guess];
        if (length <= 0 || offset + length >= limit || bytes[offset + length] != '"') {
            return NONE;
        }
        return sameAscii(t, guess, bytes, offset, length) ? guess : NONE;
    }

    /** The length in characters of the name with id {@code id} (an id this table gave). */
    public int length(int id) {
        Table t = table;
        return t.ends[id + 1] - t.ends[id];
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
        for (int c = 0; c < name.length(); c++) {
            char ch = name.charAt(c);
            t.text[start + c] = ch >= 0x20 && ch < 0x80 && ch != '"' && ch != '\\' ? (byte) ch : 0;
        }
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
                Arrays.copyOf(t.ends, names + 1), Arrays.copyOf(t.text, text), Arrays.copyOf(t.follows, names));
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

    /**
     * String.hashCode's formula ({@code h = 31 * h + c}) over ASCII bytes (each byte is its character), so a name's
     * String hashes the same, four characters a step: {@code 31^4 * h + 31^3 * c0 + 31^2 * c1 + 31 * c2 + c3} is the
     * same sum mod 2^32, with one multiplication on the chain per four characters instead of one per character.
     */
    static int hash(byte[] bytes, int offset, int length) {
        int h = 0;
        int i = offset;
        int end = offset + length;
        for (; i + 3 < end; i += 4) {
            h = 923_521 * h + 29_791 * bytes[i] + 961 * bytes[i + 1] + 31 * bytes[i + 2] + bytes[i + 3];
        }
        for (; i < end; i++) {
            h = 31 * h + bytes[i];
        }
        return h;
    }

    private static boolean sameAscii(Table t, int id, byte[] bytes, int offset, int length) {
        int start = t.ends[id];
        if (t.ends[id + 1] - start != length) {
            return false;
        }
        byte[] text = t.text;
        for (int i = 0; i < length; i++) {
            byte c = text[start + i];
            if (c != bytes[offset + i] || c == 0) { // a stored 0 is a character the bytes cannot be
                return false;
            }
        }
        return true;
    }
}
