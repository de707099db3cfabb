package dev.muster.server.http.wire;

import dev.muster.core.ledger.NodeList;
import dev.muster.core.scheduler.Victims;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.core.scoring.ScoringPolicy;
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
    /** A prioritize answer's pieces: its start, and after a name with score s the rest of its entry (and the next's start). */
    private static final byte[] FIRST_HOST = ascii("[{\"Host\":\"");
    private static final byte[][] NEXT_HOST = scorePieces("},{\"Host\":\"");
    private static final byte[][] LAST_SCORE = scorePieces("}]");

    private WireEncoder() {}

    private static byte[][] scorePieces(String after) {
        byte[][] pieces = new byte[ScoringPolicy.MAX_EXTENDER_SCORE + 1][];
        for (int score = 0; score < pieces.length; score++) {
            pieces[score] = ascii("\",\"Score\":" + score + after);
        }
        return pieces;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

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

    /**
     * Encodes a prioritize answer, a bare JSON array of host scores: {@code scores[i]} (0..{@value
     * ScoringPolicy#MAX_EXTENDER_SCORE}) for {@code names.get(i)}. When the names are a request's own list with their
     * plain ASCII bytes kept ({@link NodeList#asciiSource()}, as kube-scheduler's node names arrive), each is copied from
     * the request body, still in the caches, instead of read, checked and copied from Strings all over the heap (5,000
     * of them at 5,000 nodes). Between two names goes one precomputed piece, {@code ","Score":7},{"Host":"}.
     *
     * @throws IllegalArgumentException if the lengths differ or a score is outside 0..10
     */
    public static byte[] encodePrioritizeResult(List<String> names, int[] scores) {
        if (names.size() != scores.length) {
            throw new IllegalArgumentException(scores.length + " scores for " + names.size() + " nodes");
        }
        if (scores.length == 0) {
            return new byte[] {'[', ']'};
        }
        NodeList body = names instanceof NodeList l && l.asciiSource() != null ? l : null;
        // sized exactly when every name is plain ASCII (node names are DNS names), so the answer is the buffer itself:
        // at 5,000 nodes that saves a ~150 KB copy and a guessed ~200 KB buffer per answer
        long size = FIRST_HOST.length;
        for (int i = 0; i < scores.length; i++) {
            int score = scores[i];
            if (score < 0 || score > ScoringPolicy.MAX_EXTENDER_SCORE) {
                throw new IllegalArgumentException("score " + score + " for " + names.get(i) + " is outside 0.."
                        + ScoringPolicy.MAX_EXTENDER_SCORE);
            }
            size += (body != null ? body.asciiLength(i) : names.get(i).length()) + NEXT_HOST[score].length;
        }
        size += LAST_SCORE[scores[scores.length - 1]].length - NEXT_HOST[scores[scores.length - 1]].length;
        JsonOutput out = new JsonOutput((int) Math.min(size, Integer.MAX_VALUE - 8));
        out.bytes(FIRST_HOST, 0, FIRST_HOST.length);
        for (int i = 0; i < scores.length; i++) {
            if (body != null) {
                out.bytes(body.asciiSource(), body.asciiStart(i), body.asciiLength(i));
            } else {
                out.stringChars(names.get(i));
            }
            byte[] after = i == scores.length - 1 ? LAST_SCORE[scores[i]] : NEXT_HOST[scores[i]];
            out.bytes(after, 0, after.length);
        }
        return out.toByteArray();
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
