package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Locale;

/**
 * Reads one string field of a Kubernetes object's {@code metadata} (a Node's name, a victim Pod's uid)
 * and skips everything else of the object. Stateless.
 */
final class MetadataFieldReader {
    private MetadataFieldReader() {}

    /**
     * Reads the object at the current token, ending on its END_OBJECT.
     *
     * @param kind  what the object is, for messages ("Node", "Pod")
     * @param field the metadata field to return, e.g. "name"
     * @return the field's value, never null or empty (an absent or empty value is an error)
     */
    static String read(JsonInput in, String kind, String field) throws IOException {
        if (in.current() != JsonToken.START_OBJECT) {
            throw in.typeError("a " + kind + " object", in.current());
        }
        String value = null;
        int seen = 0;
        while (in.nextField()) {
            if (!"metadata".equals(in.fieldName())) {
                in.skipFieldValue();
                continue;
            }
            seen = in.markSeen(seen, 1);
            in.next();
            if (!in.objectOrNull("an object")) {
                continue;
            }
            int seenInMetadata = 0;
            while (in.nextField()) {
                if (field.equals(in.fieldName())) {
                    seenInMetadata = in.markSeen(seenInMetadata, 1);
                    in.next();
                    value = in.stringOrNull();
                } else {
                    in.skipFieldValue();
                }
            }
        }
        if (value == null || value.isEmpty()) {
            throw in.error(kind.toLowerCase(Locale.ROOT) + " has no metadata." + field);
        }
        return value;
    }
}
