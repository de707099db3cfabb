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
    public static byte[] encodePrioritizeResult(List<NodeScore> priorities, List<String> names) {
        // the scores of exactly the request's names, whose plain ASCII bytes are in the request body: copy each name
        // from there (still in the caches) instead of reading, checking and copying 5,000 Strings from all over the heap
        if (names instanceof NodeList list && list.asciiSource() != null && list.size() == priorities.size()) {
            long size = 2L + Math.max(0, priorities.size() - 1);
            for (int i = 0; i < priorities.size(); i++) {
                NodeScore p = priorities.get(i);
                if (p.node() != list.get(i)) { // not the request's names in order after all: the general path
                    return encodePrioritizeResult(priorities);
                }
                size += HOST.length + 1 + list.asciiLength(i) + 1 + SCORE.length + JsonOutput.digits(p.score()) + 1;
            }
            byte[] source = list.asciiSource();
            JsonOutput out = new JsonOutput((int) Math.min(size, Integer.MAX_VALUE - 8));
            out.raw('[');
            for (int i = 0; i < priorities.size(); i++) {
                if (i > 0) {
                    out.raw(',');
                }
                out.bytes(HOST, 0, HOST.length).raw('"').bytes(source, list.asciiStart(i), list.asciiLength(i)).raw('"')
                        .bytes(SCORE, 0, SCORE.length).number(priorities.get(i).score()).raw('}');
            }
            return out.raw(']').toByteArray();
        }
        return encodePrioritizeResult(priorities);
    }

    /** Encodes a prioritize answer from the scores alone (each name read from its String). */
    public static byte[] encodePrioritizeResult(List<NodeScore> priorities) {
        // sized exactly when every name is plain ASCII (node names are DNS names), so the answer is the buffer itself:
        // at 5,000 nodes that saves a ~150 KB copy and a guessed ~200 KB buffer per answer
        long size = 2L + Math.max(0, priorities.size() - 1);
        for (int i = 0; i < priorities.size(); i++) {
            NodeScore p = priorities.get(i);
            size += HOST.length + 1 + p.node().length() + 1 + SCORE.length + JsonOutput.digits(p.score()) + 1; // {"Host":"name","Score":n}
        }
        JsonOutput out = new JsonOutput((int) Math.min(size, Integer.MAX_VALUE - 8));
        out.raw('[');
        for (int i = 0; i < priorities.size(); i++) {
            NodeScore p = priorities.get(i);
            if (i > 0) {
                out.raw(',');
            }
            out.bytes(HOST, 0, HOST.length).string(p.node()).bytes(SCORE, 0, SCORE.length).number(p.score()).raw('}');
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
