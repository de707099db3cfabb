package dev.muster.common.kube;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import okhttp3.Call;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Lists and watches Pods or Nodes (all namespaces) for an informer, decoding the API server's JSON with
 * {@link SlimPodJson} / {@link SlimNodeJson} (one streaming pass, only the fields Muster reads) instead of
 * client-java's tree + validation + reflection. The requests themselves are client-java's ({@link CoreV1Api}:
 * authentication, TLS and the client's timeouts), with watch bookmarks asked for, so an idle watch restarts from a
 * recent resourceVersion.
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

    private final String resource;
    private final Calls calls;
    private final SlimJson.ObjectReader<L> lists;
    private final SlimJson.ObjectReader<T> objects;

    SlimListerWatcher(String resource, Calls calls, SlimJson.ObjectReader<L> lists, SlimJson.ObjectReader<T> objects) {
        this.resource = resource;
        this.calls = calls;
        this.lists = lists;
        this.objects = objects;
    }

    /** Pods in all namespaces. @param client a client without a read timeout ({@link KubeClients#watches()}) */
    public static SlimListerWatcher<V1Pod, V1PodList> pods(ApiClient client) {
        CoreV1Api api = new CoreV1Api(Objects.requireNonNull(client, "client"));
        return new SlimListerWatcher<>("pods", (p, watch) -> api.listPodForAllNamespaces().watch(watch ? true : null)
                .allowWatchBookmarks(watch ? true : null).resourceVersion(p.resourceVersion).timeoutSeconds(p.timeoutSeconds)
                .buildCall(null), SlimPodJson::readList, SlimPodJson::readPod);
    }

    /** Nodes. @param client a client without a read timeout ({@link KubeClients#watches()}) */
    public static SlimListerWatcher<V1Node, V1NodeList> nodes(ApiClient client) {
        CoreV1Api api = new CoreV1Api(Objects.requireNonNull(client, "client"));
        return new SlimListerWatcher<>("nodes", (p, watch) -> api.listNode().watch(watch ? true : null)
                .allowWatchBookmarks(watch ? true : null).resourceVersion(p.resourceVersion).timeoutSeconds(p.timeoutSeconds)
                .buildCall(null), SlimNodeJson::readList, SlimNodeJson::readNode);
    }

    @Override
    public L list(CallGeneratorParams params) throws ApiException {
        Call call = calls.build(params, false);
        try (Response response = call.execute()) {
            return lists.read(new JsonReader(successful(response, "list").charStream()));
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
            return new Events(call, response, successful(response, "watch"));
        } catch (ApiException | RuntimeException e) {
            response.close();
            throw e;
        }
    }

    private ResponseBody successful(Response response, String verb) throws ApiException {
        ResponseBody body = response.body();
        if (!response.isSuccessful()) {
            String text;
            try {
                text = body.string();
            } catch (IOException e) {
                text = "";
            }
            throw new ApiException(verb + " " + resource + ": HTTP " + response.code(), response.code(), response.headers().toMultimap(), text);
        }
        return body;
    }

    /** The events of one watch response, read one by one as the reflector asks for them. */
    private final class Events implements Watchable<T> {
        private final Call call;
        private final Response response;
        private final JsonReader in;

        Events(Call call, Response response, ResponseBody body) {
            this.call = call;
            this.response = response;
            this.in = new JsonReader(body.charStream());
            this.in.setStrictness(Strictness.LENIENT); // a stream of top-level objects, one per event
        }

        @Override
        public boolean hasNext() {
            try {
                return in.peek() != JsonToken.END_DOCUMENT;
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
                SlimJson.Event<T> e = SlimJson.readEvent(in, objects);
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
