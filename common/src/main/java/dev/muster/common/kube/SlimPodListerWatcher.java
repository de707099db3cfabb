package dev.muster.common.kube;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
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
 * Lists and watches Pods in all namespaces for an informer, decoding the API server's JSON with {@link SlimPodJson}
 * (one streaming pass, only the fields Muster reads) instead of client-java's tree + validation + reflection. The
 * requests themselves are client-java's ({@link CoreV1Api}: authentication, TLS and the API client's timeouts), with
 * watch bookmarks asked for, so an idle watch restarts from a recent resourceVersion.
 *
 * <p>Thread-safety: stateless; the reflector thread calls {@link #list} and {@link #watch}, and the watch it reads may
 * be closed from another thread (closing the response ends a blocked read with an exception, which ends the watch,
 * as with client-java's own {@code Watch}).
 */
public final class SlimPodListerWatcher implements ListerWatcher<V1Pod, V1PodList> {
    private final CoreV1Api api;

    /** @param client a client without a read timeout ({@link KubeClients#watches()}) */
    public SlimPodListerWatcher(ApiClient client) {
        this.api = new CoreV1Api(Objects.requireNonNull(client, "client"));
    }

    @Override
    public V1PodList list(CallGeneratorParams params) throws ApiException {
        Call call = api.listPodForAllNamespaces().resourceVersion(params.resourceVersion).timeoutSeconds(params.timeoutSeconds)
                .buildCall(null);
        try (Response response = call.execute()) {
            ResponseBody body = successful(response, "list pods");
            JsonReader in = new JsonReader(body.charStream());
            return SlimPodJson.readList(in);
        } catch (IOException e) {
            throw new ApiException("list pods: " + e.getMessage(), e, 0, null);
        }
    }

    @Override
    public Watchable<V1Pod> watch(CallGeneratorParams params) throws ApiException {
        Call call = api.listPodForAllNamespaces().watch(true).allowWatchBookmarks(true).resourceVersion(params.resourceVersion)
                .timeoutSeconds(params.timeoutSeconds).buildCall(null);
        Response response;
        try {
            response = call.execute();
        } catch (IOException e) {
            throw new ApiException("watch pods: " + e.getMessage(), e, 0, null);
        }
        try {
            ResponseBody body = successful(response, "watch pods");
            return new Events(call, response, body);
        } catch (ApiException | RuntimeException e) {
            response.close();
            throw e;
        }
    }

    private static ResponseBody successful(Response response, String what) throws ApiException {
        ResponseBody body = response.body();
        if (!response.isSuccessful()) {
            String text;
            try {
                text = body.string();
            } catch (IOException e) {
                text = "";
            }
            throw new ApiException(what + ": HTTP " + response.code(), response.code(), response.headers().toMultimap(), text);
        }
        return body;
    }

    /** The events of one watch response, read one by one as the reflector asks for them. */
    private static final class Events implements Watchable<V1Pod> {
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
                throw new UncheckedIOException("watch pods: " + e.getMessage(), e);
            }
        }

        @Override
        public Watch.Response<V1Pod> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            try {
                SlimPodJson.Event e = SlimPodJson.readEvent(in);
                return e.status() != null ? new Watch.Response<>(e.type(), e.status()) : new Watch.Response<>(e.type(), e.pod());
            } catch (IOException e) {
                throw new UncheckedIOException("watch pods: " + e.getMessage(), e);
            }
        }

        @Override
        public Iterator<Watch.Response<V1Pod>> iterator() {
            return this;
        }

        @Override
        public void close() {
            call.cancel();
            response.close();
        }
    }
}
