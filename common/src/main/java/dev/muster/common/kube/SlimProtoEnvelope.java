package dev.muster.common.kube;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The envelope of Kubernetes' protobuf encoding, as {@link SlimProto} describes it: an enveloped object
 * ({@code k8s\0} + {@code runtime.Unknown}) read and written, a list's message (metadata and items), one watch event
 * ({@code meta.v1.WatchEvent}, its object decoded once its type is known) and a {@code meta.v1.Status}. The objects
 * inside are read by the caller's {@link SlimProto.MessageReader}. Stateless and thread-safe.
 */
public final class SlimProtoEnvelope {
    private SlimProtoEnvelope() {}

    /** The prefix of every enveloped object. */
    private static final byte[] MAGIC = {'k', '8', 's', 0};

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

    /** What an envelope says about the object it wraps. */
    record TypeMeta(String apiVersion, String kind) {}

    /** An enveloped object: the decoded {@code raw} and the envelope's type meta. */
    record Enveloped<T>(TypeMeta type, T object) {}

    /**
     * One enveloped object ({@code k8s\0} + {@code runtime.Unknown}), from the input's current position to its end (or
     * limit); {@code raw} is decoded in place by {@code reader}, so a list is never held twice.
     */
    static <T> Enveloped<T> readEnveloped(CodedInputStream in, String what, SlimProto.MessageReader<T> reader) throws IOException {
        byte[] magic;
        try {
            magic = in.readRawBytes(MAGIC.length);
        } catch (InvalidProtocolBufferException e) {
            throw new SlimProto.MalformedException(what + ": shorter than the k8s\\0 protobuf prefix", e);
        }
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new SlimProto.MalformedException(what + ": not a Kubernetes protobuf object (no k8s\\0 prefix, found " + hex(magic) + ")");
        }
        TypeMeta type = new TypeMeta(null, null);
        T object = null;
        boolean raw = false;
        String encoding = "";
        String contentType = "";
        int tag;
        while ((tag = SlimProto.tag(in, what)) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> type = SlimProto.message(in, tag, what + ".typeMeta", SlimProtoEnvelope::typeMeta);
                case 2 -> {
                    object = SlimProto.message(in, tag, what, reader);
                    raw = true;
                }
                case 3 -> encoding = SlimProto.string(in, tag, what + ".contentEncoding");
                case 4 -> contentType = SlimProto.string(in, tag, what + ".contentType");
                default -> SlimProto.skip(in, tag, what);
            }
        }
        if (!encoding.isEmpty() || !(contentType.isEmpty() || contentType.equals(SlimProto.MEDIA_TYPE))) {
            throw new SlimProto.MalformedException(what + ": envelope holds content type \"" + contentType + "\", encoding \"" + encoding
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
        while ((tag = SlimProto.tag(in, "typeMeta")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> apiVersion = SlimProto.string(in, tag, "typeMeta.apiVersion");
                case 2 -> kind = SlimProto.string(in, tag, "typeMeta.kind");
                default -> SlimProto.skip(in, tag, "typeMeta");
            }
        }
        return new TypeMeta(apiVersion, kind);
    }

    /** A list's message ({@code PodList}, {@code NodeList}, ...): metadata 1, items 2. */
    static <T> SlimJson.ListParts<T> readList(InputStream body, SlimProto.MessageReader<T> items) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(body);
        Enveloped<ListBody<T>> e = readEnveloped(in, "list", listIn -> {
            ListBody<T> l = new ListBody<>(new ArrayList<>(), null);
            int tag;
            while ((tag = SlimProto.tag(listIn, "list")) != 0) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> l = new ListBody<>(l.items(), SlimProto.message(listIn, tag, "metadata", SlimProtoEnvelope::listMeta));
                    case 2 -> l.items().add(SlimProto.message(listIn, tag, "items", items));
                    default -> SlimProto.skip(listIn, tag, "list");
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
        while ((tag = SlimProto.tag(in, "metadata")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 2 -> m.setResourceVersion(SlimProto.omitEmpty(in, tag, "metadata.resourceVersion"));
                case 3 -> m.setContinue(SlimProto.omitEmpty(in, tag, "metadata.continue"));
                default -> SlimProto.skip(in, tag, "metadata");
            }
        }
        return m;
    }

    /**
     * One watch event from one frame's bytes ({@code meta.v1.WatchEvent}). The object is decoded as a Status when the
     * type is {@code ERROR}, whatever order the fields come in; the type meta of an enveloped object goes into the
     * object through {@code typed}.
     */
    static <T> SlimJson.Event<T> readEvent(byte[] frame, SlimProto.MessageReader<T> objects, BiConsumer<T, TypeMeta> typed) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(frame);
        String type = null;
        int objectStart = -1;
        int objectLength = 0;
        int tag;
        while ((tag = SlimProto.tag(in, "watch event")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> type = SlimProto.string(in, tag, "watch event type");
                case 2 -> {
                    // RawExtension {raw = 1}: find where raw lies in the frame; decode once the type is known
                    SlimProto.expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "watch event object");
                    int limit = SlimProto.pushLimit(in, "watch event object");
                    int t;
                    while ((t = SlimProto.tag(in, "watch event object")) != 0) {
                        if (WireFormat.getTagFieldNumber(t) == 1) {
                            SlimProto.expect(t, WireFormat.WIRETYPE_LENGTH_DELIMITED, "watch event object.raw");
                            objectLength = SlimProto.length(in, "watch event object.raw");
                            objectStart = in.getTotalBytesRead();
                            SlimProto.skipRaw(in, objectLength, "watch event object.raw");
                        } else {
                            SlimProto.skip(in, t, "watch event object");
                        }
                    }
                    in.popLimit(limit);
                }
                default -> SlimProto.skip(in, tag, "watch event");
            }
        }
        if (type == null) {
            throw new SlimProto.MalformedException("watch event without a type");
        }
        if (objectStart < 0) {
            if ("ERROR".equals(type)) {
                return new SlimJson.Event<>(type, null, new V1Status().kind("Status").status("Failure").message("watch error without a status"));
            }
            throw new SlimProto.MalformedException("watch event " + type + " without an object");
        }
        CodedInputStream object = CodedInputStream.newInstance(frame, objectStart, objectLength);
        if ("ERROR".equals(type)) {
            Enveloped<V1Status> s = readEnveloped(object, "watch event object", SlimProtoEnvelope::status);
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
        while ((tag = SlimProto.tag(in, "status")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 2 -> s.setStatus(SlimProto.omitEmpty(in, tag, "status"));
                case 3 -> s.setMessage(SlimProto.omitEmpty(in, tag, "message"));
                case 4 -> s.setReason(SlimProto.omitEmpty(in, tag, "reason"));
                case 6 -> s.setCode(SlimProto.omitZero(in, tag, "code"));
                default -> SlimProto.skip(in, tag, "status");
            }
        }
        return s;
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }
}
