package dev.muster.server.http.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The node objects of a {@code nodeCacheCapable: false} request, kept as byte ranges of the request
 * body rather than decoded: the filter answer must carry the passing nodes back as full objects
 * ({@code Nodes.items}), and copying their bytes verbatim is far cheaper than building them.
 *
 * <p>Immutable as far as this class is concerned, but it shares the request body array: the body must
 * not be modified while this list (or the {@link ExtenderArgs} holding it) is in use. Safe to read from
 * any thread once published.
 */
public final class RawNodeList {
    private final byte[] source;
    private final List<String> names;
    private final int[] starts;
    private final int[] ends;

    RawNodeList(byte[] source, List<String> names, int[] starts, int[] ends) {
        this.source = Objects.requireNonNull(source, "source");
        this.names = List.copyOf(names);
        if (starts.length != this.names.size() || ends.length != this.names.size()) {
            throw new IllegalArgumentException("one byte range per node name is needed");
        }
        this.starts = starts;
        this.ends = ends;
    }

    /** Number of node objects, equal to {@code names().size()}. */
    public int size() {
        return names.size();
    }

    /** The nodes' {@code metadata.name}s in request order. */
    public List<String> names() {
        return names;
    }

    /** A copy of the JSON text of node {@code index}, exactly as the request carried it. */
    public byte[] nodeJson(int index) {
        Objects.checkIndex(index, names.size());
        return Arrays.copyOfRange(source, starts[index], ends[index]);
    }

    /** Bytes the given nodes take, plus one separator each. */
    int byteLength(int[] indexes) {
        long n = 0;
        for (int i : indexes) {
            n += ends[i] - starts[i] + 1;
        }
        return (int) Math.min(n, Integer.MAX_VALUE - 1024);
    }

    void writeNode(int index, JsonOutput out) {
        out.bytes(source, starts[index], ends[index] - starts[index]);
    }
}
