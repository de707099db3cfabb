package dev.muster.common.kube;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.kubernetes.client.custom.Quantity;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What the slim protobuf decoders ({@link SlimPodProto}, {@link SlimNodeProto}) share: typed field reads that name
 * the field when its wire type is not the schema's, nested messages, maps, quantities kept as text and times; the
 * envelope, lists, watch events and Status objects are {@link SlimProtoEnvelope}'s, a watch's frames
 * {@link SlimProtoFrames}'. The counterpart of {@link SlimJson}: it builds the same slim client-java objects, so the
 * informers cannot tell which encoding the API server chose.
 *
 * <p>The wire format, as checked against kube-apiserver v1.36.3 (fixtures and capture script in
 * {@code common/src/test/resources/kube-proto/}):
 * <ul>
 *   <li>An object (a list answer, or the object inside a watch event): the 4 bytes {@code k8s\0}, then a
 *       {@code runtime.Unknown}: {@code typeMeta} (1: {@code apiVersion} 1, {@code kind} 2), {@code raw} (2: the object's
 *       own message), {@code contentEncoding} (3), {@code contentType} (4), both empty for protobuf.</li>
 *   <li>A watch ({@code Content-Type: application/vnd.kubernetes.protobuf;stream=watch}): frames, each a 4-byte
 *       big-endian length and a {@code meta.v1.WatchEvent} (type 1, object 2 = {@code RawExtension} whose raw 1 is an
 *       enveloped object as above). The event itself has no {@code k8s\0} envelope.</li>
 *   <li>Items of a list carry no type meta (as in JSON); a {@code Time} is seconds (1) and nanos (2), of which Kubernetes
 *       itself reads only the seconds; a {@code Quantity} is its text in field 1; maps are repeated entries (key 1,
 *       value 2).</li>
 * </ul>
 * Field numbers are those of {@code k8s.io/api/core/v1/generated.proto} and apimachinery's
 * {@code meta/v1}, {@code runtime} and {@code api/resource} {@code generated.proto}.
 *
 * <p>A field a decoder does not keep is skipped with {@link CodedInputStream#skipField}: a length-delimited one (a
 * container's env, a pod's managed fields) in constant time when reading from an array. Malformed input is an
 * {@link IOException} naming the field (the informer's list or watch then fails and is retried). Stateless and
 * thread-safe.
 */
public final class SlimProto {
    private SlimProto() {}

    /** The media type of Kubernetes' protobuf encoding. */
    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

    /** Reads the fields of one message; the caller has limited the input to that message. */
    @FunctionalInterface
    interface MessageReader<T> {
        T read(CodedInputStream in) throws IOException;
    }

    /** Malformed input, named by field. Not an {@link InvalidProtocolBufferException}, so outer fields do not re-wrap it. */
    static final class MalformedException extends IOException {
        MalformedException(String message) {
            super(message);
        }

        MalformedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    // ---- typed reads ----

    /** The next tag, 0 at the end of the message. */
    static int tag(CodedInputStream in, String where) throws IOException {
        try {
            return in.readTag();
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": " + e.getMessage(), e);
        }
    }

    /** Skips a field this decoder does not keep. */
    static void skip(CodedInputStream in, int tag, String where) throws IOException {
        try {
            if (!in.skipField(tag)) {
                throw new MalformedException(where + ": unexpected end-group tag for field " + WireFormat.getTagFieldNumber(tag));
            }
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": field " + WireFormat.getTagFieldNumber(tag) + ": " + e.getMessage(), e);
        }
    }

    static void expect(int tag, int wireType, String where) throws MalformedException {
        int found = WireFormat.getTagWireType(tag);
        if (found != wireType) {
            throw new MalformedException(where + " (field " + WireFormat.getTagFieldNumber(tag) + "): expected wire type " + wireName(wireType)
                    + ", found " + wireName(found));
        }
    }

    private static String wireName(int wireType) {
        return switch (wireType) {
            case WireFormat.WIRETYPE_VARINT -> "0 (varint)";
            case WireFormat.WIRETYPE_FIXED64 -> "1 (64-bit)";
            case WireFormat.WIRETYPE_LENGTH_DELIMITED -> "2 (length-delimited)";
            case WireFormat.WIRETYPE_START_GROUP -> "3 (start group)";
            case WireFormat.WIRETYPE_END_GROUP -> "4 (end group)";
            case WireFormat.WIRETYPE_FIXED32 -> "5 (32-bit)";
            default -> wireType + " (invalid)";
        };
    }

    static String string(CodedInputStream in, int tag, String where) throws IOException {
        expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, where);
        try {
            return in.readString();
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": " + e.getMessage(), e);
        }
    }

    /**
     * A string field that Go marshals even when empty but whose JSON is {@code omitempty}: empty reads as absent (null),
     * as the JSON decoder sees it. Fields without {@code omitempty} (an owner reference's name, a container's name)
     * use {@link #string}.
     */
    static String omitEmpty(CodedInputStream in, int tag, String where) throws IOException {
        String s = string(in, tag, where);
        return s.isEmpty() ? null : s;
    }

    /** A non-pointer int32 with JSON {@code omitempty} ({@code Status.code}): 0 reads as absent. */
    static Integer omitZero(CodedInputStream in, int tag, String where) throws IOException {
        Integer i = int32(in, tag, where);
        return i == 0 ? null : i;
    }

    /** A non-pointer bool with JSON {@code omitempty} ({@code NodeSpec.unschedulable}): false reads as absent. */
    static Boolean omitFalse(CodedInputStream in, int tag, String where) throws IOException {
        return bool(in, tag, where) ? Boolean.TRUE : null;
    }

    static Integer int32(CodedInputStream in, int tag, String where) throws IOException {
        expect(tag, WireFormat.WIRETYPE_VARINT, where);
        try {
            return in.readInt32();
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": " + e.getMessage(), e);
        }
    }

    static Long int64(CodedInputStream in, int tag, String where) throws IOException {
        expect(tag, WireFormat.WIRETYPE_VARINT, where);
        try {
            return in.readInt64();
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": " + e.getMessage(), e);
        }
    }

    static Boolean bool(CodedInputStream in, int tag, String where) throws IOException {
        expect(tag, WireFormat.WIRETYPE_VARINT, where);
        try {
            return in.readBool();
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": " + e.getMessage(), e);
        }
    }

    /** A nested message: the input is limited to it while {@code reader} reads its fields. */
    static <T> T message(CodedInputStream in, int tag, String where, MessageReader<T> reader) throws IOException {
        expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, where);
        int limit = pushLimit(in, where);
        T t;
        try {
            t = reader.read(in);
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": " + e.getMessage(), e);
        }
        in.popLimit(limit);
        return t;
    }

    static int pushLimit(CodedInputStream in, String where) throws IOException {
        int length = length(in, where);
        try {
            return in.pushLimit(length);
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": a length of " + length + " bytes runs past the end of its message", e);
        }
    }

    static int length(CodedInputStream in, String where) throws IOException {
        int length;
        try {
            length = in.readRawVarint32();
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": " + e.getMessage(), e);
        }
        if (length < 0) {
            throw new MalformedException(where + ": negative length " + length);
        }
        return length;
    }

    static void skipRaw(CodedInputStream in, int length, String where) throws IOException {
        try {
            in.skipRawBytes(length);
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": a length of " + length + " bytes runs past the end of its message", e);
        }
    }

    /**
     * One entry (key 1, value 2) of a {@code map<string, string>}, put into {@code into} when {@code keep} accepts
     * its key. Returns the map, created on the first kept entry (so a map with nothing kept stays null, as in
     * {@link SlimJson#strings}).
     */
    static Map<String, String> stringEntry(CodedInputStream in, int tag, String where, Predicate<String> keep, Map<String, String> into)
            throws IOException {
        String[] kv = message(in, tag, where, e -> {
            String key = "";
            String value = "";
            boolean kept = true;
            int t;
            while ((t = tag(e, where)) != 0) {
                int field = WireFormat.getTagFieldNumber(t);
                if (field == 1) {
                    key = string(e, t, where + " key");
                    kept = keep.test(key);
                } else if (field == 2 && kept) {
                    value = string(e, t, where + " value");
                } else {
                    skip(e, t, where); // an unkept value (last-applied-configuration...) is skipped, not decoded
                }
            }
            return kept && keep.test(key) ? new String[] {key, value} : null;
        });
        if (kv == null) {
            return into;
        }
        Map<String, String> m = into == null ? new HashMap<>(8) : into;
        m.put(kv[0], kv[1]);
        return m;
    }

    /**
     * One entry (key 1, value 2: a {@code Quantity}, its text in field 1) of a {@code map<string, Quantity>}, put into
     * {@code into} (created when null) as a {@link SlimJson.Text}, like {@link SlimJson#quantities}.
     */
    static Map<String, Quantity> quantityEntry(CodedInputStream in, int tag, String where, Map<String, Quantity> into) throws IOException {
        String[] kv = message(in, tag, where, e -> {
            String key = "";
            String value = null;
            int t;
            while ((t = tag(e, where)) != 0) {
                switch (WireFormat.getTagFieldNumber(t)) {
                    case 1 -> key = string(e, t, where + " key");
                    case 2 -> value = message(e, t, where + "." + key, q -> {
                        String s = null;
                        int qt;
                        while ((qt = tag(q, where)) != 0) {
                            if (WireFormat.getTagFieldNumber(qt) == 1) {
                                s = string(q, qt, where + " quantity");
                            } else {
                                skip(q, qt, where);
                            }
                        }
                        return s;
                    });
                    default -> skip(e, t, where);
                }
            }
            return new String[] {key, value};
        });
        if (kv[1] == null) {
            throw new MalformedException(where + "." + kv[0] + ": a quantity without its text");
        }
        Map<String, Quantity> m = into == null ? new HashMap<>(4) : into;
        m.put(kv[0], new SlimJson.Text(kv[1]));
        return m;
    }

    /**
     * A {@code meta.v1.Time}: seconds (1); nanos (2) are ignored, as Kubernetes itself ignores them (its JSON has seconds
     * only). An empty message is Go's zero time, which JSON writes as null.
     */
    static OffsetDateTime time(CodedInputStream in, int tag, String where) throws IOException {
        expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, where);
        int limit = pushLimit(in, where);
        boolean empty = in.isAtEnd();
        long seconds = 0;
        int t;
        while ((t = tag(in, where)) != 0) {
            if (WireFormat.getTagFieldNumber(t) == 1) {
                expect(t, WireFormat.WIRETYPE_VARINT, where + ".seconds");
                try {
                    seconds = in.readInt64();
                } catch (InvalidProtocolBufferException e) {
                    throw new MalformedException(where + ".seconds: " + e.getMessage(), e);
                }
            } else {
                skip(in, t, where);
            }
        }
        in.popLimit(limit);
        if (empty) {
            return null;
        }
        try {
            return OffsetDateTime.ofInstant(Instant.ofEpochSecond(seconds), ZoneOffset.UTC);
        } catch (java.time.DateTimeException e) {
            throw new MalformedException(where + ": " + seconds + " seconds is not a time", e);
        }
    }

}
