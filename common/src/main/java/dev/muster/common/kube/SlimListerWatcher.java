package dev.muster.common.kube;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Lists and watches Pods or Nodes (all namespaces) for an informer, asking the API server for its protobuf encoding
 * (as kube-scheduler does) and decoding it with {@link SlimPodProto} / {@link SlimNodeProto}; a server that answers JSON
 * instead is read with {@link SlimPodJson} / {@link SlimNodeJson}. The decoder is picked per response by its
 * {@code Content-Type}. Both build the same slim objects in one pass (only the fields Muster reads) instead of
 * client-java's tree + validation + reflection.
 *
 * <p>Why protobuf: a field Muster does not keep (managed fields, volumes, env, a node's images) is skipped by its length
 * instead of character by character, and the API server, which caches one serialisation of each watch event per
 * encoding, encodes every pod event once for kube-scheduler and Muster instead of twice.
 *
 * <p>The requests are built with client-java's {@link KubeClients#call} (client-java's authentication, TLS and the
 * client's timeouts) with the parameters client-java's generated list/watch call sends: {@code watch} and
 * {@code allowWatchBookmarks} (so an idle watch restarts from a recent resourceVersion), {@code resourceVersion} and
 * {@code timeoutSeconds} from the reflector. An HTTP error is an {@link ApiException} naming the resource, the verb
 * and the code; a malformed answer fails the list or watch (the reflector retries) with an exception naming the field.
 *
 * <p>Thread-safety: stateless; the reflector thread calls {@link #list} and {@link #watch}, and the watch it reads may
 * be closed from another thread (closing the response ends a blocked read with an exception, which ends the watch,
 * as with client-java's own {@code Watch}).
 */
public final class SlimListerWatcher<T extends KubernetesObject, L extends KubernetesListObject> implements ListerWatcher<T, L> {
    /** Builds the list ({@code watch} false) or watch request for the informer's parameters. */
    @FunctionalInterface
    interface Calls {
        Call build(CallGeneratorParams params, boolean watch) throws ApiException;
    }

    /** Reads a whole protobuf list answer. */
    @FunctionalInterface
    interface ProtoList<L> {
        L read(InputStream body) throws IOException;
    }

    /** Reads one protobuf watch event from its frame. */
    @FunctionalInterface
    interface ProtoEvent<T> {
        SlimJson.Event<T> read(byte[] frame) throws IOException;
    }

    /** How one resource is decoded in each encoding. */
    record Decoders<T, L>(SlimJson.ObjectReader<L> jsonList, SlimJson.ObjectReader<T> jsonObject, ProtoList<L> protoList,
            ProtoEvent<T> protoEvent) {}

    /** Accept header of a list: protobuf, else JSON (what client-go sends for a protobuf client). */
    static final String LIST_ACCEPT = SlimProto.MEDIA_TYPE + ", application/json";
    /** Accept header of a watch; the API server answers {@code application/vnd.kubernetes.protobuf;stream=watch}. */
    static final String WATCH_ACCEPT = SlimProto.MEDIA_TYPE + ";stream=watch, application/json";

    private final String resource;
    private final Calls calls;
    private final Decoders<T, L> decoders;

    SlimListerWatcher(String resource, Calls calls, Decoders<T, L> decoders) {
        this.resource = resource;
        this.calls = calls;
        this.decoders = decoders;
    }

    /** Pods in all namespaces. @param client a client without a read timeout ({@link KubeClients#watches()}) */
    public static SlimListerWatcher<V1Pod, V1PodList> pods(ApiClient client) {
        return new SlimListerWatcher<>("pods", calls(client, "/api/v1/pods"),
                new Decoders<>(SlimPodJson::readList, SlimPodJson::readPod, SlimPodProto::readList, SlimPodProto::readEvent));
    }

    /** Nodes. @param client a client without a read timeout ({@link KubeClients#watches()}) */
    public static SlimListerWatcher<V1Node, V1NodeList> nodes(ApiClient client) {
        return new SlimListerWatcher<>("nodes", calls(client, "/api/v1/nodes"),
                new Decoders<>(SlimNodeJson::readList, SlimNodeJson::readNode, SlimNodeProto::readList, SlimNodeProto::readEvent));
    }

    /** GET {@code path} as client-java's generated list/watch call does, but asking for protobuf first. */
    static Calls calls(ApiClient client, String path) {
        Objects.requireNonNull(client, "client");
        return (p, watch) -> {
            List<Pair> query = new ArrayList<>(4);
            if (watch) {
                query.addAll(client.parameterToPair("watch", true));
                query.addAll(client.parameterToPair("allowWatchBookmarks", true));
            }
            if (p.resourceVersion != null) {
                query.addAll(client.parameterToPair("resourceVersion", p.resourceVersion));
            }
            if (p.timeoutSeconds != null) {
                query.addAll(client.parameterToPair("timeoutSeconds", p.timeoutSeconds));
            }
            return KubeClients.call(client, "GET", path, query, null, Map.of("Accept", watch ? WATCH_ACCEPT : LIST_ACCEPT));
        };
    }

    @Override
    public L list(CallGeneratorParams params) throws ApiException {
        Call call = calls.build(params, false);
        try (Response response = call.execute()) {
            ResponseBody body = successful(response, "list");
            return protobuf(body) ? decoders.protoList().read(body.byteStream())
                    : decoders.jsonList().read(new JsonReader(body.charStream()));
        } catch (IOException e) {
            throw new ApiException("list " + resource + ": " + e.getMessage(), e, 0, null);
        }
    }

    @Override
    public Watchable<T> watch(CallGeneratorParams params) throws ApiException {
        Call call = calls.build(params, true);
        Response response;
        try {
            response = call.execute();
        } catch (IOException e) {
            throw new ApiException("watch " + resource + ": " + e.getMessage(), e, 0, null);
        }
        try {
            ResponseBody body = successful(response, "watch");
            return new Events(call, response, protobuf(body) ? new ProtoEvents(body) : new JsonEvents(body));
        } catch (ApiException | RuntimeException e) {
            response.close();
            throw e;
        }
    }

    /** Whether the API server answered in protobuf (else JSON). */
    static boolean protobuf(ResponseBody body) {
        MediaType type = body.contentType();
        return type != null && (type.type() + "/" + type.subtype()).equalsIgnoreCase(SlimProto.MEDIA_TYPE);
    }

    private ResponseBody successful(Response response, String verb) throws ApiException {
        return KubeClients.successful(response, verb + " " + resource);
    }

    /** The events of one watch answer, in one encoding. */
    private interface EventSource<T> {
        boolean more() throws IOException;

        SlimJson.Event<T> next() throws IOException;
    }

    /** JSON: a stream of top-level objects, one per event. */
    private final class JsonEvents implements EventSource<T> {
        private final JsonReader in;

        JsonEvents(ResponseBody body) {
            this.in = new JsonReader(body.charStream());
            this.in.setStrictness(Strictness.LENIENT);
        }

        @Override
        public boolean more() throws IOException {
            return in.peek() != JsonToken.END_DOCUMENT;
        }

        @Override
        public SlimJson.Event<T> next() throws IOException {
            return SlimJson.readEvent(in, decoders.jsonObject());
        }
    }

    /** Protobuf: length-prefixed frames, one event each. */
    private final class ProtoEvents implements EventSource<T> {
        private final SlimProtoFrames frames;

        ProtoEvents(ResponseBody body) {
            this.frames = new SlimProtoFrames(body.byteStream());
        }

        @Override
        public boolean more() throws IOException {
            return frames.hasNext();
        }

        @Override
        public SlimJson.Event<T> next() throws IOException {
            return decoders.protoEvent().read(frames.next());
        }
    }

    /** The events of one watch response, read one by one as the reflector asks for them. */
    private final class Events implements Watchable<T> {
        private final Call call;
        private final Response response;
        private final EventSource<T> in;

        Events(Call call, Response response, EventSource<T> in) {
            this.call = call;
            this.response = response;
            this.in = in;
        }

        @Override
        public boolean hasNext() {
            try {
                return in.more();
            } catch (IOException e) {
                throw new UncheckedIOException("watch " + resource + ": " + e.getMessage(), e);
            }
        }

        @Override
        public Watch.Response<T> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            try {
                SlimJson.Event<T> e = in.next();
                return e.status() != null ? new Watch.Response<>(e.type(), e.status()) : new Watch.Response<>(e.type(), e.object());
            } catch (IOException e) {
                throw new UncheckedIOException("watch " + resource + ": " + e.getMessage(), e);
            }
        }

        @Override
        public Iterator<Watch.Response<T>> iterator() {
            return this;
        }

        @Override
        public void close() {
            call.cancel();
            response.close();
        }
    }
}
