package dev.muster.server.http.wire;

import dev.muster.core.scheduler.Victims;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Decodes kube-scheduler extender request bodies straight from the request bytes with jackson-core's
 * streaming parser. Only what the decisions need is kept; everything else is skipped without
 * building objects (see {@link PodReader}, {@link NodeListReader}).
 *
 * <p>Wire rules, as kube-scheduler (Go's {@code encoding/json}) has them:
 * <ul>
 *   <li>Extender-level keys ({@code Pod}, {@code Nodes}, {@code NodeNames}, {@code PodName},
 *       {@code PodNamespace}, {@code PodUID}, {@code Node}, {@code NodeNameToVictims},
 *       {@code NodeNameToMetaVictims}, {@code Pods}, {@code UID}, {@code NumPDBViolations}) match
 *       case-insensitively; keys inside Kubernetes objects are the usual lower-camel, case-sensitive.</li>
 *   <li>Any list or map may be {@code null}; unknown keys are skipped (newer schedulers may add some).</li>
 * </ul>
 * Stricter than Go: duplicate keys among the fields read, trailing data after the object, nesting
 * deeper than {@value JsonInput#MAX_DEPTH}, and non-UTF-8 bodies are rejected. Every problem with the
 * input is a {@link WireFormatException} whose message names it; no other exception escapes for bad
 * input.
 *
 * <p>Stateless and thread-safe. Decoded values do not keep the body, except that
 * {@link ExtenderArgs#fullNodes()} refers to it: do not modify the body array while the result is in use.
 * An {@code offset}/{@code length} outside the array is a caller bug and throws
 * {@link IndexOutOfBoundsException}.
 */
public final class WireDecoder {
    private WireDecoder() {}

    /** Decodes a filter or prioritize body ({@code ExtenderArgs}). */
    public static ExtenderArgs decodeExtenderArgs(byte[] body) {
        return decodeExtenderArgs(body, 0, body.length);
    }

    /** Decodes a filter or prioritize body held in {@code body[offset, offset+length)}. */
    public static ExtenderArgs decodeExtenderArgs(byte[] body, int offset, int length) {
        return decode(body, offset, length, WireDecoder::readExtenderArgs);
    }

    /** Decodes a bind body ({@code ExtenderBindingArgs}). */
    public static BindingArgs decodeBindingArgs(byte[] body) {
        return decodeBindingArgs(body, 0, body.length);
    }

    /** Decodes a bind body held in {@code body[offset, offset+length)}. */
    public static BindingArgs decodeBindingArgs(byte[] body, int offset, int length) {
        return decode(body, offset, length, WireDecoder::readBindingArgs);
    }

    /** Decodes a preempt body ({@code ExtenderPreemptionArgs}). */
    public static PreemptionArgs decodePreemptionArgs(byte[] body) {
        return decodePreemptionArgs(body, 0, body.length);
    }

    /** Decodes a preempt body held in {@code body[offset, offset+length)}. */
    public static PreemptionArgs decodePreemptionArgs(byte[] body, int offset, int length) {
        return decode(body, offset, length, WireDecoder::readPreemptionArgs);
    }

    /** Reads one value with {@code reader}, requires the end of the body, and turns every failure into a WireFormatException. */
    private static <T> T decode(byte[] body, int offset, int length, Reader<T> reader) {
        JsonInput in = JsonInput.open(body, offset, length);
        try {
            T value = reader.read(in);
            in.expectEnd();
            return value;
        } catch (IOException e) {
            throw in.wrap(e);
        } finally {
            in.close();
        }
    }

    @FunctionalInterface
    private interface Reader<T> {
        T read(JsonInput in) throws IOException;
    }

    private static ExtenderArgs readExtenderArgs(JsonInput in) throws IOException {
        WirePod pod = null;
        RawNodeList nodes = null;
        List<String> nodeNames = null;
        RawJson namesJson = null;
        int seen = 0;
        while (in.nextField()) {
            ExtenderKey key = ExtenderKey.match(in.fieldName(), ExtenderKey.EXTENDER_ARGS);
            if (key == null) {
                in.skipFieldValue();
                continue;
            }
            seen = in.markSeen(seen, key.bit());
            in.next();
            switch (key) {
                case POD -> pod = readPod(in);
                case NODES -> nodes = NodeListReader.read(in);
                case NODE_NAMES -> {
                    int start = in.tokenStart();
                    nodeNames = NodeNamesReader.read(in);
                    namesJson = nodeNames == null ? null : new RawJson(in.body(), start, in.valueEnd());
                }
                default -> throw new IllegalStateException("unhandled key " + key);
            }
        }
        requirePod(in, pod);
        // kube-scheduler sends exactly one of the two; should both come, the node objects win, because
        // only an answer carrying node objects satisfies a scheduler that sent them.
        return nodes != null ? new ExtenderArgs(pod, null, nodes) : new ExtenderArgs(pod, nodeNames, null, namesJson);
    }

    private static BindingArgs readBindingArgs(JsonInput in) throws IOException {
        String[] values = new String[ExtenderKey.BINDING_ARGS.length];
        int seen = 0;
        while (in.nextField()) {
            ExtenderKey key = ExtenderKey.match(in.fieldName(), ExtenderKey.BINDING_ARGS);
            if (key == null) {
                in.skipFieldValue();
                continue;
            }
            seen = in.markSeen(seen, key.bit());
            in.next();
            values[indexOf(key, ExtenderKey.BINDING_ARGS)] = in.stringOrNull();
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                throw in.error("missing \"" + ExtenderKey.BINDING_ARGS[i].wire() + "\"");
            }
            if (values[i].isEmpty()) {
                throw in.error("\"" + ExtenderKey.BINDING_ARGS[i].wire() + "\" must not be empty");
            }
        }
        return new BindingArgs(values[0], values[1], values[2], values[3]);
    }

    private static PreemptionArgs readPreemptionArgs(JsonInput in) throws IOException {
        WirePod pod = null;
        Map<String, Victims> meta = null;
        Map<String, Victims> full = null;
        int seen = 0;
        while (in.nextField()) {
            ExtenderKey key = ExtenderKey.match(in.fieldName(), ExtenderKey.PREEMPTION_ARGS);
            if (key == null) {
                in.skipFieldValue();
                continue;
            }
            seen = in.markSeen(seen, key.bit());
            in.next();
            switch (key) {
                case POD -> pod = readPod(in);
                case NODE_NAME_TO_META_VICTIMS -> meta = in.current() == JsonToken.VALUE_NULL ? null : VictimsReader.read(in, false);
                case NODE_NAME_TO_VICTIMS -> full = in.current() == JsonToken.VALUE_NULL ? null : VictimsReader.read(in, true);
                default -> throw new IllegalStateException("unhandled key " + key);
            }
        }
        requirePod(in, pod);
        // kube-scheduler sends one of the two (meta victims when nodeCacheCapable); prefer meta victims.
        return new PreemptionArgs(pod, meta != null ? meta : full);
    }

    private static WirePod readPod(JsonInput in) throws IOException {
        return in.current() == JsonToken.VALUE_NULL ? null : PodReader.read(in);
    }

    private static void requirePod(JsonInput in, WirePod pod) {
        if (pod == null) {
            throw in.error("missing \"Pod\"");
        }
    }

    private static int indexOf(ExtenderKey key, ExtenderKey[] keys) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == key) {
                return i;
            }
        }
        throw new IllegalStateException("unhandled key " + key);
    }
}
