package dev.muster.server.http.wire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the {@code Nodes} NodeList of a {@code nodeCacheCapable: false} request into a
 * {@link RawNodeList}: each item's {@code metadata.name} plus the byte range of the item in the body.
 * Everything else of a node (labels, managedFields, status, ...) is skipped token by token; at
 * thousands of nodes with managedFields the list is megabytes, and nothing of it is decoded; each item's bytes are
 * checked to be UTF-8, since they go back verbatim.
 * Stateless.
 */
final class NodeListReader {
    private NodeListReader() {}

    /** Reads the list at the current token; null for a JSON null. */
    static RawNodeList read(JsonInput in) throws IOException {
        if (!in.objectOrNull("a NodeList object")) {
            return null;
        }
        List<String> names = new ArrayList<>();
        int[] starts = new int[16];
        int[] ends = new int[16];
        int seen = 0;
        while (in.nextField()) {
            if (!"items".equals(in.fieldName())) {
                in.skipFieldValue();
                continue;
            }
            seen = in.markSeen(seen, 1);
            in.next();
            if (!in.arrayOrNull("an array of Node objects")) {
                continue;
            }
            while (in.nextElement()) {
                int n = names.size();
                if (n == starts.length) {
                    starts = Arrays.copyOf(starts, n * 2);
                    ends = Arrays.copyOf(ends, n * 2);
                }
                starts[n] = in.tokenStart();
                names.add(MetadataFieldReader.read(in, "Node", "name"));
                ends[n] = in.tokenStart() + 1; // the node's closing '}'
                int invalid = Utf8.firstInvalid(in.body(), starts[n], ends[n]);
                if (invalid >= 0) { // a key the parser skipped: the node goes back verbatim, so it must be UTF-8
                    throw in.error(String.format("node \"%s\" is not UTF-8: byte 0x%02X at byte %d of the node",
                            names.get(n), in.body()[invalid] & 0xFF, invalid - starts[n]));
                }
            }
        }
        int n = names.size();
        return new RawNodeList(in.body(), names, Arrays.copyOf(starts, n), Arrays.copyOf(ends, n));
    }
}
