package dev.muster.server.http.wire;

import dev.muster.core.scheduler.Victims;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the victim maps of a preempt request: {@code NodeNameToMetaVictims}
 * ({@code {"node":{"Pods":[{"UID":".."}],"NumPDBViolations":0}}}) and {@code NodeNameToVictims}
 * (the same with full Pod objects, of which only {@code metadata.uid} is kept). Struct keys
 * ({@code Pods}, {@code NumPDBViolations}, {@code UID}) match case-insensitively, as in Go. Stateless.
 */
final class VictimsReader {
    private VictimsReader() {}

    /**
     * Reads the map at the current token (an object or null → empty).
     *
     * @param fullPods true for {@code NodeNameToVictims} (victims are Pod objects), false for meta victims
     */
    static Map<String, Victims> read(JsonInput in, boolean fullPods) throws IOException {
        if (!in.objectOrNull("an object of node name to victims")) {
            return Map.of();
        }
        Map<String, Victims> byNode = new LinkedHashMap<>();
        while (in.nextField()) {
            String node = in.fieldName();
            if (byNode.containsKey(node)) {
                throw in.error("duplicate key \"" + JsonInput.abbreviate(node) + "\"");
            }
            in.next();
            byNode.put(node, readVictims(in, fullPods));
        }
        return byNode;
    }

    private static Victims readVictims(JsonInput in, boolean fullPods) throws IOException {
        if (in.current() != JsonToken.START_OBJECT) {
            throw in.typeError("a victims object", in.current());
        }
        List<String> uids = List.of();
        long violations = 0;
        int seen = 0;
        while (in.nextField()) {
            ExtenderKey key = ExtenderKey.match(in.fieldName(), ExtenderKey.VICTIMS);
            if (key == null) {
                in.skipFieldValue();
                continue;
            }
            seen = in.markSeen(seen, key.bit());
            in.next();
            if (key == ExtenderKey.PODS) {
                uids = readPods(in, fullPods);
            } else {
                violations = in.int64OrNull(0);
            }
        }
        return new Victims(uids, violations);
    }

    private static List<String> readPods(JsonInput in, boolean fullPods) throws IOException {
        if (!in.arrayOrNull("an array of pods")) {
            return List.of();
        }
        List<String> uids = new ArrayList<>();
        while (in.nextElement()) {
            uids.add(fullPods ? PodReader.readUid(in) : readMetaPodUid(in));
        }
        return uids;
    }

    private static String readMetaPodUid(JsonInput in) throws IOException {
        if (in.current() != JsonToken.START_OBJECT) {
            throw in.typeError("an object with a UID", in.current());
        }
        String uid = null;
        int seen = 0;
        while (in.nextField()) {
            ExtenderKey key = ExtenderKey.match(in.fieldName(), ExtenderKey.META_POD);
            if (key == null) {
                in.skipFieldValue();
                continue;
            }
            seen = in.markSeen(seen, key.bit());
            in.next();
            uid = in.stringOrNull();
        }
        if (uid == null || uid.isEmpty()) {
            throw in.error("victim has no UID");
        }
        return uid;
    }
}
