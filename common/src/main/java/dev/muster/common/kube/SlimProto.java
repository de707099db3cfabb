package dev.muster.common.kube;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * What the slim protobuf decoders ({@link SlimPodProto}, {@link SlimNodeProto}) share: the Kubernetes protobuf
 * envelope, watch frames and events, list metadata, Status objects, quantities kept as text, and typed field reads
 * that name the field when its wire type is not the schema's. The counterpart of {@link SlimJson}: it builds the same
 * slim client-java objects, so the informers cannot tell which encoding the API server chose.
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
 * thread-safe; a {@link Frames} reader belongs to the one thread reading its watch.
 */
public final class SlimProto {
    private SlimProto() {}

    /** The media type of Kubernetes' protobuf encoding. */
    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
    /** The prefix of every enveloped object. */
    private static final byte[] MAGIC = {'k', '8', 's', 0};
    /**
     * Largest watch frame accepted. The API server refuses objects over ~3 MiB (etcd's request limit), so a larger length
     * means a corrupt stream, not a large pod.
     */
    static final int MAX_FRAME = 64 << 20;

    /**
     * The other direction, for what Muster writes (the binder's Binding): {@code raw}, the protobuf of one object, in
     * the envelope every Kubernetes protobuf body carries — {@code k8s\0} + {@code runtime.Unknown{typeMeta{apiVersion,
     * kind}, raw}} — as {@link #readEnveloped} reads it.
     */
    public static byte[] envelope(String apiVersion, String kind, byte[] raw) {
        int typeMeta = CodedOutputStream.computeStringSize(1, apiVersion) + CodedOutputStream.computeStringSize(2, kind);
        int unknown = CodedOutputStream.computeTagSize(1) + CodedOutputStream.computeUInt32SizeNoTag(typeMeta) + typeMeta
                + CodedOutputStream.computeByteArraySize(2, raw);
        byte[] body = new byte[MAGIC.length + unknown];
        System.arraycopy(MAGIC, 0, body, 0, MAGIC.length);
        CodedOutputStream out = CodedOutputStream.newInstance(body, MAGIC.length, unknown);
        try {
            out.writeTag(1, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(typeMeta);
            out.writeString(1, apiVersion);
            out.writeString(2, kind);
            out.writeByteArray(2, raw);
            out.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new IllegalStateException("the envelope's size was computed wrong", e);
        }
        return body;
    }

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

    // ---- envelope, lists, watch events ----

    /** What an envelope says about the object it wraps. */
    record TypeMeta(String apiVersion, String kind) {}

    /** An enveloped object: the decoded {@code raw} and the envelope's type meta. */
    record Enveloped<T>(TypeMeta type, T object) {}

    /**
     * One enveloped object ({@code k8s\0} + {@code runtime.Unknown}), from the input's current position to its end (or
     * limit); {@code raw} is decoded in place by {@code reader}, so a list is never held twice.
     */
    static <T> Enveloped<T> readEnveloped(CodedInputStream in, String what, MessageReader<T> reader) throws IOException {
        byte[] magic;
        try {
            magic = in.readRawBytes(MAGIC.length);
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(what + ": shorter than the k8s\\0 protobuf prefix", e);
        }
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new MalformedException(what + ": not a Kubernetes protobuf object (no k8s\\0 prefix, found " + hex(magic) + ")");
        }
        TypeMeta type = new TypeMeta(null, null);
        T object = null;
        boolean raw = false;
        String encoding = "";
        String contentType = "";
        int tag;
        while ((tag = tag(in, what)) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> type = message(in, tag, what + ".typeMeta", SlimProto::typeMeta);
                case 2 -> {
                    object = message(in, tag, what, reader);
                    raw = true;
                }
                case 3 -> encoding = string(in, tag, what + ".contentEncoding");
                case 4 -> contentType = string(in, tag, what + ".contentType");
                default -> skip(in, tag, what);
            }
        }
        if (!encoding.isEmpty() || !(contentType.isEmpty() || contentType.equals(MEDIA_TYPE))) {
            throw new MalformedException(what + ": envelope holds content type \"" + contentType + "\", encoding \"" + encoding
                    + "\", not plain protobuf");
        }
        if (!raw) {
            object = reader.read(CodedInputStream.newInstance(new byte[0])); // an object with every field at its default
        }
        return new Enveloped<>(type, object);
    }

    private static TypeMeta typeMeta(CodedInputStream in) throws IOException {
        String apiVersion = null;
        String kind = null;
        int tag;
        while ((tag = tag(in, "typeMeta")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> apiVersion = string(in, tag, "typeMeta.apiVersion");
                case 2 -> kind = string(in, tag, "typeMeta.kind");
                default -> skip(in, tag, "typeMeta");
            }
        }
        return new TypeMeta(apiVersion, kind);
    }

    /** A list's message ({@code PodList}, {@code NodeList}, ...): metadata 1, items 2. */
    static <T> SlimJson.ListParts<T> readList(InputStream body, MessageReader<T> items) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(body);
        Enveloped<ListBody<T>> e = readEnveloped(in, "list", listIn -> {
            ListBody<T> l = new ListBody<>(new ArrayList<>(), null);
            int tag;
            while ((tag = tag(listIn, "list")) != 0) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> l = new ListBody<>(l.items(), message(listIn, tag, "metadata", SlimProto::listMeta));
                    case 2 -> l.items().add(message(listIn, tag, "items", items));
                    default -> skip(listIn, tag, "list");
                }
            }
            return l;
        });
        return new SlimJson.ListParts<>(e.type().apiVersion(), e.type().kind(), e.object().metadata(), e.object().items());
    }

    private record ListBody<T>(List<T> items, V1ListMeta metadata) {}

    private static V1ListMeta listMeta(CodedInputStream in) throws IOException {
        V1ListMeta m = new V1ListMeta();
        int tag;
        while ((tag = tag(in, "metadata")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 2 -> m.setResourceVersion(omitEmpty(in, tag, "metadata.resourceVersion"));
                case 3 -> m.setContinue(omitEmpty(in, tag, "metadata.continue"));
                default -> skip(in, tag, "metadata");
            }
        }
        return m;
    }

    /**
     * One watch event from one frame's bytes ({@code meta.v1.WatchEvent}). The object is decoded as a Status when the
     * type is {@code ERROR}, whatever order the fields come in; the type meta of an enveloped object goes into the
     * object through {@code typed}.
     */
    static <T> SlimJson.Event<T> readEvent(byte[] frame, MessageReader<T> objects, BiConsumer<T, TypeMeta> typed) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(frame);
        String type = null;
        int objectStart = -1;
        int objectLength = 0;
        int tag;
        while ((tag = tag(in, "watch event")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> type = string(in, tag, "watch event type");
                case 2 -> {
                    // RawExtension {raw = 1}: find where raw lies in the frame; decode once the type is known
                    expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "watch event object");
                    int limit = pushLimit(in, "watch event object");
                    int t;
                    while ((t = tag(in, "watch event object")) != 0) {
                        if (WireFormat.getTagFieldNumber(t) == 1) {
                            expect(t, WireFormat.WIRETYPE_LENGTH_DELIMITED, "watch event object.raw");
                            objectLength = length(in, "watch event object.raw");
                            objectStart = in.getTotalBytesRead();
                            skipRaw(in, objectLength, "watch event object.raw");
                        } else {
                            skip(in, t, "watch event object");
                        }
                    }
                    in.popLimit(limit);
                }
                default -> skip(in, tag, "watch event");
            }
        }
        if (type == null) {
            throw new MalformedException("watch event without a type");
        }
        if (objectStart < 0) {
            if ("ERROR".equals(type)) {
                return new SlimJson.Event<>(type, null, new V1Status().kind("Status").status("Failure").message("watch error without a status"));
            }
            throw new MalformedException("watch event " + type + " without an object");
        }
        CodedInputStream object = CodedInputStream.newInstance(frame, objectStart, objectLength);
        if ("ERROR".equals(type)) {
            Enveloped<V1Status> s = readEnveloped(object, "watch event object", SlimProto::status);
            return new SlimJson.Event<>(type, null, s.object().apiVersion(s.type().apiVersion()).kind(s.type().kind()));
        }
        Enveloped<T> o = readEnveloped(object, "watch event object", objects);
        typed.accept(o.object(), o.type());
        return new SlimJson.Event<>(type, o.object(), null);
    }

    /** A {@code meta.v1.Status} (metadata 1 and details 5 are not kept, as in {@link SlimJson#readStatus}). */
    static V1Status status(CodedInputStream in) throws IOException {
        V1Status s = new V1Status();
        int tag;
        while ((tag = tag(in, "status")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 2 -> s.setStatus(omitEmpty(in, tag, "status"));
                case 3 -> s.setMessage(omitEmpty(in, tag, "message"));
                case 4 -> s.setReason(omitEmpty(in, tag, "reason"));
                case 6 -> s.setCode(omitZero(in, tag, "code"));
                default -> skip(in, tag, "status");
            }
        }
        return s;
    }

    /**
     * The frames of a protobuf watch: each a 4-byte big-endian length and that many bytes. End of stream between frames
     * is the end of the watch; anywhere else it is a truncated frame.
     */
    static final class Frames {
        private final InputStream in;
        private byte[] next;
        private boolean ended;

        Frames(InputStream in) {
            this.in = in;
        }

        /** Whether another frame follows (blocks until its length arrives or the stream ends). */
        boolean hasNext() throws IOException {
            if (next == null && !ended) {
                next = readFrame();
                ended = next == null;
            }
            return next != null;
        }

        /** The next frame's bytes; call {@link #hasNext} first. */
        byte[] next() throws IOException {
            if (!hasNext()) {
                throw new EOFException("no more watch frames");
            }
            byte[] f = next;
            next = null;
            return f;
        }

        private byte[] readFrame() throws IOException {
            int length = 0;
            for (int i = 0; i < 4; i++) {
                int b = in.read();
                if (b < 0) {
                    if (i == 0) {
                        return null;
                    }
                    throw new MalformedException("watch frame: the stream ended inside a frame's 4-byte length (" + i + " bytes read)");
                }
                length = (length << 8) | b;
            }
            if (length < 0 || length > MAX_FRAME) {
                throw new MalformedException("watch frame: length " + Integer.toUnsignedString(length) + " is not a frame length (at most "
                        + MAX_FRAME + ")");
            }
            byte[] frame = new byte[length];
            int read = in.readNBytes(frame, 0, length);
            if (read < length) {
                throw new MalformedException("watch frame: the stream ended after " + read + " of the frame's " + length + " bytes");
            }
            return frame;
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

    private static int pushLimit(CodedInputStream in, String where) throws IOException {
        int length = length(in, where);
        try {
            return in.pushLimit(length);
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedException(where + ": a length of " + length + " bytes runs past the end of its message", e);
        }
    }

    private static int length(CodedInputStream in, String where) throws IOException {
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

    private static void skipRaw(CodedInputStream in, int length, String where) throws IOException {
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

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }
}
