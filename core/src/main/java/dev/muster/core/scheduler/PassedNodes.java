package dev.muster.core.scheduler;

import dev.muster.core.ledger.NodeList;
import dev.muster.core.ledger.NodeNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The nodes one filter passed, kept compactly until the pod's bind ({@link VerbGuard}): by their process-wide node ids
 * ({@link NodeNames}) — a bit set over the ids when that is smaller, else the sorted ids — plus, rarely, the names that
 * have no id. A pod passed on one node (a gang member's slot, a single pod's picked node) costs a few dozen bytes; one
 * passed on every one of 5,000 nodes about 700 bytes, where the list of names cost 20 KB. {@link #contains} is a bit
 * test or a binary search, not a scan of the list. Immutable.
 */
final class PassedNodes {
    private final long[] bits; // bit id set; null when kept as ids
    private final int[] ids; // sorted; null when kept as bits
    private final String[] unnamed; // names without an id (the shared table was full), usually empty
    private final int size;

    private PassedNodes(long[] bits, int[] ids, String[] unnamed, int size) {
        this.bits = bits;
        this.ids = ids;
        this.unnamed = unnamed;
        this.size = size;
    }

    static PassedNodes of(List<String> nodes) {
        int n = nodes.size();
        int[] found = new int[n];
        int count = 0;
        int maxId = -1;
        List<String> without = null;
        NodeList withIds = nodes instanceof NodeList l ? l : null;
        for (int i = 0; i < n; i++) {
            int id = withIds != null ? withIds.id(i) : NodeNames.NONE;
            if (id == NodeNames.NONE) {
                id = NodeNames.shared().find(nodes.get(i));
            }
            if (id == NodeNames.NONE) {
                if (without == null) {
                    without = new ArrayList<>(1);
                }
                without.add(nodes.get(i));
            } else {
                found[count++] = id;
                maxId = Math.max(maxId, id);
            }
        }
        String[] unnamed = without == null ? NO_NAMES : without.toArray(String[]::new);
        int words = (maxId >> 6) + 1;
        if (count > 0 && words * 2L < count) { // 8 bytes a word against 4 an id: bits are smaller
            long[] bits = new long[words];
            for (int i = 0; i < count; i++) {
                bits[found[i] >> 6] |= 1L << found[i];
            }
            return new PassedNodes(bits, null, unnamed, n);
        }
        int[] ids = Arrays.copyOf(found, count);
        Arrays.sort(ids);
        return new PassedNodes(null, ids, unnamed, n);
    }

    private static final String[] NO_NAMES = new String[0];

    boolean contains(String node) {
        int id = NodeNames.shared().find(node);
        if (id != NodeNames.NONE) {
            if (bits != null) {
                return (id >> 6) < bits.length && (bits[id >> 6] & (1L << id)) != 0;
            }
            if (Arrays.binarySearch(ids, id) >= 0) {
                return true;
            }
        }
        for (String u : unnamed) {
            if (u.equals(node)) {
                return true;
            }
        }
        return false;
    }

    int size() {
        return size;
    }

    /** Up to {@code max} of the nodes, for messages. */
    List<String> some(int max) {
        List<String> out = new ArrayList<>(Math.min(max, size));
        if (bits != null) {
            for (int w = 0; w < bits.length && out.size() < max; w++) {
                for (long b = bits[w]; b != 0 && out.size() < max; b &= b - 1) {
                    out.add(NodeNames.shared().nameOf((w << 6) + Long.numberOfTrailingZeros(b)));
                }
            }
        } else {
            for (int i = 0; i < ids.length && out.size() < max; i++) {
                out.add(NodeNames.shared().nameOf(ids[i]));
            }
        }
        for (int i = 0; i < unnamed.length && out.size() < max; i++) {
            out.add(unnamed[i]);
        }
        return out;
    }
}
