package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonToken;
import dev.muster.core.ledger.NodeList;
import dev.muster.core.ledger.NodeNames;
import java.io.IOException;
import java.util.List;

/**
 * Reads the {@code NodeNames} list of a request ({@code nodeCacheCapable: true}) into a {@link NodeList}: each name by
 * its {@link NodeNames} id when the shared table knows it. Lists as kube-scheduler sends them (ASCII names without
 * escapes) are scanned straight in the body's bytes; any other list is read token by token through the parser, with
 * its errors. Stateless but for a size hint (below).
 */
final class NodeNamesReader {
    private NodeNamesReader() {}

    /**
     * How many node names the last request carried: the next list starts with room for as many (kube-scheduler sends
     * lists of about the same length every time), so it never grows by copying. A hint only: read and written by any
     * decoding thread without a lock, any value is correct.
     */
    private static volatile int lastNodeNameCount = 16;

    /** Reads the list at the current token; null for a JSON null. */
    static List<String> read(JsonInput in) throws IOException {
        if (!in.arrayOrNull("an array of strings")) {
            return null;
        }
        NodeList.Builder names = new NodeList.Builder(lastNodeNameCount);
        if (!addAsciiNodeNames(in, names)) {
            names = readNodeNamesByToken(in);
        }
        NodeList list = names.build();
        lastNodeNameCount = Math.max(16, list.size());
        return list;
    }

    /** The general path (escapes, non-ASCII, errors): each element through the parser. */
    private static NodeList.Builder readNodeNamesByToken(JsonInput in) throws IOException {
        NodeList.Builder names = new NodeList.Builder(lastNodeNameCount);
        while (in.nextElement()) {
            if (!addNodeName(in, names)) {
                throw in.typeError("a string", JsonToken.VALUE_NULL);
            }
        }
        return names;
    }

    /**
     * On a value: adds a node name to {@code names}, by its {@link NodeNames} id when the shared table knows it; false
     * for null, anything else is an error. The path for lists {@link #addAsciiNodeNames} does not take (escapes,
     * non-ASCII names), so it builds the name's String.
     */
    private static boolean addNodeName(JsonInput in, NodeList.Builder names) throws IOException {
        JsonToken t = in.current();
        if (t == JsonToken.VALUE_STRING) {
            String name = in.text();
            int id = NodeNames.shared().find(name);
            if (id == NodeNames.NONE) {
                names.add(name);
            } else {
                names.add(id);
            }
            return true;
        }
        if (t == JsonToken.VALUE_NULL) {
            return false;
        }
        throw in.typeError("a string", t);
    }

    /**
     * On the START_ARRAY of a list of names: when every element is a string of ASCII characters without escapes (as
     * kube-scheduler sends node names), adds them all to {@code names}, each by its {@link NodeNames} id found straight
     * in the body's bytes (no character is decoded, no String built for a known name), moves the parser to the
     * END_ARRAY and returns true. Otherwise returns false with {@code names} part-filled and the parser still on the
     * START_ARRAY: the caller then discards {@code names} and reads the array token by token, with its errors.
     * When the array ends the body, the parser never reads it at all ({@link JsonInput#passArray}).
     */
    private static boolean addAsciiNodeNames(JsonInput in, NodeList.Builder names) throws IOException {
        byte[] body = in.body();
        int end = in.end();
        int at = in.tokenStart() + 1;
        boolean first = true;
        int previous = NodeNames.NONE;
        while (true) {
            at = in.skipWhitespace(at);
            if (at >= end) {
                return false;
            }
            byte b = body[at];
            if (b == ']') {
                in.passArray(at + 1);
                return true;
            }
            if (!first) {
                if (b != ',') {
                    return false;
                }
                at = in.skipWhitespace(at + 1);
                if (at >= end) {
                    return false;
                }
                b = body[at];
            }
            if (b != '"') {
                return false;
            }
            int start = at + 1;
            NodeNames table = NodeNames.shared();
            int id = table.follower(previous, body, start, end); // usually the name that followed last time: one pass
            int i;
            if (id != NodeNames.NONE) {
                i = start + table.length(id);
            } else {
                for (i = start; i < end && body[i] != '"'; i++) {
                    byte c = body[i];
                    if (c == '\\' || c < 0x20) { // an escape, a control character, or (negative) a non-ASCII byte
                        return false;
                    }
                }
                if (i >= end) {
                    return false;
                }
                id = table.findAsciiAfter(previous, body, start, i - start);
            }
            previous = id;
            names.addAscii(id, body, start, i - start);
            at = i + 1;
            first = false;
        }
    }
}
