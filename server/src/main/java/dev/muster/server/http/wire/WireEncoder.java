package dev.muster.server.http.wire;

import dev.muster.core.ledger.NodeList;
import dev.muster.core.scheduler.NodeScore;
import dev.muster.core.scheduler.Victims;
import dev.muster.core.scheduler.FilterResult;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Encodes the extender's answers in the shapes kube-scheduler accepts (see the captures in the test
 * resources {@code fixtures/kube-scheduler-v1.36}), as UTF-8 JSON bytes ready for the response body:
 *
 * <ul>
 *   <li>filter: {@code {"Nodes":null,"NodeNames":[..],"FailedNodes":{..},"FailedAndUnresolvableNodes":{..},"Error":""}};
 *       when the request carried full node objects ({@code nodeCacheCapable: false}), the passing nodes go
 *       back as {@code "Nodes":{"metadata":{},"items":[..]}} (kube-scheduler then reads
 *       {@code Nodes.items}), copied verbatim from the request body, and {@code NodeNames} is null;</li>
 *   <li>prioritize: a bare array {@code [{"Host":"n","Score":0}]};</li>
 *   <li>bind: {@code {"Error":""}} or {@code {"Error":"reason"}};</li>
 *   <li>preempt: {@code {"NodeNameToMetaVictims":{"n":{"Pods":[{"UID":".."}],"NumPDBViolations":0}}}}.</li>
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class WireEncoder {
    private static final byte[] HOST = "{\"Host\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SCORE = ",\"Score\":".getBytes(StandardCharsets.US_ASCII);

    private WireEncoder() {}

    /**
     * Encodes a filter answer to {@code request}.
     *
     * @throws IllegalArgumentException if the request carried full nodes and the result passes a node
     *                                  that was not among them (kube-scheduler only accepts a subset);
     *                                  with node names the caller is trusted to return a subset
     */
    public static byte[] encodeFilterResult(ExtenderArgs request, FilterResult result) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(result, "result");
        RawNodeList full = request.fullNodes();
        int[] passing = full == null ? null : indexesIn(full, result.feasible());
        int estimate = 128 + estimate(result.failed()) + estimate(result.unresolvable())
                + (full == null ? 24 * result.feasible().size() : full.byteLength(passing));
        JsonOutput out = new JsonOutput(estimate);
        out.raw("{\"Nodes\":");
        if (full == null) {
            out.raw("null,\"NodeNames\":");
            if (request.nodeNamesJson() != null && result.feasible().equals(request.nodeNames())) {
                request.nodeNamesJson().writeTo(out); // every node passed: repeat the request's array as sent
            } else {
                stringArray(out, result.feasible());
            }
        } else {
            out.raw("{\"metadata\":{},\"items\":[");
            for (int i = 0; i < passing.length; i++) {
                if (i > 0) {
                    out.raw(',');
                }
                full.writeNode(passing[i], out);
            }
            out.raw("]},\"NodeNames\":null");
        }
        out.raw(",\"FailedNodes\":");
        stringMap(out, result.failed());
        out.raw(",\"FailedAndUnresolvableNodes\":");
        stringMap(out, result.unresolvable());
        out.raw(",\"Error\":\"\"}");
        return out.toByteArray();
    }

    /** A filter answer that fails the call with {@code error} (no request needed). */
    public static byte[] encodeFilterFailure(String error) {
        Objects.requireNonNull(error, "error");
        JsonOutput out = new JsonOutput(128 + error.length());
        out.raw("{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":")
                .string(error).raw('}');
        return out.toByteArray();
    }

    /** Encodes a prioritize answer: a bare JSON array of host scores. */
    public static byte[] encodePrioritizeResult(List<NodeScore> priorities) {
        return encodePrioritizeResult(priorities, List.of());
    }

    /**
     * {@link #encodePrioritizeResult(List)} for scores of the request's candidates {@code names}: when they are exactly
     * those names in order (the same instances, as the core answers) and the decoder kept their plain ASCII bytes
     * ({@link NodeList#asciiSource()}), each name is copied from the request body, still in the caches, instead of
     * read, checked and copied from Strings all over the heap (5,000 of them at 5,000 nodes).
     */
    public static byte[] encodePrioritizeResult(List<NodeScore> priorities, List<String> names) {
        NodeList body = names instanceof NodeList l && l.asciiSource() != null && l.size() == priorities.size() ? l : null;
        // sized exactly when every name is plain ASCII (node names are DNS names), so the answer is the buffer itself:
        // at 5,000 nodes that saves a ~150 KB copy and a guessed ~200 KB buffer per answer
        long size = 2L + Math.max(0, priorities.size() - 1);
        for (int i = 0; i < priorities.size(); i++) {
            NodeScore p = priorities.get(i);
            if (body != null && p.node() != body.get(i)) {
                body = null; // not the request's names in order after all (sizes so far are the same either way)
            }
            int name = body != null ? body.asciiLength(i) : p.node().length();
            size += HOST.length + 1 + name + 1 + SCORE.length + JsonOutput.digits(p.score()) + 1; // {"Host":"name","Score":n}
        }
        JsonOutput out = new JsonOutput((int) Math.min(size, Integer.MAX_VALUE - 8));
        out.raw('[');
        for (int i = 0; i < priorities.size(); i++) {
            NodeScore p = priorities.get(i);
            if (i > 0) {
                out.raw(',');
            }
            out.bytes(HOST, 0, HOST.length);
            if (body != null) {
                out.raw('"').bytes(body.asciiSource(), body.asciiStart(i), body.asciiLength(i)).raw('"');
            } else {
                out.string(p.node());
            }
            out.bytes(SCORE, 0, SCORE.length).number(p.score()).raw('}');
        }
        return out.raw(']').toByteArray();
    }

    /** Encodes a bind answer: {@code ""} (or null) for success, else the reason the bind failed. */
    public static byte[] encodeBindResult(String error) {
        return encodeError(error);
    }

    /** {@code {"Error":"..."}}: a bind answer, and the body of every error the extender answers with. */
    public static byte[] encodeError(String error) {
        String e = error == null ? "" : error;
        JsonOutput out = new JsonOutput(16 + e.length());
        return out.raw("{\"Error\":").string(e).raw('}').toByteArray();
    }

    /** Encodes a preempt answer: the candidate nodes the extender accepts, with their victims. */
    public static byte[] encodePreemptionResult(Map<String, Victims> nodeNameToMetaVictims) {
        JsonOutput out = new JsonOutput(64 + 96 * nodeNameToMetaVictims.size());
        out.raw("{\"NodeNameToMetaVictims\":{");
        boolean first = true;
        for (Map.Entry<String, Victims> e : nodeNameToMetaVictims.entrySet()) {
            if (!first) {
                out.raw(',');
            }
            first = false;
            out.string(e.getKey()).raw(":{\"Pods\":[");
            List<String> uids = e.getValue().podUids();
            for (int i = 0; i < uids.size(); i++) {
                if (i > 0) {
                    out.raw(',');
                }
                out.raw("{\"UID\":").string(uids.get(i)).raw('}');
            }
            out.raw("],\"NumPDBViolations\":").number(e.getValue().numPdbViolations()).raw('}');
        }
        return out.raw("}}").toByteArray();
    }

    /** Where each passing node sits in the request's node list. */
    private static int[] indexesIn(RawNodeList full, List<String> passing) {
        Map<String, Integer> index = new HashMap<>(full.size() * 2);
        List<String> names = full.names();
        for (int i = names.size() - 1; i >= 0; i--) {
            index.put(names.get(i), i); // the first occurrence wins
        }
        int[] at = new int[passing.size()];
        for (int i = 0; i < at.length; i++) {
            Integer found = index.get(passing.get(i));
            if (found == null) {
                throw new IllegalArgumentException("filter result passes node \"" + passing.get(i)
                        + "\", which the request did not carry");
            }
            at[i] = found;
        }
        return at;
    }

    private static int estimate(Map<String, String> reasons) {
        int n = 0;
        for (Map.Entry<String, String> e : reasons.entrySet()) {
            n += 8 + e.getKey().length() + e.getValue().length();
        }
        return n;
    }

    private static void stringArray(JsonOutput out, List<String> values) {
        out.raw('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                out.raw(',');
            }
            out.string(values.get(i));
        }
        out.raw(']');
    }

    private static void stringMap(JsonOutput out, Map<String, String> values) {
        out.raw('{');
        boolean first = true;
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!first) {
                out.raw(',');
            }
            first = false;
            out.string(e.getKey()).raw(':').string(e.getValue());
        }
        out.raw('}');
    }
}
